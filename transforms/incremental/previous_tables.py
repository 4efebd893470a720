"""The previous run's Parquet tables, read wherever they are (``storage.py``): their
files, their rows a bounded batch at a time, and the slim documents heads for the
join."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow.parquet as pq

from ragbeam.transforms import storage
from ragbeam.transforms.incremental.join import CHUNKS, DOCUMENTS, PREVIOUS
from ragbeam.transforms.plan.decide import HEAD_COLUMNS, SPANS_COLUMN, head_of
from ragbeam.transforms.plan.reuse_extraction import HAS_SPANS
from ragbeam.transforms.write.read import table_files

PREVIOUS_TABLES = (DOCUMENTS, CHUNKS)
# Rows read from a previous table at a time, so memory stays bounded: a documents
# row holds a whole document's text, a chunk row a chunk's.
ROWS_PER_BATCH = {DOCUMENTS: 64, CHUNKS: 1024}


def previous_files(_: bytes, previous: str) -> Iterator[tuple[str, str]]:
    """``(path, table)`` of every file of the previous run's tables."""
    for table in PREVIOUS_TABLES:
        for path in table_files(previous, table):
            yield path, table


def read_rows(path: str, table: str, columns: Sequence[str] | None = None
              ) -> Iterator[dict[str, Any]]:
    """The rows of one Parquet file of ``table``, a few at a time."""
    with storage.open_read(path) as f:
        for batch in pq.ParquetFile(f).iter_batches(batch_size=ROWS_PER_BATCH[table],
                                                    columns=columns):
            yield from batch.to_pylist()


def read_heads(path: str, table: str) -> Iterator[tuple[str, tuple[str, dict[str, Any]]]]:
    """A previous documents file → ``(doc_id, (PREVIOUS, head))`` for the join. Of
    the ``spans`` column only whether each row has them is read into the head (a
    table written before the column has none)."""
    if table != DOCUMENTS:
        return
    import pyarrow.compute as pc  # 0.03 s: the Beam step and the dry run only

    with storage.open_read(path) as f:
        parquet = pq.ParquetFile(f)
        spans = SPANS_COLUMN in parquet.schema_arrow.names
        columns = [*HEAD_COLUMNS, SPANS_COLUMN] if spans else list(HEAD_COLUMNS)
        for batch in parquet.iter_batches(batch_size=ROWS_PER_BATCH[table], columns=columns):
            has_spans = (pc.is_valid(batch.column(SPANS_COLUMN)).to_pylist() if spans
                         else [False] * batch.num_rows)
            heads = batch.select(list(HEAD_COLUMNS)).to_pylist()
            for row, flag in zip(heads, has_spans, strict=True):
                row[HAS_SPANS] = flag
                yield row["doc_id"], (PREVIOUS, head_of(row))
