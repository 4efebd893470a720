"""Arrow schemas of ragbeam's output tables; see ``README.md`` beside this file."""

from ragbeam.schemas.changes import CHANGE_SCHEMA
from ragbeam.schemas.chunks import CHUNK_SCHEMA
from ragbeam.schemas.documents import DOCUMENT_SCHEMA
from ragbeam.schemas.errors import ERROR_SCHEMA

# Every table a run writes, by its folder name under --output.
OUTPUT_SCHEMAS = {
    "chunks": CHUNK_SCHEMA,
    "documents": DOCUMENT_SCHEMA,
    "errors": ERROR_SCHEMA,
    "changes": CHANGE_SCHEMA,
}

__all__ = ["CHANGE_SCHEMA", "CHUNK_SCHEMA", "DOCUMENT_SCHEMA", "ERROR_SCHEMA", "OUTPUT_SCHEMAS"]
