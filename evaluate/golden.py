"""Golden output: a canonical fingerprint of what a default run makes of the shared
corpus, checked in, so that a change that alters output by accident fails a test.

Per document (by ``doc_id``, which is relative to the input root, so the same on any
mount): its path below the corpus folder, its status, the sha256 of its cleaned
text, its chunk count, and the sha256 of its ordered chunks (``chunk_id``,
``text``, ``char_start``, ``char_end``, ``page_start``, ``page_end``, in
``chunk_index`` order). The fingerprint names no absolute path, time or version of
the machine that made it.

When a change is MEANT to change output, regenerate it and commit the new file with
the change (the diff shows which documents moved)::

    python -m ragbeam.evaluate.golden --input ../shared/corpus --write tests/data/golden/corpus.json

``--compare A B`` compares two outputs row by row instead (chunks and documents,
every column; ``source_uri`` below the corpus folder, ``source_modified``, the
listing's file time, ignored), e.g. a run of a refactored tree against one of the
code before it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import posixpath
import sys
import tempfile
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ragbeam.pipeline.run import request_from_argv, run_pipeline
from ragbeam.transforms.write.read import table_files

# The run the fingerprint is of: ``ragbeam run --input CORPUS`` with the defaults.
# A generous time limit: under load a document must not time out into an error row
# (time limits change no text, only whether a document makes it in time).
GOLDEN_EXTRACT_TIMEOUT = "300"
CHUNK_FIELDS = ("chunk_id", "text", "char_start", "char_end", "page_start", "page_end")
# Listing-time values, which differ between two runs over the same files copied or
# touched: left out of comparisons.
LISTING_METADATA = {"source_modified"}


def _sha256(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False, sort_keys=True)
                          .encode("utf-8")).hexdigest()


def _rows(output: str, table: str) -> list[dict[str, Any]]:
    """Every row of one table of a finished run (any Beam filesystem)."""
    from apache_beam.io.filesystems import FileSystems


    rows: list[dict[str, Any]] = []
    for path in table_files(output, table):
        with FileSystems.open(path) as f:
            rows.extend(pq.read_table(pa.BufferReader(f.read())).to_pylist())
    return rows


def fingerprint(output: str) -> dict[str, dict[str, Any]]:
    """``{doc_id: {path, status, text_sha256, chunks, chunks_sha256}}`` of a finished run
    (``path``: below the inputs' common folder, for the reader)."""
    chunks_by_doc: dict[str, list[dict[str, Any]]] = {}
    for chunk in _rows(output, "chunks"):
        chunks_by_doc.setdefault(chunk["doc_id"], []).append(chunk)
    rows = sorted(_rows(output, "documents"), key=lambda d: d["doc_id"])
    root = posixpath.commonpath([d["source_uri"] for d in rows]) if len(rows) > 1 else ""
    documents = {}
    for doc in rows:
        chunks = sorted(chunks_by_doc.get(doc["doc_id"], ()), key=lambda c: c["chunk_index"])
        documents[doc["doc_id"]] = {
            "path": posixpath.relpath(doc["source_uri"], root) if root else doc["source_uri"],
            "status": doc["status"],
            "text_sha256": _sha256(doc["text"]),
            "chunks": len(chunks),
            "chunks_sha256": _sha256([[c[f] for f in CHUNK_FIELDS] for c in chunks]),
        }
    return documents


def run_default(corpus: str, output: str) -> None:
    """``ragbeam run --input CORPUS --output OUTPUT`` (the run library), defaults
    otherwise."""
    run_pipeline(request_from_argv(["--input", corpus, "--output", output,
                                    "--extract-timeout", GOLDEN_EXTRACT_TIMEOUT]))


def fingerprint_differences(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """One line per document whose fingerprint differs (or that one side lacks)."""
    lines = []
    for doc_id in sorted(expected.keys() | actual.keys()):
        old, new = expected.get(doc_id), actual.get(doc_id)
        if old != new:
            changed = ([k for k in old if old[k] != new.get(k)] if old and new
                       else ["only in " + ("expected" if old else "actual")])
            lines.append(f"{doc_id}: {', '.join(changed)}")
    return lines


def _comparable(row: dict[str, Any], root: str) -> dict[str, Any]:
    metadata = row.get("metadata")
    if metadata is not None:
        row = {**row, "metadata": [(k, v) for k, v in metadata if k not in LISTING_METADATA]}
    if root and row.get("source_uri"):
        row = {**row, "source_uri": posixpath.relpath(row["source_uri"], root)}
    return row


def _source_root(rows: list[dict[str, Any]]) -> str:
    """The folder every row's source lies in (two runs over one corpus mounted in two
    places differ only there)."""
    uris = {r["source_uri"] for r in rows if r.get("source_uri")}
    return posixpath.commonpath(sorted(uris)) if len(uris) > 1 else ""


def compare_outputs(a: str, b: str, tables: Sequence[str] = ("chunks", "documents")
                    ) -> dict[str, list[str]]:
    """Row by row, every column: ``{table: [difference, …]}`` (empty lists: identical).
    ``source_uri`` is compared below the folder of each run's documents (the corpus
    may be mounted elsewhere), listing times (``LISTING_METADATA``) not at all."""
    keys = {"chunks": "chunk_id", "documents": "doc_id"}
    roots = {a: _source_root(_rows(a, "documents")), b: _source_root(_rows(b, "documents"))}
    found: dict[str, list[str]] = {}
    for table in tables:
        rows_a = {r[keys[table]]: _comparable(r, roots[a]) for r in _rows(a, table)}
        rows_b = {r[keys[table]]: _comparable(r, roots[b]) for r in _rows(b, table)}
        problems = [f"{key}: only in {'first' if key in rows_a else 'second'}"
                    for key in sorted(rows_a.keys() ^ rows_b.keys())]
        for key in sorted(rows_a.keys() & rows_b.keys()):
            columns = [c for c in rows_a[key] if rows_a[key][c] != rows_b[key].get(c)]
            if columns:
                problems.append(f"{key}: {', '.join(columns)}")
        found[table] = problems
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--input", metavar="CORPUS", help="run the default pipeline on it")
    source.add_argument("--output", metavar="DIR", help="a finished run to fingerprint")
    source.add_argument("--compare", nargs=2, metavar=("A", "B"),
                        help="compare two finished runs row by row")
    parser.add_argument("--write", metavar="FILE", help="write the fingerprint here")
    parser.add_argument("--check", metavar="FILE", help="compare the fingerprint with this one")
    args = parser.parse_args(argv)
    if args.compare:
        differences = compare_outputs(*args.compare)
        for table, problems in differences.items():
            print(f"{table}: {'identical' if not problems else f'{len(problems)} differ'}")
            for line in problems[:20]:
                print("  " + line)
        return 1 if any(differences.values()) else 0
    with tempfile.TemporaryDirectory(prefix="ragbeam-golden-") as tmp:
        output = args.output
        if args.input:
            output = f"{tmp}/out"
            run_default(args.input, output)
        documents = fingerprint(output)
    text = json.dumps(documents, indent=1, sort_keys=True) + "\n"
    if args.write:
        with open(args.write, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"{len(documents)} documents → {args.write}")
    if args.check:
        with open(args.check, encoding="utf-8") as f:
            differences = fingerprint_differences(json.load(f), documents)
        for line in differences:
            print(line)
        print(f"{len(differences)} of {len(documents)} documents differ from {args.check}")
        return 1 if differences else 0
    if not args.write:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
