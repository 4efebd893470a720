"""``run.json``: what a run did, written last, and what its exit code should be.

The pipeline writes it itself (``graph.WriteRunJson``), from the counts the Parquet
sink kept while writing (``transforms/write/stats.py``): nothing is read back,
so the summary costs the same for ten documents or ten million, and it exists
even when the launcher does not wait for the job (Dataflow Flex Templates).
It is the run's commit marker: every table is in place when it appears.

``ragbeam run``, which waits, then updates it once (``complete_run_json``) with
what only the launcher knows after the pipeline has finished: the runner's
metrics (extraction counters, embedding reuse) and the vector stores' states,
which exist only once the stores were checked against the committed chunks
table (docs/architecture.md, "run.json"). Every write replaces the file whole
(``write_run_json``): a reader sees the committed file or the completed one,
never a part.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from typing import Any

import ragbeam
from ragbeam.pipeline.config import RunConfig, package_version
from ragbeam.schemas.documents import STATUS_DUPLICATE, STATUS_UNSUPPORTED, STATUS_VANISHED
from ragbeam.schemas.layout import RUN_JSON, RUN_JSON_PARTIAL
from ragbeam.transforms import storage
from ragbeam.transforms.extract.counters import extraction_summary
from ragbeam.transforms.metrics import counter_totals, summed
from ragbeam.transforms.write.shards import WrittenTables
from ragbeam.transforms.write.stats import DROPPED_CHUNKS_COUNTER

OUTCOME_OK = "ok"
OUTCOME_ERROR_RATE = "error_rate_exceeded"
# The delete guard kept documents that vanished (``transforms/plan/guard.py``).
OUTCOME_DELETES_HELD = "deletes_held"


def _by_prefix(counts: Mapping[str, int], prefix: str) -> dict[str, int]:
    return {key[len(prefix):]: n for key, n in sorted(counts.items()) if key.startswith(prefix)}


def deletes_held(written: WrittenTables) -> bool:
    """The delete guard held documents that vanished: outcome ``deletes_held``, exit 4,
    and no vector-store writes (``graph.build_pipeline``)."""
    return written.counts.get("documents", {}).get(f"status:{STATUS_VANISHED}", 0) > 0


def summarize(config: RunConfig, written: WrittenTables, wall_seconds: float) -> dict[str, Any]:
    documents = written.counts.get("documents", {})
    status = _by_prefix(documents, "status:")
    carried = _by_prefix(documents, "carried:")
    errors = written.counts.get("errors", {})
    chunks = written.counts.get("chunks", {})
    ops = _by_prefix(written.counts.get("changes", {}), "op:")
    # Failures of this run: error and stale rows that were not carried over unretried.
    failed_now = sum(status.get(s, 0) - carried.get(s, 0) for s in ("error", "stale"))
    processed = status.get("ok", 0) + failed_now
    # The rate that decides exit 3 is over the corpus as this run leaves it (processed,
    # unchanged and kept failures alike), so the same state gives the same exit code
    # every night: a failure kept from last night counts as it did then.
    # An unsupported file (audio, a program) is not indexed and not failing, unless
    # --unsupported-as-errors asks.
    unsupported = status.get(STATUS_UNSUPPORTED, 0)
    counted_unsupported = unsupported if config.unsupported_as_errors else 0
    failing = status.get("error", 0) + status.get("stale", 0) + counted_unsupported
    indexed = failing + status.get("ok", 0) + status.get("unchanged", 0)
    error_rate = failing / indexed if indexed else 0.0
    exceeded = error_rate > config.max_error_rate
    vanished = status.get(STATUS_VANISHED, 0)

    summary: dict[str, Any] = {
        "outcome": (OUTCOME_DELETES_HELD if deletes_held(written) else
                    OUTCOME_ERROR_RATE if exceeded else OUTCOME_OK),
        # A deleted document's row is a tombstone: its file was not matched.
        "files_matched": sum(status.values()) - status.get("deleted", 0) - vanished,
        "documents_ok": status.get("ok", 0),
        "documents_error": status.get("error", 0),
        # Failed now or before, while their last good chunks are still served.
        "documents_stale": status.get("stale", 0),
        "documents_unchanged": status.get("unchanged", 0),
        "documents_deleted": status.get("deleted", 0),
        # Not matched now, but held with their last good chunks by the delete guard.
        "documents_vanished": vanished,
        "documents_duplicate": status.get(STATUS_DUPLICATE, 0),
        # Files ragbeam cannot index by design: no chunks, not failed.
        "documents_unsupported": unsupported,
        "unsupported_as_errors": config.unsupported_as_errors,
        "documents_processed": processed,
        "documents_failed": failed_now,
        "documents_kept_failed": carried.get("error", 0) + carried.get("stale", 0),
        # Failed the same way MAX_ATTEMPTS runs in a row: not retried any more
        # (transforms/plan/retries.py); some of the failing ones.
        "documents_gave_up": documents.get("gave_up", 0),
        # Ok (or carried) documents some of whose text is missing, by why
        # (metadata.incomplete: OcrTimeLimit, OcrUnavailable, TruncatedFile).
        "documents_incomplete": sum(_by_prefix(documents, "incomplete:").values()),
        "documents_incomplete_by_reason": _by_prefix(documents, "incomplete:"),
        # The documents the error rate is measured over, and those of them failing.
        "documents_indexed": indexed,
        "documents_failing": failing,
        "error_rate": round(error_rate, 6),
        "error_rate_exceeded": exceeded,
        "max_error_rate": config.max_error_rate,
        "delete_guard": config.delete_guard.record(),
        "input_root": config.match.id_root,
        "ids": dataclasses.asdict(config.ids),
        "chunks": chunks.get("rows", 0),
        "chunks_embedded": chunks.get("embedded", 0),
        # Chunks with nothing to search for (lone numbers, empty sheets, media tags),
        # not emitted: per document in its metadata chunk_dropped_unsearchable.
        "chunks_dropped_unsearchable": documents.get(DROPPED_CHUNKS_COUNTER, 0),
        "previous": config.previous,
        "changes_upsert": ops.get("upsert", 0),
        "changes_delete": ops.get("delete", 0),
        "errors_by_type": _by_prefix(errors, "type:"),
        "errors_by_class": _by_prefix(errors, "class:"),
        "files": {table: len(paths) for table, paths in sorted(written.files.items())},
        "config_hash": config.config_hash,
        # Each layer's key, for the next run to compare layer by layer (layers.py).
        "layers": config.layer_keys,
        "config": config.fingerprint_fields(),
        "effective_config": dict(config.settings),
        "versions": {
            "ragbeam": ragbeam.__version__,
            "apache-beam": package_version("apache-beam"),
            "iscc-tika": package_version("iscc-tika"),
            "pyarrow": package_version("pyarrow"),
            "tiktoken": package_version("tiktoken"),
            "model": (config.embedding.fingerprint()["model"]
                      if config.uses_embeddings else None),
        },
        # What made the vectors: the same record as the chunks schema's
        # ``ragbeam.embedding`` metadata (the launcher adds chunks_over_window).
        "embedding": config.embedding_record(),
        "sparse": config.sparse_record(),
        "wall_seconds": round(wall_seconds, 3),
    }
    if config.previous:  # what the delete guard's rate is measured against
        summary["previous_documents"] = live_documents(read_run_json(config.previous))
        # What was done with the carried chunks' vectors: kept, redone, dropped.
        summary["layer_work"] = config.layer_plan.record()
    return summary


def headline(summary: Mapping[str, Any], took: str) -> str:
    """The summary's first line. An incremental run counts its unchanged and moved
    documents as fine, beside those it processed: "52 files → 49 fine (2 ok, 47
    unchanged), 3 failing (…)", not "52 files → 2 ok, 5 error"."""
    files, chunks = summary["files_matched"], summary["chunks"]
    ok, error, stale = (summary["documents_ok"], summary["documents_error"],
                        summary["documents_stale"])
    unsupported = summary.get("documents_unsupported", 0)
    unsupported_part = f", {unsupported} unsupported" if unsupported else ""
    if not summary.get("previous"):
        return (f"ragbeam: {files} files → {ok} ok, {error} error, {stale} stale"
                f"{unsupported_part}; {chunks} chunks in {took}")
    unchanged = summary.get("documents_unchanged", 0)
    moved = (summary.get("identity") or {}).get("moved", 0)
    moved_part = f", {moved} of them moved" if moved else ""
    failing = error + stale
    detail = [f"{summary.get('documents_failed', 0)} in this run",
              f"{summary.get('documents_kept_failed', 0)} kept"]
    if summary.get("documents_gave_up"):
        detail.append(f"{summary['documents_gave_up']} gave up")
    extra = "".join(f", {summary[key]} {what}" for key, what in (
        ("documents_duplicate", "duplicates"), ("documents_vanished", "vanished"))
        if summary.get(key))
    return (f"ragbeam: {files} files → {ok + unchanged} fine ({ok} ok, {unchanged} "
            f"unchanged{moved_part}), {failing} failing ({', '.join(detail)})"
            f"{unsupported_part}{extra}; "
            f"{chunks} chunks in {took}")


