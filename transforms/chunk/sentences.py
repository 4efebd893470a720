"""The sentence segmenter: one for the chunkers, the semantic splitter and every metric.

``split_sentences(text)`` returns ``(start, end)`` spans into ``text``: trimmed
of surrounding whitespace, in order, covering every non-whitespace character.

Which library, and why (``benchmarks/sentence_segmenters.py``, boundary F1 on
the test parts of three Universal Dependencies treebanks that no rule here
was written against — English EWT web text, German GSD, Chinese GSDSimp):
sentencex (Wikimedia; rule-based, ~300 languages, written in Rust) was the
most accurate on English (0.859 against 0.814–0.845 for pysbd, PyICU,
blingfire and syntok), level with the best on German (0.904) and among the
fastest (20–45 M characters/s, pysbd 0.25–0.4 M). Its one weakness on
Chinese — no boundary after 。 when a digit follows (``…人。2007年…``) — is
covered by the rule this module has always had: a CJK full stop, exclamation
or question mark ends a sentence wherever it stands. Measured together in
docs/evaluation.md ("Sentence segmentation").

The rule, in the order it is applied:

1. A blank line always ends a sentence (paragraph break).
2. sentencex's boundaries (abbreviations, initials, decimals, URLs, ellipses,
   closing quotes: its rules for ``language``, English by default).
3. 。！？ end a sentence wherever they stand, with any closing quotes or
   brackets after them (``他说："好。"`` stays whole).
4. Two vetoes this module had before sentencex, for what cleaned documents
   are full of: a number opening a line (``1. Introduction``, ``3. 正面对比``)
   and a dotted section number (``see 3.2. Results``) do not end a sentence.
5. A sentence longer than ``max_chars`` (a table, a list without full stops)
   is cut at its line breaks, then hard-cut, so no atom is unbounded.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

import sentencex

from ragbeam.transforms.charsets import CJK_SENTENCE_ENDS, CLOSERS
from ragbeam.transforms.chunk.base import trim_span

DEFAULT_LANGUAGE = "en"
DEFAULT_MAX_SENTENCE_CHARS = 1000
_SURROGATE = re.compile("[\ud800-\udfff]")
_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")
_LINE_BREAK = re.compile(r"\n")
_NUMBER_BEFORE = re.compile(r"(?:^|(?<=\s))(\d+(?:\.\d+)*)\.\s*$")
_CJK_TERMINATOR = re.compile(f"[{CJK_SENTENCE_ENDS}]+[{re.escape(CLOSERS)}]*")


def _cap(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    if end - start <= max_chars:
        return [(start, end)]
    pieces: list[tuple[int, int]] = []
    cuts = [m.end() for m in _LINE_BREAK.finditer(text, start, end)]
    for a, b in zip([start, *cuts], [*cuts, end], strict=True):
        a, b = trim_span(text, a, b)
        while b - a > max_chars:
            pieces.append(trim_span(text, a, a + max_chars))
            a, b = trim_span(text, a + max_chars, b)
        if a < b:
            pieces.append((a, b))
    return [p for p in pieces if p[0] < p[1]]


def sentence_cuts(text: str, start: int = 0, end: int | None = None,
                  language: str = DEFAULT_LANGUAGE) -> list[int]:
    """Sorted offsets in ``(start, end)`` where a new sentence may begin (rules 1–3)."""
    end = len(text) if end is None else end
    cuts = {m.end() for m in _BLANK_LINE.finditer(text, start, end)}
    cuts.update(m.end() for m in _CJK_TERMINATOR.finditer(text, start, end))
    if start < end:
        segment = text[start:end]
        try:
            found = sentencex.get_sentence_boundaries(language, segment)
        except UnicodeEncodeError:  # lone surrogates: one U+FFFD each keeps the offsets
            found = sentencex.get_sentence_boundaries(language, _SURROGATE.sub("\ufffd", segment))
        cuts.update(start + b["end_index"] for b in found
                    if not _numbering_full_stop(text, start + b["end_index"]))
    return sorted(c for c in cuts if start < c < end)


def _numbering_full_stop(text: str, cut: int) -> bool:
    """Whether the sentence ending at ``cut`` ends with ``1.`` opening a line or ``3.2.``."""
    match = _NUMBER_BEFORE.search(text, max(0, cut - 24), cut)
    if match is None:
        return False
    if "." in match.group(1):
        return True  # a dotted section number
    line_start = text.rfind("\n", 0, match.start()) + 1
    return not text[line_start:match.start()].strip()


def split_sentences(
    text: str,
    start: int = 0,
    end: int | None = None,
    max_chars: int = DEFAULT_MAX_SENTENCE_CHARS,
    language: str = DEFAULT_LANGUAGE,
) -> list[tuple[int, int]]:
    """Sentences of ``text[start:end]`` as absolute ``(start, end)`` offsets."""
    end = len(text) if end is None else end
    cuts = sentence_cuts(text, start, end, language)
    spans: list[tuple[int, int]] = []
    for a, b in zip([start, *cuts], [*cuts, end], strict=True):
        a, b = trim_span(text, a, b)
        if a < b:
            spans.extend(_cap(text, a, b, max_chars))
    return spans


class SentenceEnds:
    """Where the sentences of one text end (trimmed), for "does a chunk end at one?".

    Built once per document; ``is_end(offset)`` tells whether ``text[:offset]``,
    trailing whitespace aside, ends a sentence, a paragraph or the text.
    """

    def __init__(self, text: str, language: str = DEFAULT_LANGUAGE) -> None:
        self.text = text
        self._last_visible = len(text.rstrip())
        self._ends = [e for _, e in split_sentences(text, max_chars=len(text) + 1,
                                                    language=language)]

    def is_end(self, offset: int) -> bool:
        _, end = trim_span(self.text, 0, min(offset, len(self.text)))
        if end == 0 or end >= self._last_visible:
            return True  # nothing before, or nothing after: the text's own ends
        i = bisect.bisect_left(self._ends, end)
        return i < len(self._ends) and self._ends[i] == end

    @property
    def ends(self) -> list[int]:
        return list(self._ends)


@lru_cache(maxsize=64)
def sentence_ends(text: str, language: str = DEFAULT_LANGUAGE) -> SentenceEnds:
    """``SentenceEnds`` of ``text``, cached (a metric asks once per chunk of a document)."""
    return SentenceEnds(text, language)
