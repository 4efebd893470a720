"""Chunks with nothing a person would search for: not emitted, counted (pure).

A chunk is dropped, in this order, when:

1. its document is audio or video (``audio/*``, ``video/*``): Tika reads no
   speech, so the text is the file's tags (ID3 title, artist, track numbers),
   which stay in the documents row's metadata;
2. it has no letter in any script: lone numbers, a CSV fragment (``| 139``), a
   row of page or cell numbers (``11 12 13``), separators; unless it is whole
   table rows (every line two or more cells: ``2016 | 91,154 | 20,539``), whose
   header row the chunk carries in its context;
3. it is headings only, with no body, and each heading is an automatic label, a
   word and a number (``Sheet2``, ``Tabelle1``, ``Slide 3``): the names of empty
   sheets (``Sheet2 | | Sheet3``);
4. it reads as binary data or encoding garbage (``transforms/garbage.py``, the
   measured score a whole document is refused by, on the chunk alone): a page whose
   font maps its glyphs to the wrong letters, a binary blob inside a text file.

Everything else stays, however short: a short real sentence, a heading with
its body, a number in a table with its header (the chunk carries the header
row), a formula (``X2 + Y2 = Z``). A chunk that another chunk names as its parent
(parent-child) is never dropped. The count is the chunker's stat
``dropped_unsearchable`` (documents metadata ``chunk_dropped_unsearchable``, and
``chunks_dropped_unsearchable`` in run.json); a document whose every chunk is
dropped keeps its documents row, status ``ok`` with 0 chunks.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ragbeam.transforms.chunk.base import ChunkingResult
from ragbeam.transforms.garbage import is_garbage
from ragbeam.transforms.types import BlockKind, Chunk, Document
from ragbeam.transforms.write.rows import DROPPED_KEY

_MEDIA_PREFIXES = ("audio/", "video/")
_LETTER = re.compile(r"[^\W\d_]")
_LABEL = re.compile(r"[^\W\d_]+ ?\d{1,3}")
_VALUE = re.compile(r"\w")
_CELL = " | "  # how table rows join their cells (transforms/extract)


def _heading_ranges(doc: Document) -> list[tuple[int, int]]:
    return [(s.start, s.end) for s in doc.spans if s.kind is BlockKind.HEADING]


def _labels_only(chunk: Chunk, headings: list[tuple[int, int]]) -> bool:
    """Every non-blank line of the chunk is a heading that is an automatic label."""
    offset = chunk.start
    seen = False
    for line in chunk.text.split("\n"):
        text = line.strip()
        if text:
            if not _LABEL.fullmatch(text):  # cheap, and false for nearly every line
                return False
            start = offset + line.index(text)
            if not any(s <= start and start + len(text) <= e for s, e in headings):
                return False
            seen = True
        offset += len(line) + 1
    return seen


def _table_rows(text: str) -> bool:
    """Every non-blank line is a row of two or more cells with a value (not ``---``)."""
    lines = [line for line in text.split("\n") if line.strip()]
    return bool(lines) and all(
        sum(1 for cell in line.split(_CELL) if _VALUE.search(cell)) >= 2 for line in lines)


def is_searchable(doc: Document, chunk: Chunk, headings: list[tuple[int, int]]) -> bool:
    if doc.media_type.startswith(_MEDIA_PREFIXES):
        return False
    if not _LETTER.search(chunk.text):
        return _table_rows(chunk.text)
    return not (headings and _labels_only(chunk, headings)) and not is_garbage(chunk.text)


def drop_unsearchable(doc: Document, result: ChunkingResult) -> ChunkingResult:
    """``result`` without its unsearchable chunks, their count in its stats."""
    headings = _heading_ranges(doc)
    parents = {c.parent for c in result.chunks if c.parent is not None}
    keep = [i in parents or is_searchable(doc, chunk, headings)
            for i, chunk in enumerate(result.chunks)]
    dropped = keep.count(False)
    stats = {**result.stats, DROPPED_KEY: dropped}
    if not dropped:
        return replace(result, stats=stats)
    new_index: dict[int, int] = {}
    for i, kept in enumerate(keep):
        if kept:
            new_index[i] = len(new_index)
    chunks = [chunk if chunk.parent is None else replace(chunk, parent=new_index[chunk.parent])
              for chunk, kept in zip(result.chunks, keep, strict=True) if kept]
    return replace(result, chunks=chunks, stats=stats)
