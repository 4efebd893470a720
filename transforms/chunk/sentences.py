"""Sentence segmentation for English and Chinese, with exact character offsets.

``split_sentences(text)`` returns ``(start, end)`` spans into ``text``: trimmed
of surrounding whitespace, in order, covering every non-whitespace character.
The rule, in the order it is applied:

1. A blank line always ends a sentence (paragraph break).
2. Chinese terminators end a sentence wherever they stand: 。！？； and the
   ellipsis ……, plus their NFKC forms (the clean stage turns ！？； into
   ``!?;`` and …… into ``......``) when a CJK character is next to them.
3. ``? !`` end a sentence when followed by whitespace, the end of the text or
   a CJK character; ``.`` also needs that, and then must not be:
   a decimal or version (``3.2 节``, ``v1.2`` — no whitespace follows anyway),
   a known abbreviation (``e.g.``, ``Dr.``, ``et al.``), an initial or dotted
   acronym (``J.``, ``U.S.``), a dotted section number (``see 3.2. Results``),
   a number opening a line (``1. Intro``), or followed by a lowercase word (English sentences
   start with a capital, so ``approx. three`` goes on). Dots inside URLs are
   never followed by whitespace, so URLs stay whole.
4. An English ellipsis (``...``, ``…``) ends a sentence only before a capital
   letter or a CJK character.
5. Closing quotes and brackets right after a terminator stay with the
   sentence before them (``他说："好。"`` / ``"Stop." Then``).
6. A sentence longer than ``max_chars`` (a table, a list without full stops)
   is cut at its line breaks, then hard-cut, so no atom is unbounded.
"""

from __future__ import annotations

import re

from ragbeam.transforms.chunk.base import trim_span

CLOSERS = "”’\"'」』）)】》\\]"
# One candidate terminator: CJK marks, ellipses, or a run of ASCII ?!. , then closers.
_TERMINATOR = re.compile(
    rf"(?:[。！？；]+|…+|\.{{3,}}|[?!]+|;|\.)[{CLOSERS}]*"
)
_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")
_LINE_BREAK = re.compile(r"\n")
_CJK = re.compile(
    r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]"
)
_ACRONYM = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]?")
_LINE_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_SECTION_NUMBER = re.compile(r"\d+(?:\.\d+)+")
# Never sentence ends before a capital ("etc." and "Inc." often are, so they are not here).
ABBREVIATIONS = frozenset((
    "e.g", "i.e", "cf", "vs", "al", "approx", "dr", "mr", "mrs", "ms", "prof", "sr", "jr",
    "st", "no", "nos", "fig", "figs", "eq", "eqs", "vol", "pp", "ch", "sec", "resp",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
))
DEFAULT_MAX_SENTENCE_CHARS = 1000


def _is_cjk(ch: str) -> bool:
    return bool(ch) and _CJK.match(ch) is not None


def _next_visible(text: str, pos: int) -> str:
    """The first non-whitespace character at or after ``pos`` ('' at the end)."""
    n = len(text)
    while pos < n and text[pos].isspace():
        pos += 1
    return text[pos] if pos < n else ""


def _word_before(text: str, pos: int) -> tuple[str, int]:
    """The whitespace-delimited token ending at ``pos`` and where it starts."""
    start = pos
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return text[start:pos], start


def _ends_sentence(text: str, match: re.Match[str]) -> bool:
    mark = match.group().rstrip(CLOSERS)
    end = match.end()
    after = text[end] if end < len(text) else ""
    before = text[match.start() - 1] if match.start() > 0 else ""
    if mark[0] in "。！？；" or (mark[0] == "…" and len(mark) >= 2):
        return True
    if mark == ";":  # NFKC form of ；: a clause end only in Chinese text
        return _is_cjk(before) or _is_cjk(after)
    if mark[0] == "…" or mark.startswith("..."):  # English ellipsis
        nxt = _next_visible(text, end)
        return nxt == "" or nxt.isupper() or _is_cjk(nxt) or _is_cjk(before)
    if after and not after.isspace() and not _is_cjk(after):
        return False  # 3.2, v1.2, example.com/x?q=1, e.g.x
    if mark[0] in "?!":
        return True
    # A single full stop followed by whitespace, a CJK character or the end.
    if _is_cjk(before) or _is_cjk(after):
        return True
    nxt = _next_visible(text, end)
    if nxt and nxt.islower():
        return False
    word, word_start = _word_before(text, match.start())
    word = word.lstrip("(\"'“‘[")
    if word.lower() in ABBREVIATIONS:
        return False
    if len(word) == 1 and word.isalpha():
        return False  # an initial: "J. Smith"
    if _ACRONYM.fullmatch(word + "."):
        return False  # "U.S."
    if _SECTION_NUMBER.fullmatch(word):
        return False  # "section 3.2. Results"
    line_start = text.rfind("\n", 0, word_start) + 1
    return not (_LINE_NUMBER.fullmatch(word) and not text[line_start:word_start].strip())


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


def split_sentences(
    text: str,
    start: int = 0,
    end: int | None = None,
    max_chars: int = DEFAULT_MAX_SENTENCE_CHARS,
) -> list[tuple[int, int]]:
    """Sentences of ``text[start:end]`` as absolute ``(start, end)`` offsets."""
    end = len(text) if end is None else end
    cuts = {m.end() for m in _BLANK_LINE.finditer(text, start, end)}
    cuts.update(m.end() for m in _TERMINATOR.finditer(text, start, end) if _ends_sentence(text, m))
    spans: list[tuple[int, int]] = []
    for a, b in zip([start, *sorted(cuts)], [*sorted(cuts), end], strict=True):
        a, b = trim_span(text, a, b)
        if a < b:
            spans.extend(_cap(text, a, b, max_chars))
    return spans
