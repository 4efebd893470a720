"""The ``terms`` table (``--sparse``): the output's document frequencies, counted from
its chunks' sparse vectors (pure) and read back for a query
(``read_term_frequencies``; ``ragbeam.load_term_frequencies`` also finds the run in a
state folder).

One row per index a chunk holds other than through its document's title alone
(``sparse.counted_indices``), with the number of such chunks, and one row, index
``ALL_CHUNKS_INDEX`` (−1: a term's index is never negative), counting the chunks:
BM25's N. The table is the whole output's, carried chunks included, so it is the
frequencies of exactly the chunks a synced store holds; it travels with them,
written in the same commit, and needs no other file to be read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from ragbeam.schemas.terms import TermRow
from ragbeam.transforms.embed.sparse import TermFrequencies, counted_indices
from ragbeam.transforms.write.read import read_table_columns

TERMS_TABLE = "terms"
ALL_CHUNKS_INDEX = -1


def add_chunk(counts: Counter[int], row: Mapping[str, Any]) -> Counter[int]:
    """``counts`` with one chunk row's indices counted (and the chunk itself)."""
    sparse = row.get("sparse")
    if sparse is not None:
        counts.update(counted_indices(sparse))
        counts[ALL_CHUNKS_INDEX] += 1
    return counts


def count_terms(rows: Iterable[Mapping[str, Any]]) -> Counter[int]:
    counts: Counter[int] = Counter()
    for row in rows:
        add_chunk(counts, row)
    return counts


def term_rows(counts: Mapping[int, int]) -> list[TermRow]:
    """The ``terms`` table's rows of ``counts`` (``count_terms``), by index."""
    return [{"index": index, "chunks": counts[index]} for index in sorted(counts)]


def term_frequencies(rows: Iterable[Mapping[str, Any]]) -> TermFrequencies:
    """``terms`` rows → the frequencies a query is weighed by."""
    frequencies = {int(row["index"]): int(row["chunks"]) for row in rows}
    return TermFrequencies(frequencies.pop(ALL_CHUNKS_INDEX, 0), frequencies)


def read_term_frequencies(output: str) -> TermFrequencies:
    """The document frequencies of a run's output folder (a local path or any Beam
    file system's, ``gs://…``), from its ``terms`` table: what
    ``ragbeam.encode_sparse_query`` weighs a question's terms by. Raises
    ``ValueError`` for a run without sparse vectors (``--sparse``)."""
    table = read_table_columns(output, TERMS_TABLE, ["index", "chunks"])
    frequencies = term_frequencies(table.to_pylist() if table is not None else ())
    if not frequencies.chunks:
        raise ValueError(f"{output} has no term frequencies: was it run with --sparse?")
    return frequencies
