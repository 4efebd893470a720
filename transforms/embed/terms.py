"""The Beam side of the ``terms`` table (``term_table.py``): the document frequencies
of every chunk of the output, in one combine."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

import apache_beam as beam

from ragbeam.schemas.chunks import ChunkRow
from ragbeam.schemas.terms import TermRow
from ragbeam.transforms.embed.term_table import add_chunk, term_rows


class CountTermChunks(beam.CombineFn):
    """Chunk rows → ``Counter`` of the chunks per counted index (and their number).
    A combine, not a count per index: one element per chunk, not per term, and each
    worker sums its share before anything is shuffled."""

    def create_accumulator(self) -> Counter[int]:
        return Counter()

    def add_input(self, counts: Counter[int], row: Mapping[str, Any]) -> Counter[int]:
        return add_chunk(counts, row)

    def merge_accumulators(self, accumulators: Iterable[Counter[int]]) -> Counter[int]:
        merged: Counter[int] = Counter()
        for counts in accumulators:
            merged.update(counts)
        return merged

    def extract_output(self, counts: Counter[int]) -> Counter[int]:
        return counts


class TermRows(beam.PTransform):
    """Every chunk of the output → the ``terms`` table's rows."""

    def expand(self, chunks: beam.PCollection[ChunkRow]) -> beam.PCollection[TermRow]:
        return (chunks
                | "Count term chunks" >> beam.CombineGlobally(CountTermChunks())
                | "Term rows" >> beam.FlatMap(term_rows).with_output_types(TermRow))