def live_documents(summary: Mapping[str, Any]) -> int:
    """The documents a run left in its index, from its run.json: matched files and
    documents the delete guard held, less duplicates (they have no chunks)."""
    return (summary.get("files_matched", 0) + summary.get("documents_vanished", 0)
            - summary.get("documents_duplicate", 0))


def run_json_path(output: str) -> str:
    return storage.join(output, RUN_JSON)


def write_run_json(output: str, summary: Mapping[str, Any]) -> str:
    """Replace ``OUTPUT/run.json`` whole: written beside it, then renamed over it
    (atomic on a local file system; on an object store the new object appears
    whole), so a crash never leaves a truncated commit marker."""
    data = json.dumps(summary, indent=2, sort_keys=True).encode("utf-8")
    path = run_json_path(output)
    partial = storage.join(output, RUN_JSON_PARTIAL)
    storage.write_bytes(partial, data)
    storage.rename(partial, path)
    return path


def complete_run_json(output: str, launcher_facts: Callable[[Mapping[str, Any]],
                                                            Mapping[str, Any]]
                      ) -> dict[str, Any]:
    """The launcher's one update of the run.json the pipeline committed: the
    sections ``launcher_facts(committed)`` returns are added (a section present in
    both, ``embedding``, is merged key by key), and the file is replaced whole.
    Nothing to add, nothing written. Returns the run.json as it now is."""
    summary = read_run_json(output)
    facts = launcher_facts(summary)
    if not facts:
        return summary
    for key, value in facts.items():
        before = summary.get(key)
        summary[key] = ({**before, **value} if isinstance(before, Mapping)
                        and isinstance(value, Mapping) else value)
    write_run_json(output, summary)
    return summary


