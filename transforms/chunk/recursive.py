"""Recursive splitting over a separator ladder, with exact character offsets.

The rule, in the order it is applied:

1. A span whose size fits the limit is one *atom*. A span that does not fit is
   cut at every occurrence of the strongest separator present in it, taken
   from ``LADDER`` (paragraph break → sentence end → line break → clause mark
   → comma → whitespace; a line break between a word or a comma and a lowercase
   word continues a sentence and is only whitespace), and each piece is treated
   the same way with the weaker separators. Separators stay attached to the text before them, so a
   sentence keeps its full stop. With no separator left, the span is hard-cut
   at the limit (counted in ``SplitResult.hard_cuts``).
2. Atoms are packed greedily into chunks up to the limit. When the next atom
   does not fit, the chunk closes at the strongest boundary among its last
   atoms, as long as it stays at least half full, so chunks end at paragraph
   or sentence ends rather than wherever the limit fell. A chunk that would
   close under a quarter of the limit only because the next atom does not fit
   whole takes that atom's first paragraphs or sentences instead (its next
   clauses or words where the chunk ends inside a sentence that is cut anyway),
   so a short paragraph, or the tail of a sentence longer than the limit, is
   not a chunk of its own (``TAIL_RATIO``); it takes no more of them than leaves
   the rest of that atom as large. A piece without a letter (a row of page
   numbers) is not padded so: ``searchable.py`` drops it.
3. A short last chunk (under a quarter of the limit) is merged into the
   previous one when together they fit; otherwise the two are cut again at the
   strongest boundary that leaves both at least that large (the end of a
   sentence, or of a table's row, longer than the limit).
4. Chunks are trimmed of surrounding whitespace; offsets follow the trim.
5. With ``overlap`` > 0, atoms are packed to ``size − overlap`` and every chunk
   after the first is extended backwards over whole sentences (else whole
   words) of the text before it, up to ``overlap``.

The sentence level is not a pattern of its own: it is where the project's one
sentence segmenter (``sentences.py``) says a sentence ends, so abbreviations,
decimals (``3.2``), URLs and Chinese full stops are treated exactly as the
semantic splitter and the break metric treat them. English and Chinese clause
marks and commas (；;，、,) are the levels below; a comma between digits
(``12,000``) is not a separator.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass

from ragbeam.transforms.charsets import COMMAS, SEMICOLONS
from ragbeam.transforms.chunk.base import trim_span
from ragbeam.transforms.chunk.sentences import sentence_cuts
from ragbeam.transforms.chunk.sizing import Sizer

# Separator patterns; ``None`` marks the sentence level, found by the segmenter.
LADDER: tuple[re.Pattern[str] | None, ...] = (
    re.compile(r"\n[^\S\n]*\n\s*"),  # paragraph break
    None,  # sentence end (sentences.sentence_cuts)
    re.compile(r"\n\s*"),  # line break
    re.compile(rf"[{SEMICOLONS}]\s*"),  # clause
    re.compile(rf"[{COMMAS}](?!(?<=,)\d)\s*"),  # comma, not inside 12,000
    re.compile(r"\s+"),  # word
)
SENTENCE_LEVEL = 1
LINE_LEVEL = 2
_END_OF_TEXT = -1  # strongest possible boundary
_HARD_CUT = len(LADDER)  # weakest

_MAX_CHARS_PER_UNIT = 32  # window for hard cuts in tokens
MIN_FILL = 0.5  # a chunk may close early at a stronger boundary if at least this full
TAIL_RATIO = 0.25  # a last chunk smaller than this share of the limit is merged back


@dataclass(frozen=True)
class SplitResult:
    spans: list[tuple[int, int]]
    hard_cuts: int = 0


@dataclass(slots=True)
class _Atom:
    start: int
    end: int
    size: int
    strength: int  # ladder level of the boundary that ends this atom; lower = stronger


class _SpanSize:
    """Size of any span of one text, without re-tokenizing it level after level.

    In characters, a span's size is its length. In tokens, the text is tokenized
    once; a span's size is estimated by the token starts inside it (a span cut
    out of the text can tokenize a little differently at its edges) and
    measured exactly when the estimate comes within ``_EXACT_MARGIN`` of the
    limit, so whether an atom fits is always decided on its real size.
    """

    def __init__(self, text: str, start: int, end: int, limit: int, sizer: Sizer) -> None:
        self._text, self._limit, self._sizer = text, limit, sizer
        self._in_chars = sizer.unit == "chars"
        self._starts: list[int] | None = None
        span_token_starts = getattr(sizer, "span_token_starts", None)
        if not self._in_chars and span_token_starts is not None:
            self._starts = span_token_starts(text, start, end)

    def __call__(self, s: int, e: int) -> int:
        if self._in_chars:
            return e - s
        if self._starts is not None:
            estimate = bisect.bisect_left(self._starts, e) - bisect.bisect_left(self._starts, s)
            if abs(estimate - self._limit) > _EXACT_MARGIN:
                return estimate
        return self._sizer.span(self._text, s, e)


_EXACT_MARGIN = 4  # tokens


def _atoms(text: str, start: int, end: int, limit: int, sizer: Sizer) -> tuple[list[_Atom], int]:
    atoms: list[_Atom] = []
    hard_cuts = 0
    # Explicit stack instead of recursion: a 50 MB single-line file must not
    # exhaust Python's recursion limit. Items: (start, end, first level, strength).
    stack: list[tuple[int, int, int, int]] = [(start, end, 0, _END_OF_TEXT)]
    in_chars = sizer.unit == "chars"  # then a span's size is its length: no slicing
    span_size = _SpanSize(text, start, end, limit, sizer)
    while stack:
        s, e, level, strength = stack.pop()
        size = span_size(s, e)
        if size <= limit:
            if s < e:
                atoms.append(_Atom(s, e, size, strength))
            continue
        cuts: list[int] = []
        for lvl in range(level, len(LADDER)):
            cuts = _cuts(text, s, e, lvl)
            if cuts:
                break
        if not cuts:
            pos = s
            while pos < e:
                # A bounded window keeps a long run without separators linear
                # (a token is rarely longer than a few characters; at worst
                # the cut comes early, never over the limit).
                if in_chars:
                    n = size = min(limit, e - pos)
                else:
                    window = text[pos:min(e, pos + limit * _MAX_CHARS_PER_UNIT)]
                    n = sizer.prefix_within(window, limit)
                    size = sizer.size(window[:n])
                last = pos + n >= e
                atoms.append(_Atom(pos, pos + n, size, strength if last else _HARD_CUT))
                hard_cuts += 0 if last else 1
                pos += n
            continue
        bounds = [s, *cuts, e]
        pieces = [
            (a, b, lvl + 1, lvl if b != e else strength)
            for a, b in itertools.pairwise(bounds)
        ]
        stack.extend(reversed(pieces))
    return atoms, hard_cuts


def _cuts(text: str, start: int, end: int, level: int) -> list[int]:
    """Offsets in ``(start, end)`` right after each separator of ``LADDER[level]``; a
    line break inside a sentence (``_inside_sentence``: a line the joiner left, a
    hanging indent, a list item's wrapped line) is no line-level cut."""
    pattern = LADDER[level]
    if pattern is None:
        return sentence_cuts(text, start, end)
    if level == LINE_LEVEL:
        return [m.end() for m in pattern.finditer(text, start, end)
                if start < m.end() < end and not _inside_sentence(text, m.start(), m.end())]
    return [m.end() for m in pattern.finditer(text, start, end) if start < m.end() < end]


def _inside_sentence(text: str, brk: int, after: int) -> bool:
    """Does the line break at ``text[brk:after]`` continue a sentence: the line before
    ends with a word or a comma, the next starts with a lowercase word, and the two
    lines do not start alike (rows of a log or a list: "detail line 1" / "detail line 2")?"""
    if not text[after].islower() or not (text[brk - 1].isalpha() or text[brk - 1] in COMMAS):
        return False
    line_start = text.rfind("\n", 0, brk) + 1
    word = text[after:after + 40].split(None, 1)[0]
    return not text.startswith(word, line_start)


def _refined(text: str, atom: _Atom, sentence_split: bool, sizer: Sizer) -> list[_Atom]:
    """``atom`` cut at the strongest separator in it, down to sentence ends (below them
    only where ``sentence_split``: the sentence is cut already, before the atom), or
    ``[atom]`` when it has none."""
    last = len(LADDER) if sentence_split else SENTENCE_LEVEL + 1
    for level in range(last):
        cuts = _cuts(text, atom.start, atom.end, level)
        if cuts:
            bounds = [atom.start, *cuts, atom.end]
            return [_Atom(a, b, sizer.span(text, a, b), level if b != atom.end else atom.strength)
                    for a, b in itertools.pairwise(bounds)]
    return [atom]


def _pack(text: str, atoms: list[_Atom], limit: int, sizer: Sizer, exact_sum: bool
          ) -> list[tuple[int, int]]:
    chunks: list[tuple[int, int]] = []
    i, n = 0, len(atoms)
    while i < n:
        j, total = i, 0
        refined: tuple[int, int] | None = None  # the atom cut finer: its first piece, end
        while j < n:
            if total + atoms[j].size <= limit:
                total += atoms[j].size
                j += 1
                continue
            if (j == i or total >= limit * TAIL_RATIO
                    or not any(map(str.isalpha, text[atoms[i].start:atoms[j - 1].end]))):
                break  # full enough; or nothing to search for (dropped, not padded)
            # A chunk this small would close only because the next atom does not fit
            # whole: that atom is cut finer (at its paragraphs and sentences; where the
            # chunk ends inside a sentence, that sentence's next pieces) to fill it.
            finer = _refined(text, atoms[j], atoms[j - 1].strength > SENTENCE_LEVEL, sizer)
            if len(finer) == 1:
                break
            refined = (j if refined is None else refined[0], atoms[j].end)
            atoms[j:j + 1] = finer
            n = len(atoms)
        if refined is not None:
            # What is left of the atom cut finer must not be a small chunk itself: its
            # pieces go back to it until it is as large as the chunk would be small.
            rest = sum(atom.size for atom in atoms[j:n] if atom.end <= refined[1])
            while (rest < limit * TAIL_RATIO and j - 1 > refined[0]
                   and total - atoms[j - 1].size >= limit * TAIL_RATIO):
                j -= 1
                rest += atoms[j].size
                total -= atoms[j].size
        j = max(j, i + 1)
        if j < n:  # closing early: prefer the strongest boundary among the last atoms
            best, best_strength, filled = j, atoms[j - 1].strength, total
            for k in range(j - 1, i, -1):
                filled -= atoms[k].size
                if filled < limit * MIN_FILL:
                    break
                if atoms[k - 1].strength < best_strength:
                    best, best_strength = k, atoms[k - 1].strength
            j = best
        if not exact_sum:  # token counts are not additive: check the real size
            while j > i + 1 and sizer.span(text, atoms[i].start, atoms[j - 1].end) > limit:
                j -= 1
        chunks.append((atoms[i].start, atoms[j - 1].end))
        i = j
    return chunks


def _within_limit(text: str, span: tuple[int, int], limit: int, sizer: Sizer
                  ) -> list[tuple[int, int]]:
    """``span``, or, where it measures over ``limit``, its pieces packed again (a piece
    that comes back whole is cut where its longest prefix within the limit ends).

    A loop, not a recursion: every piece it cuts again is strictly inside the one
    before, so it ends; packing a piece could otherwise return that same piece, whose
    re-cut packed it again, without end (a table's cell under a 4-token limit)."""
    pending, pieces = [span], []
    while pending:
        start, end = pending.pop()
        if end - start <= 1 or sizer.span(text, start, end) <= limit:
            pieces.append((start, end))  # one character over the limit stays as it is
            continue
        packed = _packed_spans(text, start, end, limit, sizer)[0]
        if packed in ([], [(start, end)]):
            cut = start + min(end - start - 1, max(1, sizer.prefix_within(text[start:end], limit)))
            packed = [p for p in (trim_span(text, start, cut), trim_span(text, cut, end))
                      if p[0] < p[1]]
        pending.extend(reversed(packed))
    return pieces


def _rebalanced(text: str, atoms: list[_Atom], pair: list[tuple[int, int]], limit: int,
                sizer: Sizer) -> list[tuple[int, int]]:
    """The last two chunks ``pair`` cut again where both are at least ``TAIL_RATIO`` of
    the limit (a text's last sentence, or a table's long row, ends in a short piece
    otherwise): at the strongest atom boundary that allows it, the most even one among
    equals; as they were where none does."""
    start, end = pair[0][0], pair[-1][1]
    best: tuple[int, int, int] | None = None
    for atom in atoms:
        if not start < atom.end < end:
            continue
        left, right = sizer.span(text, start, atom.end), sizer.span(text, atom.end, end)
        if min(left, right) < limit * TAIL_RATIO or max(left, right) > limit:
            continue
        key = (atom.strength, abs(left - right), atom.end)
        if best is None or key < best:
            best = key
    return pair if best is None else [(start, best[2]), (best[2], end)]


def _overlap_start(text: str, floor: int, start: int, overlap: int, sizer: Sizer) -> int:
    """Earliest sentence (else word) boundary in ``[floor, start)`` within ``overlap``."""
    window_floor = max(floor, start - overlap * (1 if sizer.unit == "chars" else 8))
    for level in (SENTENCE_LEVEL, len(LADDER) - 1):
        candidates = _cuts(text, window_floor, start, level)
        for pos in sorted(set(candidates)):
            if sizer.span(text, pos, start) <= overlap:
                return pos
    return start


def _packed_spans(text: str, start: int, end: int, limit: int, sizer: Sizer
                  ) -> tuple[list[tuple[int, int]], int]:
    """``text[start:end]`` packed into trimmed spans of about ``limit`` units (a short
    last piece joined to the one before or the pair rebalanced), and the hard cuts."""
    atoms, hard_cuts = _atoms(text, start, end, limit, sizer)
    packed = _pack(text, atoms, limit, sizer, exact_sum=sizer.unit == "chars")
    if len(packed) > 1:
        (ps, _), (ls, le) = packed[-2], packed[-1]
        if sizer.span(text, ls, le) < limit * TAIL_RATIO:
            if sizer.span(text, ps, le) <= limit:
                packed[-2:] = [(ps, le)]
            elif any(map(str.isalpha, text[ls:le])):  # a piece without letters is dropped
                packed[-2:] = _rebalanced(text, atoms, packed[-2:], limit, sizer)
    spans = [span for span in (trim_span(text, s, e) for s, e in packed) if span[0] < span[1]]
    return spans, hard_cuts


def split_recursive(
    text: str,
    size: int,
    sizer: Sizer,
    overlap: int = 0,
    start: int = 0,
    end: int | None = None,
) -> SplitResult:
    """Split ``text[start:end]`` into spans of at most ``size`` units.

    Returns absolute ``(start, end)`` offsets into ``text``, trimmed of
    surrounding whitespace, in order. Whitespace-only input gives no spans.
    """
    if size <= 0:
        raise ValueError("size must be positive")
    if not 0 <= overlap < size:
        raise ValueError("overlap must be >= 0 and smaller than size")
    end = len(text) if end is None else end
    start, end = trim_span(text, start, end)
    if start >= end:
        return SplitResult([])
    limit = size - overlap
    spans, hard_cuts = _packed_spans(text, start, end, limit, sizer)
    if sizer.unit != "chars":
        # A token count can grow when whitespace is trimmed (";\n\n" is one token, ";"
        # and what stood before it may be two): a trimmed piece over the limit is cut again.
        spans = [piece for span in spans for piece in _within_limit(text, span, limit, sizer)]
    if overlap:
        spans = [spans[0]] + [
            trim_span(text, _overlap_start(text, spans[k - 1][0], s, overlap, sizer), e)
            for k, (s, e) in enumerate(spans) if k > 0
        ] if spans else spans
    return SplitResult(spans, hard_cuts)
