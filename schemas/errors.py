"""``errors`` table: dead letters, one row per failed document and stage."""

# Not ``from __future__ import annotations``: on Python 3.11 a TypedDict with string
# annotations loses ``NotRequired`` (``schemas/typed_rows.py`` reads the hints).
from typing import Annotated, TypedDict

import pyarrow as pa

from ragbeam.schemas.typed_rows import arrow_fields


class ErrorRow(TypedDict):
    """One row of the ``errors`` table."""

    source_uri: Annotated[str, pa.string()]
    doc_id: Annotated[str, pa.string()]
    stage: Annotated[str, pa.string()]
    error_type: Annotated[str, pa.string()]
    message: Annotated[str, pa.string()]
    # transient (retried by the next incremental run) or permanent: transforms/errors.py
    error_class: Annotated[str, pa.string()]


ERROR_SCHEMA = pa.schema(arrow_fields(ErrorRow))


def build_error_row(*, source_uri: str, doc_id: str, stage: str, error_type: str,
                    message: str, error_class: str) -> ErrorRow:
    """The one way to make an ``errors`` row."""
    return {"source_uri": source_uri, "doc_id": doc_id, "stage": stage,
            "error_type": error_type, "message": message, "error_class": error_class}
