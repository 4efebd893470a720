"""``evaluate/run_data.py`` reads columns of the tables' one row type each
(``ragbeam.schemas``), never a list of its own that could drift."""

from __future__ import annotations

import dataclasses

from ragbeam.evaluate.run_data import (
    CHUNK_COLUMNS,
    DOCUMENT_COLUMNS,
    ChunkRecord,
    DocumentRecord,
)
from ragbeam.schemas import ChunkRow, DocumentRow


def test_the_columns_read_are_columns_of_the_row_types():
    """Mutation caught: a column renamed in ``schemas/chunks.py`` but still read here."""
    assert set(CHUNK_COLUMNS) <= set(ChunkRow.__annotations__)
    assert {*DOCUMENT_COLUMNS, "text"} <= set(DocumentRow.__annotations__)


def test_the_records_hold_exactly_the_columns_read():
    assert [f.name for f in dataclasses.fields(ChunkRecord)] == CHUNK_COLUMNS
    assert [f.name for f in dataclasses.fields(DocumentRecord)] == DOCUMENT_COLUMNS
