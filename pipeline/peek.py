"""A short look at a run's output: ``ragbeam peek DIR`` (one line per document and its
first chunks, then the run's totals)."""

from __future__ import annotations

import json
import os
import sys
import textwrap

from ragbeam.pipeline.runs import NotRuns, list_runs
from ragbeam.pipeline.summary import run_json_path
from ragbeam.transforms import storage
from ragbeam.transforms.plan.retries import gave_up
from ragbeam.transforms.write.read import read_table_columns


def check_run_folder(output: str) -> None:
    """``NotRuns`` (exit 2) unless ``output`` is a completed run: a line saying what it
    is instead (missing, a sync's state folder, an unfinished run)."""
    if storage.exists(run_json_path(output)):
        return
    if "://" not in output and not os.path.isdir(output):
        raise NotRuns("no such folder")
    runs = list_runs(output)
    if runs:
        raise NotRuns(f"is a sync's state folder of {len(runs)} runs, not a run: "
                      f"ragbeam runs {output} lists them, ragbeam peek {runs[-1].path} "
                      "shows the newest")
    raise NotRuns("is not a completed run (no run.json)")


def display_names(uris: list[str]) -> dict[str, str]:
    """Each URI below the folder all of them share: ``manuals/LICENSE`` and
    ``tools/LICENSE``, not two ``LICENSE`` lines; one file alone is its name."""
    parts = [uri.split("/") for uri in uris]
    shared = 0
    if parts:
        shortest = min(len(p) for p in parts) - 1  # the file name itself is never shared
        while shared < shortest and len({p[shared] for p in parts}) == 1:
            shared += 1
    return {uri: "/".join(p[shared:]) for uri, p in zip(uris, parts, strict=True)}


def chunk_line(chunk: dict) -> str:
    """A chunk as peek shows it: where it is (its heading, unless it has none or its
    text opens with that heading) and the start of its text."""
    text = " ".join(chunk["text"].split())
    heading = chunk["heading_path"][-1].lstrip("#").strip() if chunk["heading_path"] else ""
    under = ""
    if heading and not text.lstrip("#").strip().startswith(heading):
        under = f", under {' > '.join(chunk['heading_path'])}"
    page = f", page {chunk['page_start']}" if chunk["page_start"] else ""
    return (f"    [{chunk['chunk_index']}] {chunk['token_count']} tokens{page}{under}: "
            f"{textwrap.shorten(text, 110)}")


def peek(output: str, per_document: int = 1) -> None:
    check_run_folder(output)
    docs = read_table_columns(output, "documents",
                              ["doc_id", "source_uri", "status", "strategy", "chunk_count",
                               "error", "metadata"])
    chunks = read_table_columns(output, "chunks",
                                ["doc_id", "chunk_index", "text", "token_count", "page_start",
                                 "heading_path"])
    first_chunks: dict[str, list[dict]] = {}
    for row in sorted(chunks.to_pylist() if chunks else [],
                      key=lambda r: (r["doc_id"], r["chunk_index"])):
        first_chunks.setdefault(row["doc_id"], [])
        if len(first_chunks[row["doc_id"]]) < per_document:
            first_chunks[row["doc_id"]].append(row)
    rows = sorted(docs.to_pylist() if docs else [], key=lambda r: r["source_uri"])
    names = display_names([r["source_uri"] for r in rows])
    for doc in rows:
        name = names[doc["source_uri"]]
        if doc["status"] == "deleted":  # incremental runs: no longer matched, no chunks
            print(f"- {name}: deleted")
            continue
        if doc["status"] == "unsupported":  # by design, not a failure
            print(f"- {name}: unsupported: {doc['error']}")
            continue
        if doc["status"] not in ("ok", "unchanged", "stale"):
            gave = ", gave up (not retried)" if _gave_up(doc) else ""
            print(f"✗ {name}: {doc['status']}{gave}: {doc['error']}")
            continue
        carried = f", {doc['status']}" if doc["status"] != "ok" else ""
        print(f"✓ {name}: {doc['chunk_count']} chunks ({doc['strategy']}{carried})")
        if doc["status"] == "stale":
            gave = " (gave up: not retried)" if _gave_up(doc) else ""
            print(f"    last good chunks kept; failed now{gave}: {doc['error']}")
        for c in first_chunks.get(doc["doc_id"], []):
            print(chunk_line(c))
    run = json.loads(storage.read_bytes(storage.join(output, "run.json")).decode("utf-8"))
    gave_up = f", {run['documents_gave_up']} gave up" if run.get("documents_gave_up") else ""
    print(f"run.json: {run['documents_ok']} ok, {run['documents_error']} error, "
          f"{run.get('documents_stale', 0)} stale{gave_up}, "
          f"{run.get('documents_unsupported', 0)} unsupported, {run['chunks']} chunks, "
          f"config {run['config_hash'][:12]}")


def _gave_up(doc: dict) -> bool:
    return gave_up(dict(doc.get("metadata") or []))


if __name__ == "__main__":
    peek(sys.argv[1])
