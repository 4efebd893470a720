"""Paragraphs whole, words apart, no tiny chunks (issue 41), counted in run outputs and
scored against hand-marked truth; several outputs side by side.

    python benchmarks/paragraph_integrity.py BEFORE_DIR AFTER_DIR [--list]
        [--truth benchmarks/data/paragraph_truth.json]

Each directory is the output folder of a ``ragbeam run`` (read back from Parquet); run
the code before and after a change (``PYTHONPATH``) over the same input. Per output:

* **tiny chunks**: indexed chunks under ``TINY_TOKENS`` tokens, and what bounds them in
  the document's text: the whole document; a paragraph of its own (a paragraph break,
  or the text's start or end, on both sides: the document's unit is that small); a line
  break on one side; inside a paragraph (the splitter's doing);
* **line-boundary breaks**: chunks that end at a single line break inside a sentence (a
  word or a comma, then a lowercase word);
* **broken sentences at paragraph breaks**: paragraph breaks in the cleaned text after
  a lowercase word or a comma and before a word, outside headings and tables (a
  paragraph cut at a page or column break, mostly; lists and labels count too, so
  compare runs, not absolute figures);
* **line breaks inside sentences** left in the cleaned text (a word or a comma, then a
  lowercase word).

With ``--truth``, the PDFs of each truth set are looked up by file name in the outputs
(``source_uri``) and scored: ``breaks``, each a place where a line ends a page or a
column (``tail`` and ``head`` as printed), marked ``join`` (one paragraph runs on) or
``break``; a break is counted as joined when the cleaned text has ``tail`` and ``head``
with one space between; ``words``, phrases that must appear with their spaces
(``"Transport layer and network layer"``) and, under ``not``, spacings that must not
(a word split in two).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys
from collections import Counter, defaultdict

TINY_TOKENS = 20
BROKEN_PARAGRAPH = re.compile(r"[a-z,]\n\n(?=[A-Za-z(“\"])")
LINE_IN_SENTENCE = re.compile(r"[A-Za-z,]\n[a-z]")
_SPACE = re.compile(r"\s+")
_INLINE_SPACE = re.compile(r"[^\S\n]+")


def read(output: pathlib.Path, table: str, columns: list[str]) -> list[dict]:
    import pyarrow.parquet as pq

    return pq.read_table(output / table, columns=columns).to_pylist()


def _bound(between: str) -> str:
    if "\n\n" in between:
        return "paragraph"
    return "line" if "\n" in between else "space"


def measure(output: pathlib.Path, show: bool) -> dict[str, object]:
    documents = {d["doc_id"]: d for d in read(output, "documents",
                                              ["doc_id", "status", "text", "spans",
                                               "source_uri"])
                 if d["status"] == "ok"}
    by_doc: dict[str, list[dict]] = defaultdict(list)
    for chunk in read(output, "chunks", ["doc_id", "level", "char_start", "char_end",
                                         "token_count", "text"]):
        if chunk["level"] != "parent" and chunk["doc_id"] in documents:
            by_doc[chunk["doc_id"]].append(chunk)
    tiny: Counter[str] = Counter()
    chunks = line_ends = 0
    for doc_id, doc_chunks in by_doc.items():
        text = documents[doc_id]["text"] or ""
        doc_chunks.sort(key=lambda c: c["char_start"])
        chunks += len(doc_chunks)
        for k, chunk in enumerate(doc_chunks):
            after = (text[chunk["char_end"]:doc_chunks[k + 1]["char_start"]]
                     if k + 1 < len(doc_chunks) else "\n\n")
            if (k + 1 < len(doc_chunks) and _bound(after) == "line"
                    and re.search(r"[A-Za-z,]$", chunk["text"])
                    and doc_chunks[k + 1]["text"][:1].islower()):
                line_ends += 1
            if chunk["token_count"] >= TINY_TOKENS:
                continue
            before = text[doc_chunks[k - 1]["char_end"]:chunk["char_start"]] if k else "\n\n"
            if len(doc_chunks) == 1:
                cause = "whole document"
            elif "paragraph" == _bound(before) == _bound(after):
                cause = "paragraph alone"
            elif "line" in (_bound(before), _bound(after)):
                cause = "line break"
            else:
                cause = "inside a paragraph"
            tiny[cause] += 1
            if show:
                uri = documents[doc_id]["source_uri"].rsplit("/", 1)[-1]
                print(f"    tiny ({cause}): {uri} {chunk['text'][:70]!r}")
    broken = inside = 0
    for doc in documents.values():
        text = doc["text"] or ""
        special = [(s["start"], s["end"]) for s in doc["spans"] or ()
                   if s["kind"] in ("heading", "table", "code")]
        for match in BROKEN_PARAGRAPH.finditer(text):
            if not any(a <= match.start() + 1 <= b or a <= match.end() <= b
                       for a, b in special):
                broken += 1
                if show:
                    uri = doc["source_uri"].rsplit("/", 1)[-1]
                    print(f"    broken: {uri} "
                          f"{text[max(0, match.start() - 40):match.end() + 30]!r}")
        inside += len(LINE_IN_SENTENCE.findall(text))
    total_tiny = sum(tiny.values())
    return {
        "documents": len(documents),
        "chunks": chunks,
        f"tiny chunks (<{TINY_TOKENS} tokens)": total_tiny,
        "tiny share": round(total_tiny / chunks, 4) if chunks else 0.0,
        "tiny by cause": dict(tiny.most_common()),
        "chunks ending at a line inside a sentence": line_ends,
        "paragraph breaks inside sentences (proxy)": broken,
        "line breaks inside sentences": inside,
    }


def _normal(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def score_truth(output: pathlib.Path, truth: dict) -> dict[str, object]:
    """Truth entries scored against one output's cleaned texts (by file name)."""
    texts = {d["source_uri"].rsplit("/", 1)[-1]: d["text"] or ""
             for d in read(output, "documents", ["source_uri", "status", "text"])
             if d["status"] == "ok"}
    result: dict[str, object] = {}
    for name, entries in truth.items():
        if name.startswith("_"):
            continue
        right = total = missing = 0
        wrong: list[str] = []
        for entry in entries:
            text = texts.get(entry["file"])
            if text is None:
                missing += 1
                continue
            flat = _INLINE_SPACE.sub(" ", text)  # line and paragraph breaks kept
            for brk in entry.get("breaks", ()):
                total += 1
                joined = f"{_normal(brk['tail'])} {_normal(brk['head'])}" in flat
                if joined == (brk["expect"] == "join"):
                    right += 1
                else:
                    wrong.append(f"{entry['file']}: {brk['tail'][-30:]!r} | "
                                 f"{brk['head'][:30]!r} ({brk['expect']})")
            for phrase in entry.get("words", ()):
                total += 1
                if _normal(phrase) in _normal(text):
                    right += 1
                else:
                    wrong.append(f"{entry['file']}: missing {phrase!r}")
            for phrase in entry.get("not", ()):
                total += 1
                if _normal(phrase) not in _normal(text):
                    right += 1
                else:
                    wrong.append(f"{entry['file']}: found {phrase!r}")
        result[name] = {"right": right, "of": total, "files missing": missing,
                        "wrong": wrong}
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("outputs", type=pathlib.Path, nargs="+")
    parser.add_argument("--list", action="store_true",
                        help="print tiny chunks and broken paragraphs")
    parser.add_argument("--truth", type=pathlib.Path, help="a truth file to score")
    args = parser.parse_args(argv)
    truth = json.loads(args.truth.read_text(encoding="utf-8")) if args.truth else None
    for output in args.outputs:
        print(f"{output}:")
        for key, value in measure(output, args.list).items():
            print(f"  {key:44s} {value}")
        if truth is not None:
            for name, score in score_truth(output, truth).items():
                print(f"  truth {name}: {score['right']}/{score['of']} right"
                      + (f", {score['files missing']} files missing"
                         if score["files missing"] else ""))
                for line in score["wrong"]:
                    print(f"      wrong: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