def read_run_json(output: str) -> dict[str, Any]:
    return json.loads(storage.read_bytes(run_json_path(output)).decode("utf-8"))


# --- Extraction coverage (issue 18): OCR and the PDF fallback --------------------------
# Beam counters of the extract stage (transforms/extract/dofn.py): work done in this run,
# so documents carried over by an incremental run are not counted again.
COVERAGE_COUNTERS = {"ocr_documents": "ocr_documents", "ocr_pages": "ocr_pages",
                     "ocr_incomplete_documents": "ocr_incomplete_documents",
                     "extract_pdf_fallbacks": "pdf_fallbacks"}


def coverage_summary(result: Any) -> dict[str, int]:
    """``{"ocr_documents", "ocr_pages", "ocr_incomplete_documents", "pdf_fallbacks"}``
    of a finished run ({} without
    metrics support)."""
    totals = counter_totals(result, "ragbeam")
    if totals is None:
        return {}
    return summed(totals, {("ragbeam", name): key for name, key in COVERAGE_COUNTERS.items()})


def metrics_summary(result: Any) -> dict[str, Any]:
    """What only the runner's metrics know, for run.json (empty on a runner without
    metrics): extraction counters, chunk-embedding counters and bytes read."""
    summary: dict[str, Any] = {"extraction": extraction_summary(result),
                               "extraction_coverage": coverage_summary(result)}
    totals = counter_totals(result)
    if totals is None:  # a runner without metrics support
        return summary
    # run.json section → {(counter namespace, name): key in that section}
    wanted = {
        "embeddings": {("ragbeam.incremental", "embeddings_reused"): "reused",
                       ("ragbeam.embed", "chunks_retried"): "retried",
                       ("ragbeam.embed", "chunks_failed"): "failed"},
        # What cleaning took out of the documents it processed (transforms/clean/dofn.py).
        "cleaning": {("ragbeam", "clean_residue_lines_removed"): "residue_lines_removed",
                     ("ragbeam", "clean_residue_chars_removed"): "residue_chars_removed",
                     ("ragbeam", "extract_embedded_left_out"): "embedded_resources_left_out",
                     # Page furniture: lines of the page template (``ragbeam viz`` lists
                     # them per document, documents.metadata.clean_furniture_lines).
                     ("ragbeam", "clean_furniture_lines_removed"): "furniture_lines_removed"},
        # What the run read: input bytes (Read) and, in an incremental run, what it
        # hashed to find out what changed and how many files the listing settled.
        "reads": {("ragbeam", "bytes_read"): "bytes_read",
                  ("ragbeam.incremental", "bytes_hashed"): "bytes_hashed",
                  ("ragbeam.incremental", "files_hashed"): "files_hashed",
                  ("ragbeam.incremental", "files_unchanged_by_listing"):
                      "files_unchanged_by_listing"},
        # Content identity (transforms/identity/content.py): duplicates indexed once,
        # documents whose chunks were taken over without re-processing, near-duplicates.
        "identity": {("ragbeam.incremental", "duplicates"): "duplicates",
                     ("ragbeam.incremental", "adopted"): "moved",
                     ("ragbeam.identity", "near_duplicates"): "near_duplicates"},
        # Documents Tika extracted (fine or not), and, in an incremental run whose
        # chunking changed, those chunked again from the previous run's text and spans
        # instead (transforms/plan/reuse_extraction.py).
        "extracted": {("ragbeam", "extract_ok"): "ok", ("ragbeam", "extract_failed"): "failed",
                      ("ragbeam.incremental", "documents_extraction_reused"): "reused"},
    }
    for section, names in wanted.items():
        summary[section] = summed(totals, names)
    return summary


