"""Content identity on the shared corpus: embedding calls saved by duplicate
detection, and the near-duplicate detector's false-positive rate.

    python benchmarks/identity.py [--corpus ../shared/corpus] [--extract-timeout S]

One real ``ragbeam run`` (default options) over a staging folder holding:

* every corpus document (``MANIFEST.csv``, without the fuzzed file that hangs Tika);
* ``copies/``: every one of them again, byte for byte (a shared drive's state):
  each must become a ``duplicate`` row; the embedding calls it saves are the
  chunks of its canonical copy (one model input per chunk);
* ``variants/``: for each text file (txt, md, csv, log, json, html), a
  **positive**, the same text from other bytes (CRLF line endings; an HTML
  comment), and a **negative**, the same file with one sentence added (a
  negative whose added sentence does not survive extraction has the same text in
  the index, and is still counted as a false positive: the files differ).

The near-duplicate rule (``identity.near_duplicate_groups``: equal text after case
folding and whitespace collapsing, at least 200 characters) was fixed before this
set existed and not tuned on it. Reported: pairs flagged, true positives, false
positives among every pair of documents with different bytes (the FP rate), and
recall over the positives; and the run's own counter beside the offline count.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import pathlib
import re
import shutil
import sys
import tempfile

HANG = "bad/fuzzed-hang.one"
TEXT_SUFFIXES = (".txt", ".md", ".csv", ".log", ".json")


def positive_variant(path: pathlib.Path) -> bytes | None:
    """The same text from other bytes, or None for a file with no text variant."""
    data = path.read_bytes()
    if path.suffix in TEXT_SUFFIXES:
        crlf = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        return crlf if crlf != data else data + b"\r\n"
    if path.suffix == ".html":
        return data.replace(b"<body", b"<!-- a comment Tika drops --><body", 1)
    return None


EDIT = b"One sentence added to this copy only, so its text differs."


def edited(path: pathlib.Path) -> bytes:
    """The file with one sentence added where its extracted text will have it: in
    HTML, a paragraph before the first one in the body (a closing tag may be in a
    script); elsewhere, at the end."""
    data = path.read_bytes()
    if path.suffix == ".html":
        first = re.compile(rb"<p[ >]").search(data, max(data.find(b"<body"), 0))
        if first is not None:
            at = first.start()
            return data[:at] + b"<p>" + EDIT + b"</p>" + data[at:]
    return data + b"\n" + EDIT + b"\n"


def stage(corpus: pathlib.Path, staging: pathlib.Path) -> tuple[list[str], list[tuple]]:
    """The staged files; and (original, positive variant) pairs, by staged path."""
    with open(corpus / "MANIFEST.csv", newline="", encoding="utf-8") as f:
        paths = [r["path"] for r in csv.DictReader(f) if r["path"] != HANG]
    positives = []
    for rel in paths:
        for folder in ("", "copies"):
            target = staging / folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(corpus / rel, target)
        variant = positive_variant(corpus / rel)
        if variant is not None:
            stem, suffix = pathlib.Path(rel).stem, pathlib.Path(rel).suffix
            positive = staging / "variants" / f"{stem}.same-text{suffix}"
            negative = staging / "variants" / f"{stem}.edited{suffix}"
            positive.parent.mkdir(parents=True, exist_ok=True)
            positive.write_bytes(variant)
            negative.write_bytes(edited(corpus / rel))
            positives.append((str(staging / rel), str(positive)))
    return paths, positives


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="../shared/corpus")
    parser.add_argument("--extract-timeout", default="60")
    args = parser.parse_args()
    import pyarrow.dataset as ds

    from ragbeam.pipeline.run import request_from_argv, run_pipeline
    from ragbeam.transforms.identity.content import near_duplicate_groups, text_fingerprint

    with tempfile.TemporaryDirectory() as tmp:
        staging, out = pathlib.Path(tmp) / "in", pathlib.Path(tmp) / "out"
        paths, positives = stage(pathlib.Path(args.corpus).resolve(), staging)
        summary = run_pipeline(request_from_argv(
            ["--input", str(staging), "--output", str(out),
             "--extract-timeout", args.extract_timeout])).summary
        docs = ds.dataset(str(out / "documents")).to_table().to_pylist()
    by_id = {d["doc_id"]: d for d in docs}
    duplicates = [d for d in docs if d["status"] == "duplicate"]
    meta = lambda d: dict(d["metadata"])  # noqa: E731
    saved = sum(by_id[meta(d)["duplicate_of"]]["chunk_count"] or 0 for d in duplicates)
    of_copies = [d for d in duplicates
                 if "/copies/" in d["source_uri"] + meta(d)["duplicate_of_uri"]]
    print(f"documents: {len(docs)} ({len(paths)} corpus files, their {len(paths)} byte copies, "
          f"{2 * len(positives)} variants)")
    print(f"exact duplicates: {len(duplicates)} duplicate rows, {len(of_copies)} of them a corpus "
          f"file and its copy (empty files are never duplicates), "
          f"{len(duplicates) - len(of_copies)} among the corpus's own files; embedding calls "
          f"saved: {saved} chunks not embedded again, {summary['chunks']} embedded "
          f"({saved / (summary['chunks'] + saved):.1%} of the chunks saved)")
    texts = [(text_fingerprint(d["text"]), d["source_uri"], d["content_hash"]) for d in docs
             if d["text"] and d["status"] in ("ok", "unchanged")]
    groups = near_duplicate_groups(t for t in texts if t[0] is not None)
    # A file and its byte copy are one document (one of them is a duplicate row):
    # a pair is judged by the files it stands for.
    original = lambda uri: uri.replace("/copies/", "/", 1)  # noqa: E731
    flagged = {frozenset((original(a), original(b))) for g in groups
               for (a, _), (b, _) in itertools.combinations(g, 2)}
    truth = {frozenset(p) for p in positives}
    distinct = [(original(u), h) for _, u, h in texts]
    negatives = sum(1 for (a, ha), (b, hb) in itertools.combinations(distinct, 2)
                    if ha != hb and frozenset((a, b)) not in truth)
    tp, fp = len(flagged & truth), len(flagged - truth)
    print(f"near-duplicates: {len(flagged)} pairs flagged; {tp} of {len(truth)} positives "
          f"found (recall {tp / len(truth):.1%}); {fp} false positives among {negatives} "
          f"negative pairs (FP rate {fp / negatives:.4%}); run counter: "
          f"{summary.get('identity', {}).get('near_duplicates')}")
    for pair in sorted(flagged - truth, key=sorted):
        print("  false positive:", " | ".join(sorted(pair)))
    for pair in sorted(truth - flagged, key=sorted):
        print("  missed:", " | ".join(pathlib.Path(p).name for p in sorted(pair)))
    json.dump({"duplicates": len(duplicates), "calls_saved": saved, "tp": tp, "fp": fp,
               "positives": len(truth), "negatives": negatives}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
