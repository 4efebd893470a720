"""The mid-sentence break metric (pure): one definition for benchmarks, tests and eval.

A chunk *breaks a sentence* when its end, trailing whitespace aside, is not
where a sentence ends according to the project's one sentence segmenter
(``sentences.py``: sentencex's rules, CJK full stops, blank lines). The end
of the document counts as a sentence end. Nothing else does: not a line
break, not ``;`` — a chunker that cuts at a line break in the middle of a
hard-wrapped sentence or a list without full stops is charged for it, even
when those are its own separators. Each document's last chunk is not
counted (it cannot break anything).

A break is *forced* when it falls inside a stretch of text with no sentence
end at all that is longer than the size cap (a hex dump, a navigation box of
names, a 600-character sentence): any chunker that honours the cap must break
such a stretch at least ``ceil(length / cap) − 1`` times. The *avoidable*
rate leaves forced breaks out; both are reported.

A break between two rows of a table (``BlockKind.TABLE`` spans, rows as
``transforms/chunk/table.py`` reads them: ``table_row_ends``) breaks no
sentence: a row is a record, not a sentence, and the table chunking every
strategy applies cuts a table between rows only, as it should (a cut at a
``？`` inside a row's cell would separate the row's cells from one another
and from their header). A row end counts as a sentence end here, for both
rates (a stretch without a sentence or row end longer than the cap is what
forces a break). Run data read back for ``ragbeam eval`` carries no spans,
so there every row end still counts as a break.

Parent chunks (parent-child) are left out: the children are what gets indexed.
``benchmarks/chunking_quality.py``, the tests and ``ragbeam eval``
(``evaluate/metrics.py``) all call ``count_breaks``.
"""

from __future__ import annotations

import bisect
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ragbeam.transforms.chunk.base import trim_span
from ragbeam.transforms.chunk.sentences import sentence_ends
from ragbeam.transforms.chunk.table import record_starts, table_regions
from ragbeam.transforms.types import Chunk, ChunkLevel, Document


@dataclass(frozen=True)
class BreakCount:
    counted: int  # chunks that could break a sentence (not a document's last)
    mid_sentence: int
    forced: int  # breaks no chunker within the cap could avoid

    def __add__(self, other: BreakCount) -> BreakCount:
        return BreakCount(self.counted + other.counted, self.mid_sentence + other.mid_sentence,
                          self.forced + other.forced)


NO_BREAKS = BreakCount(0, 0, 0)


def table_row_ends(doc: Document) -> list[int]:
    """Where each row of ``doc``'s tables ends (after its last visible character)."""
    ends = []
    for start, end in table_regions(doc):
        for row_start in [*record_starts(doc.text, start, end), end]:
            ends.append(trim_span(doc.text, start, row_start)[1])
    return sorted(set(ends))


def count_breaks(text: str, chunk_ends: Sequence[int], cap_chars: int | None = None,
                 row_ends: Sequence[int] = ()) -> BreakCount:
    """Breaks among one document's indexed chunks, given their end offsets.

    The chunk ending last is not counted. A chunk that ends where a table row ends
    (``row_ends``, sorted: ``table_row_ends``) breaks no sentence. With ``cap_chars``,
    breaks inside a stretch without a sentence or row end longer than the cap are
    counted as forced.
    """
    if len(chunk_ends) < 2:
        return NO_BREAKS
    ends = sorted(chunk_ends)[:-1]
    sentences = sentence_ends(text)
    boundaries = sorted({0, *sentences.ends, *row_ends, len(text)})
    rows = set(row_ends)
    mid = forced = 0
    for end in ends:
        if sentences.is_end(end) or (rows and trim_span(text, 0, end)[1] in rows):
            continue
        mid += 1
        if cap_chars:
            i = bisect.bisect_left(boundaries, end)
            after = boundaries[min(i, len(boundaries) - 1)]
            before = boundaries[max(i - 1, 0)]
            forced += after - before > cap_chars
    return BreakCount(len(ends), mid, forced)


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
    """Figures over many documents' chunks; ``cap_chars`` is the size cap in
    characters, to tell forced breaks."""
    sizes: list[int] = []
    total = NO_BREAKS
    for doc, chunks in results:
        indexed = indexed_chunks(chunks)
        sizes.extend(len(c.text) for c in indexed)
        total += count_breaks(doc.text, [c.end for c in indexed], cap_chars,
                              table_row_ends(doc))
    return QualityFigures(
        chunks=len(sizes),
        breaks_counted=total.counted,
        mid_sentence_breaks=total.mid_sentence,
        forced_breaks=total.forced,
        mean_chars=statistics.fmean(sizes) if sizes else 0.0,
        median_chars=statistics.median(sizes) if sizes else 0.0,
    )
