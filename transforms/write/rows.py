"""Rows of the ``documents`` and ``errors`` tables (pure)."""

from __future__ import annotations

from collections.abc import Mapping

from ragbeam.schemas.documents import (
    STATUS_ERROR,
    STATUS_OK,
    STATUS_UNSUPPORTED,
    DocumentRow,
    SpanRow,
    build_document_row,
)
from ragbeam.schemas.errors import ErrorRow, build_error_row
from ragbeam.transforms.errors import UNSUPPORTED_ERROR_TYPE, error_class
from ragbeam.transforms.types import Document, Failure, SourceFile, TextSpan

# documents.metadata keys of a failed document (error and stale rows).
ERROR_STAGE_KEY = "error_stage"
ERROR_TYPE_KEY = "error_type"
ERROR_CLASS_KEY = "error_class"
# Set on a carried-over failure (not retried in this run), so a reader can tell.
ERROR_CARRIED_KEY = "error_carried_over"
# How many runs in a row failed this document the same way (error type), with the
# same bytes and config; absent: once. And, set with the last of them, that no run
# retries it any more until its bytes, the config or ragbeam's version change, or
# ``--retry-errors`` asks (``transforms/plan/retries.py``).
FAILED_ATTEMPTS_KEY = "failed_attempts"
GAVE_UP_KEY = "gave_up"
# The modification time the listing reported for the file whose bytes the row
# describes (``repr`` of seconds since the epoch), when the next run may trust it:
# a file listed with the same size and this time is taken as unchanged without
# being read (``transforms/plan/decide.py``; ``--verify-hashes`` reads it).
SOURCE_MODIFIED_KEY = "source_modified"
# A file modified this shortly before it was listed could be written again within
# the same tick of the filesystem's clock (or a store's clock a little off the
# worker's) and keep its time: such a time is not recorded, so the next run reads
# and hashes the file once more.
SETTLED_AFTER_S = 10.0
# The chunk stage's stat of chunks left out for having nothing to search for
# (``chunk/searchable.py``); documents.metadata holds it as ``chunk_`` + this.
DROPPED_KEY = "dropped_unsearchable"


def settled_modified(source: SourceFile) -> str:
    """``SOURCE_MODIFIED_KEY``'s value for a listed file; "" when it cannot be trusted."""
    if source.modified <= 0 or source.listed - source.modified < SETTLED_AFTER_S:
        return ""
    return repr(source.modified)


def source_metadata(source: SourceFile) -> dict[str, str]:
    modified = settled_modified(source)
    return {SOURCE_MODIFIED_KEY: modified} if modified else {}


def span_records(spans: tuple[TextSpan, ...]) -> list[SpanRow]:
    """``documents.spans`` of a document: every field of each ``TextSpan``, so that
    ``reuse_extraction.document_from_row`` gives back the same ``Document``."""
    return [{"start": s.start, "end": s.end, "kind": str(s.kind), "page": s.page,
             "level": s.level, "raw_start": s.raw_start, "raw_end": s.raw_end,
             "block": s.block} for s in spans]


def ok_document_row(
    doc: Document,
    config_hash: str,
    strategy: str,
    chunk_count: int,
    metadata: Mapping[str, str],
) -> DocumentRow:
    return build_document_row(
        doc_id=doc.doc_id,
        source_uri=doc.source.uri,
        content_hash=doc.content_hash,
        status=STATUS_OK,
        media_type=doc.media_type,
        title=doc.title,
        language=doc.language,
        page_count=doc.page_count,
        bytes=doc.source.size_bytes,
        char_count=len(doc.text),
        chunk_count=chunk_count,
        strategy=strategy,
        config_hash=config_hash,
        text=doc.text,
        metadata={**metadata, **source_metadata(doc.source)},
        spans=span_records(doc.spans),
    )


def error_document_row(failure: Failure, config_hash: str) -> DocumentRow:
    return build_document_row(
        doc_id=failure.source.doc_id,
        source_uri=failure.source.uri,
        content_hash=failure.content_hash,
        status=STATUS_UNSUPPORTED if is_unsupported(failure) else STATUS_ERROR,
        error=failure_text(failure),
        media_type=failure.media_type,
        bytes=failure.source.size_bytes if failure.source.size_bytes >= 0 else None,
        chunk_count=0,
        config_hash=config_hash,
        metadata={**failure_metadata(failure), **source_metadata(failure.source)},
    )


def failure_text(failure: Failure) -> str:
    """``documents.error``: ``stage: ErrorType: message``."""
    return f"{failure.stage}: {failure.error_type}: {failure.message}"


def failure_metadata(failure: Failure) -> dict[str, str]:
    return {ERROR_STAGE_KEY: str(failure.stage), ERROR_TYPE_KEY: failure.error_type,
            ERROR_CLASS_KEY: str(error_class(failure.error_type))}


def is_unsupported(failure: Failure) -> bool:
    """A file ragbeam cannot index by design (``UNSUPPORTED_ERROR_TYPE``): its row is
    ``unsupported``, and the ``errors`` table, a log of failures, has no row for it."""
    return failure.error_type == UNSUPPORTED_ERROR_TYPE


def error_rows(failure: Failure) -> list[ErrorRow]:
    """The ``errors`` rows of a failure without last good chunks: none when unsupported."""
    return [] if is_unsupported(failure) else [error_row(failure)]


def error_row(failure: Failure) -> ErrorRow:
    return build_error_row(
        source_uri=failure.source.uri,
        doc_id=failure.source.doc_id,
        stage=str(failure.stage),
        error_type=failure.error_type,
        message=failure.message,
        error_class=str(error_class(failure.error_type)),
    )
