"""The common chunk file every pipeline writes, and the scorer's view of a chunk.

A chunks file is JSONL, one chunk a line: ``doc`` (the PDF's path relative to
the data folder, e.g. ``financebench/3M_2018_10K.pdf``), ``text`` (what the
pipeline hands a user's retriever and model) and, where the pipeline makes one,
``context`` (ragbeam's contextual header: title and heading path). ``page`` is
kept when a pipeline reports one, for reading; the scorer never uses it.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class BenchChunk:
    doc: str
    text: str
    context: str = ""
    page: int | None = None
    heading_path: tuple[str, ...] = ()  # ragbeam's: what its indexed text is made from


def write_chunks(path: pathlib.Path, chunks: Iterable[BenchChunk | Mapping]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    tmp = path.with_suffix(".part")
    with open(tmp, "w", encoding="utf-8") as f:
        for c in chunks:
            obj = c if isinstance(c, Mapping) else {
                "doc": c.doc, "text": c.text, "context": c.context, "page": c.page}
            f.write(json.dumps(obj, ensure_ascii=False) + "\n")
            n += 1
    tmp.replace(path)
    return n


def read_chunks(path: pathlib.Path) -> list[BenchChunk]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                o = json.loads(line)
                if o["text"].strip():
                    out.append(BenchChunk(o["doc"], o["text"], o.get("context") or "",
                                          o.get("page")))
    return out
