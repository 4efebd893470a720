"""``documents`` table: exactly one row per matched input file."""

# Not ``from __future__ import annotations``: see ``schemas/errors.py``.
from typing import Annotated, TypedDict

import pyarrow as pa

from ragbeam.schemas.chunks import STRING_MAP
from ragbeam.schemas.typed_rows import arrow_fields

STATUS_OK = "ok"
STATUS_ERROR = "error"
STATUS_UNCHANGED = "unchanged"
STATUS_DELETED = "deleted"
# Failed in this run (or failed before and kept: same bytes, permanent error),
# while its last good chunks, text and row are served on: see docs/incremental.md.
STATUS_STALE = "stale"
# Not matched any more, but held by the delete guard (too many vanished at once):
# its last good row and chunks are served on, nothing is deleted from a store.
STATUS_VANISHED = "vanished"
# Same bytes as another document of the run (``metadata.duplicate_of`` names it):
# chunked and embedded once, under that one; no chunks of its own.
STATUS_DUPLICATE = "duplicate"
# A file ragbeam cannot index by design (audio, video, an image without text read,
# a program; ``transforms/read/naming.py``): no chunks, not a failure, so it does not
# count toward --max-error-rate unless --unsupported-as-errors asks; an incremental
# run carries it over while its bytes and config stay.
STATUS_UNSUPPORTED = "unsupported"
# Statuses whose chunks are the document's good chunks.
GOOD_STATUSES = (STATUS_OK, STATUS_UNCHANGED, STATUS_STALE, STATUS_VANISHED)

# ``documents.spans``: where each cleaned block (or line of one) sits in ``text``, its
# kind, page, heading level and offsets in Tika's raw text (``transforms/types.py``
# ``TextSpan``). Offsets into the stored text, not a second copy of it: what an
# incremental run needs to chunk the document again without extracting it
# (``transforms/plan/reuse_extraction.py``).
class SpanRow(TypedDict):
    """One element of ``documents.spans``."""

    start: Annotated[int, pa.int32()]
    end: Annotated[int, pa.int32()]
    kind: Annotated[str, pa.string()]
    page: Annotated[int | None, pa.int32()]
    level: Annotated[int, pa.int32()]
    raw_start: Annotated[int, pa.int32()]
    raw_end: Annotated[int, pa.int32()]
    block: Annotated[int, pa.int32()]


SPAN_TYPE = pa.list_(pa.struct(arrow_fields(SpanRow)))


class DocumentRow(TypedDict):
    """One row of the ``documents`` table (``README.md`` beside this file says what
    each column holds)."""

    doc_id: Annotated[str, pa.string()]
    source_uri: Annotated[str, pa.string()]
    content_hash: Annotated[str | None, pa.string()]
    status: Annotated[str, pa.string()]  # one of the STATUS_* above
    error: Annotated[str | None, pa.string()]
    media_type: Annotated[str | None, pa.string()]
    title: Annotated[str | None, pa.string()]
    language: Annotated[str | None, pa.string()]
    page_count: Annotated[int | None, pa.int32()]
    bytes: Annotated[int | None, pa.int64()]
    char_count: Annotated[int | None, pa.int64()]
    chunk_count: Annotated[int | None, pa.int32()]
    strategy: Annotated[str | None, pa.string()]
    config_hash: Annotated[str, pa.string()]
    text: Annotated[str | None, pa.string()]
    metadata: Annotated[dict[str, str], STRING_MAP]
    # Set on ``ok`` rows (carried with them); null on every other kind.
    spans: Annotated[list[SpanRow] | None, SPAN_TYPE]


DOCUMENT_SCHEMA = pa.schema(arrow_fields(DocumentRow))


def build_document_row(
    *,
    doc_id: str,
    source_uri: str,
    status: str,
    config_hash: str,
    metadata: dict[str, str],
    chunk_count: int,
    content_hash: str | None = None,
    error: str | None = None,
    media_type: str | None = None,
    title: str | None = None,
    language: str | None = None,
    page_count: int | None = None,
    bytes: int | None = None,
    char_count: int | None = None,
    strategy: str | None = None,
    text: str | None = None,
    spans: list[SpanRow] | None = None,
) -> DocumentRow:
    """The one way to make a ``documents`` row from its columns; a column a kind of
    row has no value for (a failed document's text) is left out, and is null."""
    return {
        "doc_id": doc_id,
        "source_uri": source_uri,
        "content_hash": content_hash,
        "status": status,
        "error": error,
        "media_type": media_type,
        "title": title,
        "language": language,
        "page_count": page_count,
        "bytes": bytes,
        "char_count": char_count,
        "chunk_count": chunk_count,
        "strategy": strategy,
        "config_hash": config_hash,
        "text": text,
        "metadata": metadata,
        "spans": spans,
    }
