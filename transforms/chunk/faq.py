"""FAQ chunking: one chunk per question-answer pair.

A question starts a line and is either marked (``Q:``, ``Question:``,
``Q3.``, ``问：``, ``问题：``) or is a short line — a heading, or a plain line
(``## How do I…?`` in Markdown text) — ending with ``?`` or ``？`` and followed
by a line that is not itself such a question, i.e. by its answer. A pair runs
from its question to the next question; of several question lines in a row,
only the first starts a pair, so a question written over two lines stays one.
Text before the first question is its own chunk(s). Pairs are never merged;
a pair over ``size`` is split recursively inside (its first chunk keeps the
question). Every chunk of a pair carries the question in ``metadata.question``.

An unmarked question line is not a question of an FAQ when it is someone's speech
or the end of a sentence: a line that opens with a quotation mark (dialogue in a
story, a poem, an interview) or that follows a line ending with a comma (a verse
or a wrapped sentence going on). Poems and plays ask many questions in short
lines; without this they read as FAQs.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import replace

from ragbeam.transforms.charsets import QUESTION_MARKS
from ragbeam.transforms.chunk.base import (
    ChunkingResult,
    HeadingIndex,
    SizedStrategy,
    spans_to_chunks,
)
from ragbeam.transforms.chunk.units import pack_units, units_between
from ragbeam.transforms.types import Chunk, Document

_MARKED_QUESTION = re.compile(
    r"[^\S\n]*(?:#+[^\S\n]*)?(?:\*\*)?(?:Q\d*|Question|问|问题|提问)[^\S\n]*[:：.．)][^\S\n]*",
    re.IGNORECASE)
_QUESTION_LINE_END = re.compile(rf"[{QUESTION_MARKS}][\"'”’)）*]*[^\S\n]*$")
MAX_QUESTION_CHARS = 300


def _lines(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every line, without its newline."""
    spans, pos = [], 0
    for line in text.split("\n"):
        spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    return spans


def _is_question_line(line: str) -> bool:
    stripped = line.strip()
    return 0 < len(stripped) <= MAX_QUESTION_CHARS and bool(_QUESTION_LINE_END.search(stripped))


def _is_marked_question(line: str) -> bool:
    return bool(_MARKED_QUESTION.match(line))


# Opening quotation marks of speech (not the apostrophe, nor CJK corner brackets,
# which FAQs use for names of buttons and terms).
_SPEECH_OPENERS = "\"“”„«»‹›‘’"
_CONTINUED = (",", "，", "、")


def _is_speech_or_continuation(line: str, previous: str | None) -> bool:
    """An unmarked question line that is speech or the rest of a sentence (module doc)."""
    return (line.lstrip().startswith(tuple(_SPEECH_OPENERS))
            or (previous is not None and previous.rstrip().endswith(_CONTINUED)))


def question_starts(text: str) -> list[int]:
    """Offsets where a question-answer pair starts (see the module docstring)."""
    line_spans = _lines(text)
    lines = [text[s:e] for s, e in line_spans]
    offsets = [s for s, _ in line_spans]
    kept = [i for i, line in enumerate(lines) if line.strip()]
    is_question = [
        _is_marked_question(lines[i]) or (
            _is_question_line(lines[i]) and not _is_speech_or_continuation(
                lines[i], lines[kept[k - 1]] if k else None))
        for k, i in enumerate(kept)]
    starts: list[int] = []
    for k, i in enumerate(kept):
        if not is_question[k] or (k > 0 and is_question[k - 1]):
            continue
        run_end = k
        while run_end < len(kept) and is_question[run_end]:
            run_end += 1
        if _is_marked_question(lines[i]) or run_end < len(kept):  # an answer follows
            starts.append(offsets[i] + len(lines[i]) - len(lines[i].lstrip()))
    return starts


def _question_text(text: str, start: int) -> str:
    end = text.find("\n", start)
    line = text[start:end if end != -1 else len(text)]
    return " ".join(line.lstrip("#* ").split())


class FaqStrategy(SizedStrategy):
    name = "faq"

    def chunk(self, doc: Document) -> ChunkingResult:
        text = doc.text
        starts = question_starts(text)
        pairs = units_between(text, starts, 0, len(text))
        spans, hard_cuts = pack_units(text, pairs, self.size, self.sizer, self.overlap,
                                      merge=False)
        chunks: list[Chunk] = []
        headings = HeadingIndex(doc)
        for chunk in spans_to_chunks(doc, spans, headings):
            # The question this chunk answers: the last question start at or before it.
            asked = bisect.bisect_right(starts, chunk.start) - 1
            if asked >= 0:
                chunk = replace(chunk, metadata={"question": _question_text(text, starts[asked])})
            chunks.append(chunk)
        return ChunkingResult(chunks, {"hard_cuts": hard_cuts, "qa_pairs": len(starts)})
