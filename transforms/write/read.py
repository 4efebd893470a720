"""Read a finished run's tables back (any Beam filesystem), for eval, peek and tests.

The pipeline itself never reads its output back: ``run.json`` comes from the
sink's own counts (``stats.py``).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems


def table_files(output: str, table: str) -> list[str]:
    pattern = FileSystems.join(output, table, "*.parquet")
    matches = FileSystems.match([pattern])[0].metadata_list
    return sorted(m.path for m in matches)


def read_table_columns(output: str, table: str, columns: list[str]) -> pa.Table | None:
    """The given columns of every file of ``table`` (None if the table has no files)."""
    tables = []
    for path in table_files(output, table):
        with FileSystems.open(path) as f:
            tables.append(pq.read_table(pa.BufferReader(f.read()), columns=columns))
    return pa.concat_tables(tables) if tables else None