def store_words(state: Mapping[str, Any]) -> str:
    """One vector store's sync as the summary and the morning report say it: its
    status, mode and chunks, why a failed one failed, and an alias switch (the name
    the store is searched by points at a new collection: ``sync.finish_sync``)."""
    words = (f"{state['sink']} ({state['collection']}): {state['status']}, {state['mode']} "
             f"sync, {state.get('points', '?')} chunks")
    if state.get("status") == "failed" and state.get("error"):
        words += f": {state['error']}"
    cutover = state.get("cutover")
    if (state.get("status") == "synced" and cutover and "window_s" in cutover
            and cutover.get("renamed")):
        # No aliases: the new table was renamed into the name's place (lancedb.py).
        words += (f"; {state['collection']!r} rebuilt beside as {cutover['to']}, then "
                  "renamed into its place (the old table dropped)")
    elif state.get("status") == "synced" and cutover and "window_s" in cutover:
        words += (f"; {state['collection']!r} now names {cutover['to']} "
                  f"({cutover['from']} dropped)")
    if state.get("multivector"):
        words += "; two vectors a chunk, scored by the closer one (--text-vector)"
    for note in state.get("notes") or ():
        words += f"; {note}"
    for warning in state.get("warnings") or ():
        words += f"; warning: {warning}"
    return words
