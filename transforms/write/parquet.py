"""Write stage: rows → Parquet, through Beam's file sink.

Beam's file-based sinks write each shard to a temporary file and rename it into
place only when the whole write finalizes, so a crashed run leaves no
half-written file under the final table names.
"""

from __future__ import annotations

import apache_beam as beam
import pyarrow as pa
from apache_beam.io.filesystems import FileSystems


def table_prefix(output: str, table: str) -> str:
    return FileSystems.join(output, table, "part")


class WriteTable(beam.PTransform):
    """Write dict rows with an explicit Arrow schema to ``OUTPUT/TABLE/part-*.parquet``."""

    def __init__(self, output: str, table: str, schema: pa.Schema) -> None:
        super().__init__()
        self._output = output
        self._table = table
        self._schema = schema

    def expand(self, rows: beam.PCollection[dict]) -> beam.pvalue.PDone:
        return rows | beam.io.WriteToParquet(
            table_prefix(self._output, self._table),
            self._schema,
            file_name_suffix=".parquet",
            codec="zstd",
        )
