"""A short look at a run's output: ``ragbeam peek DIR`` (one line per document and its
first chunks, then the run's totals)."""

from __future__ import annotations

import json
import sys
import textwrap

from apache_beam.io.filesystems import FileSystems

from ragbeam.transforms.write.read import read_table_columns


def peek(output: str, per_document: int = 1) -> None:
    docs = read_table_columns(output, "documents",
                              ["doc_id", "source_uri", "status", "strategy", "chunk_count",
                               "error"])
    chunks = read_table_columns(output, "chunks",
                                ["doc_id", "chunk_index", "text", "token_count", "page_start",
                                 "heading_path"])
    first_chunks: dict[str, list[dict]] = {}
    for row in sorted(chunks.to_pylist() if chunks else [],
                      key=lambda r: (r["doc_id"], r["chunk_index"])):
        first_chunks.setdefault(row["doc_id"], [])
        if len(first_chunks[row["doc_id"]]) < per_document:
            first_chunks[row["doc_id"]].append(row)
    for doc in sorted(docs.to_pylist(), key=lambda r: r["source_uri"]):
        name = doc["source_uri"].rsplit("/", 1)[-1]
        if doc["status"] == "deleted":  # incremental runs: no longer matched, no chunks
            print(f"- {name}: deleted")
            continue
        if doc["status"] not in ("ok", "unchanged", "stale"):
            print(f"✗ {name}: {doc['status']}: {doc['error']}")
            continue
        carried = f", {doc['status']}" if doc["status"] != "ok" else ""
        print(f"✓ {name}: {doc['chunk_count']} chunks ({doc['strategy']}{carried})")
        if doc["status"] == "stale":
            print(f"    last good chunks kept; failed now: {doc['error']}")
        for c in first_chunks.get(doc["doc_id"], []):
            where = " > ".join(c["heading_path"]) or "-"
            page = f", page {c['page_start']}" if c["page_start"] else ""
            text = textwrap.shorten(" ".join(c["text"].split()), 110)
            print(f"    [{c['chunk_index']}] {c['token_count']} tokens{page}, "
                  f"under {where}: {text}")
    with FileSystems.open(FileSystems.join(output, "run.json")) as f:
        run = json.load(f)
    print(f"run.json: {run['documents_ok']} ok, {run['documents_error']} error, "
          f"{run.get('documents_stale', 0)} stale, {run['chunks']} chunks, "
          f"config {run['config_hash'][:12]}")


if __name__ == "__main__":
    peek(sys.argv[1])
