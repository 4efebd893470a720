"""The comparison by doc id: what an incremental run does with one document (pure).

A document is identified by its ``doc_id`` (``ids.py``: its path below its
input root), so the current file and its previous row meet on that key. The
rule, in order:

1. Previous row but no current file: ``DELETED`` (a ``deleted`` row, no chunks,
   deletes for all its chunk ids). A previous ``deleted`` row is a tombstone
   already reported once: it is dropped (``GONE``), so tombstones do not pile up.
2. Current file but no live previous row: ``NEW``, processed normally.
3. Bytes or config differ (or a hash is unknown): ``CHANGED``, processed normally;
   but same bytes under another chunking only (the previous run's extraction key is
   this run's, and the row can be re-chunked: ``reuse_extraction.reusable``):
   ``RECHUNK``, chunked again from the previous row's text and spans, not read or
   extracted.
4. Same bytes and config, previously ``ok``/``unchanged``: ``UNCHANGED``; the
   previous document row (status ``unchanged``) and chunk rows are carried over;
   but an *incomplete* one (``metadata.incomplete``: OCR stopped by a time limit,
   ``transforms/errors.py``) is ``RETRY``'d, as a transient failure is.
5. Same bytes and config, previously failed (``error``, or ``stale``: failed
   while its last good chunks were kept): a *transient* failure
   (``transforms/errors.py``: a time limit, a server that was down…) is
   ``RETRY``'d, unless it failed the same way ``retries.MAX_ATTEMPTS`` runs in a
   row (``retries.py``: it *gave up*); a *permanent* one, or one given up on, is
   ``KEPT_ERROR``: the row, its error and (for ``stale``) its last good chunks are
   carried over without re-processing, unless ``retry_errors``
   (``--retry-errors``) asks for ``RETRY``.
6. Same bytes and config, previously ``unsupported`` (audio, a program…: no text
   by design): ``UNCHANGED``, its row carried over as it is (status
   ``unsupported``), unless ``retry_errors`` asks for ``RETRY``.

"Same bytes" of a file whose bytes were never hashed (its previous row failed
before reading them: too large, not a regular file) is the listing's answer:
same size and recorded time. An empty file has a hash (of no bytes).

"Same bytes" is decided from the listing when it can be: a file whose size and
modification time are those the previous row recorded (``SOURCE_MODIFIED_KEY``)
is not read at all; only the others are hashed (``needs_hash``), and only when
the answer matters (a live previous row with a hash, under the same config).
``--verify-hashes`` hashes every one of them, for filesystems or tools that
rewrite files keeping both size and time.

How the decision travels: the comparison meets a slim head of each previous row
(``head_of``: no text, no chunks). What is decided for a document reaches the rows
that carry it over (``carry.py``) as a ``Verdict``, and only when they could not
work it out from the row alone (``implicit_document_outcome``,
``implicit_chunk_outcome``): in the nightly case, a handful of verdicts, so the
previous tables stream from the previous run to the new output without a shuffle.
``planner.py`` puts the steps together (this comparison, content identity, the delete
guard); the pipeline runs the same steps in Beam (``incremental/``).

What happens when a re-processed document fails again is
``incremental/reconcile.py``'s rule: its last good chunks win over the failure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from ragbeam.schemas.documents import (
    STATUS_DELETED,
    STATUS_DUPLICATE,
    STATUS_ERROR,
    STATUS_OK,
    STATUS_STALE,
    STATUS_UNCHANGED,
    STATUS_UNSUPPORTED,
    STATUS_VANISHED,
)
from ragbeam.transforms.errors import INCOMPLETE_KEY, incomplete_reason, is_transient
from ragbeam.transforms.plan.retries import gave_up
from ragbeam.transforms.plan.reuse_extraction import HAS_SPANS, reusable
from ragbeam.transforms.types import SourceFile
from ragbeam.transforms.write.rows import (
    ERROR_TYPE_KEY,
    FAILED_ATTEMPTS_KEY,
    GAVE_UP_KEY,
    SOURCE_MODIFIED_KEY,
    settled_modified,
)

PREVIOUS_STATUS_KEY = "previous_status"
# documents.metadata of a moved document's tombstone, and of the row that took over.
MOVED_TO_KEY = "moved_to"
MOVED_FROM_KEY = "moved_from"
# Statuses whose chunks are the document's own, of its current bytes: carried over
# as they are while the bytes and config stay (``vanished``: held by the delete
# guard, and its file is back).
SERVED_STATUSES = (STATUS_OK, STATUS_UNCHANGED, STATUS_VANISHED)
# Statuses of rows that have chunks of their own (``stale``: its last good ones).
CHUNK_BEARING = (*SERVED_STATUSES, STATUS_STALE)
MAP_COLUMNS = ("metadata",)


@dataclass(frozen=True)
class CurrentFile:
    """A matched file and the sha256 of its bytes (None when it could not be hashed)."""

    source: SourceFile
    content_hash: str | None


class Outcome(StrEnum):
    NEW = "new"
    CHANGED = "changed"
    RETRY = "retry"
    UNCHANGED = "unchanged"
    KEPT_ERROR = "kept_error"
    DELETED = "deleted"
    GONE = "gone"
    # Content identity (``content.py``): same bytes as the canonical copy, no chunks
    # of its own; and a document whose chunks are taken over from a copy that moved.
    DUPLICATE = "duplicate"
    ADOPTED = "adopted"
    # Same bytes, extracted under this run's extraction key, another chunk key: chunked
    # again from the previous row's text and spans, not read or extracted
    # (``reuse_extraction.py``).
    RECHUNK = "rechunk"

    @property
    def needs_processing(self) -> bool:
        return self in (Outcome.NEW, Outcome.CHANGED, Outcome.RETRY, Outcome.RECHUNK)


def previous_error_type(previous: Mapping[str, Any]) -> str | None:
    """The error type of a failed previous row (``error`` or ``stale``)."""
    metadata = as_python_row(previous).get("metadata") or {}
    if metadata.get(ERROR_TYPE_KEY):
        return metadata[ERROR_TYPE_KEY]
    parts = (previous.get("error") or "").split(": ", 2)
    return parts[1] if len(parts) == 3 else None


def decide(
    current: CurrentFile | None,
    previous: Mapping[str, Any] | None,
    config_hash: str,
    retry_errors: bool = False,
    reuse: str | None = None,
) -> Outcome:
    """What to do with one document; see the module docstring for the rule.
    ``previous`` may be a whole documents row or its ``head_of``. ``reuse``: the
    chunk key whose rows may be chunked again without extracting
    (``reuse_extraction.reuse_key``)."""
    live = previous if previous is not None and previous["status"] != STATUS_DELETED else None
    if current is None:
        return Outcome.DELETED if live is not None else Outcome.GONE
    if live is None:
        return Outcome.NEW
    same_bytes = (current.content_hash == live["content_hash"] if current.content_hash
                  else unhashed_failure_unchanged(current.source, live))
    if same_bytes and live["config_hash"] != config_hash and reusable(live, reuse):
        return Outcome.RECHUNK
    if not (same_bytes and live["config_hash"] == config_hash):
        return Outcome.CHANGED
    metadata = as_python_row(live).get("metadata")
    if live["status"] in SERVED_STATUSES:
        # ok, but cut short by a time limit (OCR): read again, though nothing changed
        return Outcome.RETRY if incomplete_reason(metadata) else Outcome.UNCHANGED
    if live["status"] == STATUS_UNSUPPORTED:  # by design: the same bytes give no text
        return Outcome.RETRY if retry_errors else Outcome.UNCHANGED
    if live["status"] in (STATUS_ERROR, STATUS_STALE):
        if retry_errors or (is_transient(previous_error_type(live)) and not gave_up(metadata)):
            return Outcome.RETRY
        return Outcome.KEPT_ERROR
    # A previous duplicate (content identity decides again what it is now), or a
    # status this version does not know: safest to redo.
    return Outcome.CHANGED


# The documents columns the decision needs: everything but the text.
HEAD_COLUMNS = ("doc_id", "source_uri", "content_hash", "status", "error", "bytes",
                "config_hash", "metadata")
# Read with them where the table has it, and cut down to ``HAS_SPANS``.
SPANS_COLUMN = "spans"
_HEAD_METADATA = (ERROR_TYPE_KEY, SOURCE_MODIFIED_KEY, INCOMPLETE_KEY, FAILED_ATTEMPTS_KEY,
                  GAVE_UP_KEY)


def head_of(row: Mapping[str, Any]) -> dict[str, Any]:
    """What of a previous documents row ``decide`` and ``needs_hash`` look at, small
    enough to go through a shuffle (metadata cut down to the keys they read)."""
    metadata = as_python_row(row).get("metadata") or {}
    head = {column: row.get(column) for column in HEAD_COLUMNS if column != "metadata"}
    head["metadata"] = {k: metadata[k] for k in _HEAD_METADATA if k in metadata}
    head[HAS_SPANS] = bool(row[HAS_SPANS] if HAS_SPANS in row else row.get(SPANS_COLUMN))
    return head


def listing_unchanged(source: SourceFile, previous: Mapping[str, Any]) -> bool:
    """The listing reports the size and modification time the previous row recorded
    for the bytes it describes (a time it recorded only once it had settled)."""
    metadata = as_python_row(previous).get("metadata") or {}
    recorded = metadata.get(SOURCE_MODIFIED_KEY)
    return (bool(recorded) and source.modified > 0 and recorded == repr(source.modified)
            and previous.get("bytes") == source.size_bytes)


def unhashed_failure_unchanged(source: SourceFile, previous: Mapping[str, Any]) -> bool:
    """A previous ``error`` row without a hash (Read refused the file before reading
    it: too large, not a regular file) whose file the listing reports as it was: the
    same failure again, so it is not redone every night."""
    return (previous["status"] == STATUS_ERROR and previous.get("content_hash") is None
            and listing_unchanged(source, previous))


def needs_hash(source: SourceFile, previous: Mapping[str, Any] | None, config_hash: str,
               verify: bool = False, reuse: str | None = None) -> bool:
    """Whether the decision needs the file's bytes hashed: only against a live
    previous row with a hash under the same config (otherwise it is processed
    whatever its bytes), and then only when the listing does not already say the
    file is unchanged (or ``verify``, ``--verify-hashes``)."""
    return comparable(previous, config_hash, reuse) and (
        verify or not listing_unchanged(source, previous))


def comparable(previous: Mapping[str, Any] | None, config_hash: str,
               reuse: str | None = None) -> bool:
    """A live previous row with a hash, under the same config: the only kind whose
    document can be carried over, so the only one a file's hash is compared with;
    or one whose extraction this run may reuse (``reuse_extraction.reusable``)."""
    return (previous is not None and previous["status"] != STATUS_DELETED
            and previous["content_hash"] is not None
            and (previous["config_hash"] == config_hash or reusable(previous, reuse)))


class Verdict(NamedTuple):
    """What the join decided for a document, for the steps that carry its previous
    rows: the outcome, and for carried rows the new URI and recorded modification
    time (None: as before; "" for the time: none recorded any more). For a document
    whose rows another one takes over (a move, ``content.py``): that one's doc id,
    URI and recorded time. For a document chunked again from its previous row
    (``RECHUNK``): the current file, which the rebuilt document is of."""

    outcome: str
    uri: str | None = None
    modified: str | None = None
    moved_to: str | None = None
    moved_uri: str | None = None
    moved_modified: str | None = None
    source: SourceFile | None = None


CARRIED = (Outcome.UNCHANGED, Outcome.KEPT_ERROR)


def implicit_document_outcome(row: Mapping[str, Any], config_hash: str) -> Outcome:
    """The outcome of a previous documents row that got no ``Verdict``: its file was
    matched again, as it was, under the same URI and time."""
    if row["status"] in (STATUS_DELETED, STATUS_DUPLICATE):
        # A tombstone is never carried (its file may be NEW); a duplicate row is made
        # again by every run (``content.py``).
        return Outcome.GONE
    if row["config_hash"] != config_hash:
        return Outcome.CHANGED
    if row["status"] in (*SERVED_STATUSES, STATUS_UNSUPPORTED):
        return Outcome.UNCHANGED
    if row["status"] in (STATUS_ERROR, STATUS_STALE):
        return Outcome.KEPT_ERROR  # a transient one gets a RETRY verdict
    return Outcome.CHANGED


def implicit_chunk_outcome(row: Mapping[str, Any], config_hash: str) -> Outcome:
    """The same for a previous chunk row: its document's outcome, as far as the chunk
    shows it: a chunk made under another config belongs to a document that is
    processed again (``verdict_for`` gives the chunks of ``stale`` documents, whose
    config may differ from their row's, a verdict whatever happens to them)."""
    return Outcome.UNCHANGED if row["config_hash"] == config_hash else Outcome.CHANGED


def verdict_for(current: CurrentFile | None, previous: Mapping[str, Any] | None,
                outcome: Outcome, config_hash: str) -> Verdict | None:
    """The ``Verdict`` the carrying steps need for this document, or None when the
    implicit outcomes of its rows are right and they are carried as they are."""
    if previous is None or previous["status"] == STATUS_DELETED:
        return None  # nothing of it is carried over
    if outcome is Outcome.RECHUNK:
        assert current is not None
        return Verdict(str(outcome), source=current.source)
    uri = modified = None
    if outcome in CARRIED:
        assert current is not None
        if current.source.uri != previous["source_uri"]:
            uri = current.source.uri
        settled = settled_modified(current.source)
        recorded = (as_python_row(previous).get("metadata") or {}).get(SOURCE_MODIFIED_KEY, "")
        if settled != recorded:
            modified = settled
    implicit = implicit_document_outcome(previous, config_hash)
    # A chunk row shows only the config it was made under, which is its document
    # row's for ok and unchanged documents (and error ones have no chunks); the
    # last good chunks of a stale document may come from an older config, and a
    # status this version does not know is best not guessed at.
    chunks_need_it = previous["status"] not in (STATUS_OK, STATUS_UNCHANGED, STATUS_ERROR,
                                                STATUS_DUPLICATE, STATUS_UNSUPPORTED)
    if outcome is implicit and not chunks_need_it and uri is None and modified is None:
        return None
    return Verdict(str(outcome), uri, modified)


def document_outcome(row: Mapping[str, Any], verdict: Verdict | None, config_hash: str
                     ) -> Outcome:
    return Outcome(verdict.outcome) if verdict else implicit_document_outcome(row, config_hash)


def chunk_outcome(row: Mapping[str, Any], verdict: Verdict | None, config_hash: str
                  ) -> Outcome:
    return Outcome(verdict.outcome) if verdict else implicit_chunk_outcome(row, config_hash)


def as_python_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row read back from Parquet, with map columns as dicts (as the stages make them).

    pyarrow returns a ``map<string,string>`` value as a list of key/value pairs.
    """
    out = dict(row)
    for column in MAP_COLUMNS:
        value = out.get(column)
        if value is not None and not isinstance(value, Mapping):
            out[column] = dict(value)
    return out


@dataclass(frozen=True)
class Decided:
    """One document after the comparison by doc id: its current file (with the hash,
    when known), its previous head, and what the comparison decided."""

    doc_id: str
    current: CurrentFile | None
    previous: Mapping[str, Any] | None
    outcome: Outcome

    @property
    def previous_live(self) -> bool:
        return self.previous is not None and self.previous["status"] != STATUS_DELETED


def decide_document(doc_id: str, source: SourceFile | None,
                    previous: Mapping[str, Any] | None, config_hash: str,
                    retry_errors: bool, verify_hashes: bool,
                    hash_of: Callable[[SourceFile], str | None],
                    reuse: str | None = None) -> tuple[Decided, bool]:
    """The comparison by doc id (``decide``), hashing the file only if
    ``needs_hash``; and whether the listing settled it (same size and time)."""
    current = None
    by_listing = False
    if source is not None:
        content_hash = None
        if needs_hash(source, previous, config_hash, verify_hashes, reuse):
            content_hash = hash_of(source)
        elif comparable(previous, config_hash, reuse):
            content_hash = previous["content_hash"]  # the listing says: same bytes
            by_listing = True
        current = CurrentFile(source, content_hash)
    outcome = decide(current, previous, config_hash, retry_errors, reuse)
    return Decided(doc_id, current, previous, outcome), by_listing
