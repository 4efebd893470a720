"""De-hyphenation across line breaks: "manip-" + "ulation" → "manipulation".

A line that ends in a letter and a hyphen, followed by a line that starts with
a lowercase letter, is a word broken by the typesetter: the hyphen goes and
the halves join. Real hyphens stay:

* the next line starts with anything but a lowercase letter ("GPT-" / "2");
* the document itself writes the compound with a hyphen elsewhere and never
  as one word ("state-of-the-" / "art" when "state-of-the-art" occurs
  unbroken): then the halves join *with* the hyphen.

A soft hyphen (U+00AD) at the end of a line is always a break.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from enum import Enum

HYPHENS = "-\u2010\u00ad"
_BROKEN_TAIL = re.compile(r"([^\W\d_][\w-]*)[-\u2010\u00ad]$")
_HEAD = re.compile(r"^(\w+)")
_WORD = re.compile(r"\w+(?:[-\u2010]\w+)*")


class HyphenBreak(Enum):
    NONE = "none"  # not a hyphenated line break
    JOIN = "join"  # word broken by the typesetter: drop the hyphen
    KEEP = "keep"  # a real compound: join, keep the hyphen


def hyphen_lexicon(lines: Iterable[str]) -> Counter[str]:
    """Case-folded words of a document, hyphenated compounds included."""
    counts: Counter[str] = Counter()
    for line in lines:
        counts.update(word.casefold() for word in _WORD.findall(line))
    return counts


def classify_hyphen_break(line: str, next_line: str,
                          lexicon: Counter[str] | None = None) -> HyphenBreak:
    if not line or line[-1] not in HYPHENS or not next_line:
        return HyphenBreak.NONE
    if line[-1] == "\u00ad":
        return HyphenBreak.JOIN
    tail = _BROKEN_TAIL.search(line)
    if tail is None or not next_line[0].islower():
        return HyphenBreak.NONE
    head = _HEAD.match(next_line)
    if lexicon and head:
        left, right = tail.group(1).casefold(), head.group(1).casefold()
        if lexicon[f"{left}-{right}"] and not lexicon[left + right]:
            return HyphenBreak.KEEP
    return HyphenBreak.JOIN


def join_hyphenated(line: str, next_line: str, kind: HyphenBreak) -> str:
    """The two lines as one, for a ``JOIN`` or ``KEEP`` break."""
    if kind is HyphenBreak.JOIN:
        return line[:-1] + next_line
    return line + next_line
