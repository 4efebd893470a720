"""Label-free chunk quality figures (pure), shared by tests and benchmarks.

*Mid-sentence break rate*: the share of chunks, not counting each document's
last, whose text ends neither at a sentence end nor at a block end.

* Sentence end: the text, trailing whitespace aside, ends with one of
  ``。！？!?.;；…``, possibly followed by closing quotes or brackets and citation marks
  (``[12]``).
* Block end: the chunk ends where a block of the cleaned text ends — at the
  end of a span of the document's span map, or right before a line break.
  Cleaning puts line breaks only between blocks (paragraphs, list items,
  headings, table rows) and between the source's own lines, so a chunk that
  ends at one has not cut a sentence the document's structure holds together.

A break is *forced* when it falls inside a stretch of text with no sentence
or block end at all that is longer than the size cap (a hex dump, a navigation
box of names, a 600-character sentence): any chunker that honours the cap
must break such a stretch at least ``ceil(length / cap) − 1`` times. The
*avoidable* rate leaves forced breaks out; both are reported.

Parent chunks (parent-child) are left out: the children are what gets indexed.
"""

from __future__ import annotations

import bisect
import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from ragbeam.transforms.types import Chunk, ChunkLevel, Document

_SENTENCE_MARK = r"[。！？!?.;；…][”’\"'」』）)】》\]]*(?:\[[^\]\s]{1,12}\])*"
SENTENCE_END = re.compile(_SENTENCE_MARK + r"\s*$")
_BOUNDARY = re.compile(_SENTENCE_MARK + r"|[^\S\n]*(?=\n)")


def ends_at_boundary(doc: Document, chunk_end: int, chunk_text: str,
                     span_ends: list[int] | None = None) -> bool:
    """Whether a chunk ending at ``chunk_end`` ends at a sentence or block end."""
    if SENTENCE_END.search(chunk_text):
        return True
    rest = doc.text[chunk_end:chunk_end + 64].lstrip(" \t")
    if not rest or rest.startswith("\n"):
        return True
    ends = span_ends if span_ends is not None else sorted(s.end for s in doc.spans)
    i = bisect.bisect_left(ends, chunk_end)
    return i < len(ends) and ends[i] == chunk_end


def boundary_offsets(doc: Document) -> list[int]:
    """Every offset where a chunk may end without breaking a sentence, sorted."""
    ends = {m.end() for m in _BOUNDARY.finditer(doc.text)}
    ends.update(m.start() for m in re.finditer(r"[^\S\n]*\n", doc.text))
    ends.update(s.end for s in doc.spans)
    ends.update((0, len(doc.text)))
    return sorted(ends)


def is_forced_break(boundaries: list[int], chunk_end: int, cap: int) -> bool:
    """Whether the boundary-free stretch around ``chunk_end`` is longer than ``cap``."""
    i = bisect.bisect_left(boundaries, chunk_end)
    after = boundaries[min(i, len(boundaries) - 1)]
    before = boundaries[max(i - 1, 0)]
    return after - before > cap


def indexed_chunks(chunks: Iterable[Chunk]) -> list[Chunk]:
    """The chunks a retriever searches: everything but parent-child parents."""
    return [c for c in chunks if c.level is not ChunkLevel.PARENT]


@dataclass(frozen=True)
class QualityFigures:
    chunks: int
    breaks_counted: int  # chunks that could break a sentence (not a document's last)
    mid_sentence_breaks: int
    forced_breaks: int  # breaks no chunker within the cap could avoid
    mean_chars: float
    median_chars: float

    @property
    def mid_sentence_break_rate(self) -> float:
        return self.mid_sentence_breaks / self.breaks_counted if self.breaks_counted else 0.0

    @property
    def avoidable_break_rate(self) -> float:
        avoidable = self.mid_sentence_breaks - self.forced_breaks
        return avoidable / self.breaks_counted if self.breaks_counted else 0.0


def quality_figures(results: Iterable[tuple[Document, list[Chunk]]], cap_chars: int
                    ) -> QualityFigures:
    """Figures over many documents' chunks (each list in document order);
    ``cap_chars`` is the size cap in characters, to tell forced breaks."""
    sizes: list[int] = []
    counted = breaks = forced = 0
    for doc, chunks in results:
        indexed = indexed_chunks(chunks)
        sizes.extend(len(c.text) for c in indexed)
        span_ends = sorted(s.end for s in doc.spans)
        boundaries: list[int] | None = None
        for chunk in indexed[:-1]:
            counted += 1
            if ends_at_boundary(doc, chunk.end, chunk.text, span_ends):
                continue
            breaks += 1
            boundaries = boundaries or boundary_offsets(doc)
            forced += is_forced_break(boundaries, chunk.end, cap_chars)
    return QualityFigures(
        chunks=len(sizes),
        breaks_counted=counted,
        mid_sentence_breaks=breaks,
        forced_breaks=forced,
        mean_chars=statistics.fmean(sizes) if sizes else 0.0,
        median_chars=statistics.median(sizes) if sizes else 0.0,
    )
