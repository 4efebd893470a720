"""A new chunking without a new extraction (pure): the previous run's documents row
gives back the cleaned ``Document`` a fresh extraction would give.

The extraction layer's output is a document's cleaned text, its spans (where each
cleaned block sits in the text: kind, page, heading level, offsets into Tika's raw
text) and its title, language, page count and metadata. The ``documents`` table
keeps all of it: ``text``, ``spans`` (offsets into ``text``, not a second copy of it),
the columns, and ``metadata``, which also holds what the chunk stage and the
incremental bookkeeping added (``CHUNK_STAGE_KEYS``; the ``chunk_*`` stats): taken
off here, and written again by the chunk stage as a fresh run writes them.

When may a row be reused (``reusable``)? Its bytes are the current file's (decided
as for carrying it, ``decide.decide``), it is a good row of its own bytes (``ok``
or ``unchanged``, not cut short: ``metadata.incomplete``), it has spans (rows
written before the ``spans`` column have none), and it was made under the
previous run's chunk key while that run's extraction key is this run's
(``reuse_key``): the chunk key covers the extraction's fields, so a row under it was
extracted and cleaned exactly as this run would. Corpus boilerplate removal
(``--remove-boilerplate``) cleans a document by the others of its run: never reused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragbeam.schemas.documents import STATUS_OK, STATUS_UNCHANGED
from ragbeam.transforms.errors import INCOMPLETE_KEY
from ragbeam.transforms.types import BlockKind, Document, SourceFile, TextSpan
from ragbeam.transforms.write.rows import ERROR_CARRIED_KEY, SOURCE_MODIFIED_KEY

# documents.metadata keys that are not the extraction's: the route's reason (the
# chunk stage's ``chunk_*`` stats too, by prefix), the listing's time, and what an
# incremental run marks on carried or taken-over rows.
CHUNK_STAGE_KEYS = frozenset({"route_reason", SOURCE_MODIFIED_KEY, ERROR_CARRIED_KEY,
                              "moved_from", "previous_status"})
CHUNK_STATS_PREFIX = "chunk_"
REUSABLE_STATUSES = (STATUS_OK, STATUS_UNCHANGED)
# ``head_of``'s flag: the row has spans (the head carries no spans themselves).
HAS_SPANS = "has_spans"


def reuse_key(previous_layers: Mapping[str, str | None], current_layers: Mapping[str, str | None],
              remove_boilerplate: bool) -> str | None:
    """The chunk key whose rows this run may re-chunk without extracting: the previous
    run's, when its extraction key is this run's and the chunk key differs (same
    chunk key: the rows are carried as they are); None: none may."""
    extraction = previous_layers.get("extraction")
    chunks = previous_layers.get("chunks")
    if (remove_boilerplate or not extraction or not chunks
            or extraction != current_layers.get("extraction")
            or chunks == current_layers.get("chunks")):
        return None
    return chunks


def reusable(previous: Mapping[str, Any], key: str | None) -> bool:
    """Whether a previous documents row (or its head) may be re-chunked as it is."""
    metadata = previous.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        metadata = dict(metadata)
    has_spans = previous[HAS_SPANS] if HAS_SPANS in previous else previous.get("spans") is not None
    return (key is not None and previous["config_hash"] == key
            and previous["status"] in REUSABLE_STATUSES and bool(has_spans)
            and previous.get("content_hash") is not None and INCOMPLETE_KEY not in metadata)


def extraction_metadata(metadata: Mapping[str, str]) -> dict[str, str]:
    """A documents row's metadata without what the chunk stage and incremental runs
    added: the cleaned document's own."""
    return {k: v for k, v in metadata.items()
            if k not in CHUNK_STAGE_KEYS and not k.startswith(CHUNK_STATS_PREFIX)}


def spans_from_records(records: list[Mapping[str, Any]]) -> tuple[TextSpan, ...]:
    return tuple(TextSpan(start=r["start"], end=r["end"], kind=BlockKind(r["kind"]),
                          page=r["page"], level=r["level"], raw_start=r["raw_start"],
                          raw_end=r["raw_end"], block=r["block"]) for r in records)


def document_from_row(row: Mapping[str, Any], source: SourceFile) -> Document:
    """The cleaned document a previous ``ok``/``unchanged`` row was chunked from, as
    the current file (``source``: its URI and listing) would give it."""
    metadata = row.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        metadata = dict(metadata)
    return Document(
        source=source,
        content_hash=row["content_hash"],
        media_type=row["media_type"],
        text=row["text"] or "",
        spans=spans_from_records(row["spans"] or []),
        metadata=extraction_metadata(metadata),
        title=row["title"],
        language=row["language"],
        page_count=row["page_count"],
    )
