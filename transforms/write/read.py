"""Read a finished run's tables back (wherever they are: ``storage.py``), for eval,
peek, an incremental run's previous run, and tests.

The pipeline itself never reads its output back: ``run.json`` comes from the
sink's own counts (``stats.py``).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from ragbeam.transforms import storage


def table_files(output: str, table: str) -> list[str]:
    """The Parquet files of one table of a run's output, by name."""
    return sorted(f.path for f in storage.match(storage.join(output, table, "*.parquet")))


def read_table_columns(output: str, table: str, columns: list[str]) -> pa.Table | None:
    """The given columns of every file of ``table`` (None if the table has no files)."""
    tables = []
    for path in table_files(output, table):
        tables.append(pq.read_table(pa.BufferReader(storage.read_bytes(path)), columns=columns))
    return pa.concat_tables(tables) if tables else None
