"""De-hyphenation across line breaks: "manip-" + "ulation" → "manipulation".

A line that ends in a letter and a hyphen, followed by a line that starts with
a lowercase letter, is a word broken by the typesetter: the hyphen goes and
the halves join. Real hyphens stay, and the halves join *with* the hyphen:

* when the next line starts with a capital or a digit ("GPT-" / "2",
  "Smith-" / "Jones", "10-" / "20"), but for a word in capitals that the
  document writes unbroken elsewhere ("SO-" / "LUTION" in a heading: "SOLUTION");
* when the broken word is a URL or path (hyphens in URLs are real);
* when the document's own words say so, by counts (``hyphen_lexicon``): it
  writes the compound with its hyphen ("state-of-the-art", "administrator-level")
  or as two words ("administrator level") more often than closed up
  ("administratorlevel"); and a compound that has other hyphens ("state-" /
  "of-the-art", "state-of-the-" / "art") keeps the one at the break unless the
  document closes it up there or writes the two parts at the break as one word
  elsewhere ("sub-" / "ject-matter" where it writes "subject"): a typesetter
  breaks such a compound mostly at its own hyphens. No dictionary: the same
  counts hold in any language written with spaces.

A soft hyphen (U+00AD) at the end of a line is always a break.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from enum import Enum

from ragbeam.transforms.clean import _line_passes

HYPHENS = "-\u2010\u00ad"
_LEFT_PART = re.compile(r"[\w-]*$")
_HEAD = re.compile(r"^(\w+)")
_COMPOUND_HEAD = re.compile(r"^\w+(?:[-\u2010]\w+)*")
_WORD_BEFORE = re.compile(r"\w+(?:-\w+)*$")
_WORD_AFTER = re.compile(r"\w+(?:-\w+)*")  # matched at a position: no "^"
# A word of the lexicon (``hyphen_lexicon``; matched in C, ``_line_passes.word_counts``).
_WORD = re.compile(r"\w+(?:[-\u2010]\w+)*")


class HyphenBreak(Enum):
    NONE = "none"  # not a hyphenated line break
    JOIN = "join"  # word broken by the typesetter: drop the hyphen
    KEEP = "keep"  # a real compound: join, keep the hyphen


def hyphen_lexicon(lines: Iterable[str]) -> Counter[str | tuple[str, str]]:
    """Case-folded words of a document, hyphenated compounds included, and how often the
    two words at each hyphenated line break follow one another elsewhere (the key
    ``("administrator", "level")``; the break itself is no evidence that the document
    writes "manip ulation").

    A word is a match of ``_WORD`` (``\\w+`` joined by hyphens: "state-of-the-art" is
    one); the pairs are counted only where a break asks about them (``_compound``) and
    both halves are words of the document besides the break itself ("manip" and
    "ulation" are not), over each two neighbouring words. Counted in C
    (``_line_passes.word_counts``, its only implementation: a long document's words are
    many, and a string for each cost half of line assembly)."""
    text = "\n".join(lines).casefold().replace("\u2010", "-")
    counts: Counter[str | tuple[str, str]] = Counter()
    broken = Counter(_broken_words(text))
    asked = {(left.rsplit("-", 1)[-1], right.split("-", 1)[0]) for left, right in broken}
    for pair, together in _line_passes.word_counts(text, asked, counts).items():
        counts[pair] = together - broken[pair]  # the break is no evidence for its halves
    return counts


def classify_hyphen_break(line: str, next_line: str,
                          lexicon: Counter[str | tuple[str, str]] | None = None
                          ) -> HyphenBreak:
    if not line or line[-1] not in HYPHENS or not next_line:
        return HyphenBreak.NONE
    if line[-1] == "\u00ad":
        return HyphenBreak.JOIN
    last_word = line.rsplit(None, 1)[-1]
    if len(last_word) < 2 or not last_word[-2].isalnum():
        return HyphenBreak.NONE  # a dash standing alone ("text -"), not a hyphen
    first = next_line[0]
    if first.islower() and last_word[-2].isalpha() and "/" not in last_word:
        left = _LEFT_PART.search(last_word[:-1]).group().casefold().replace("\u2010", "-")
        head = _COMPOUND_HEAD.match(next_line)
        if lexicon and head and left and _compound(
                left, head.group().casefold().replace("\u2010", "-"), lexicon):
            return HyphenBreak.KEEP
        return HyphenBreak.JOIN
    # A word in capitals broken ("SO-" / "LUTION" in a heading): broken by the
    # typesetter when the document writes the word unbroken elsewhere ("solution").
    if first.isupper() and lexicon and "/" not in last_word:
        left = _LEFT_PART.search(last_word[:-1]).group()
        head = _HEAD.match(next_line)
        if (head and left.isalpha() and left.isupper() and head.group(1).isalpha()
                and head.group(1).isupper()
                and lexicon[(left + head.group(1)).casefold()]
                and not lexicon[f"{left}-{head.group(1)}".casefold()]):
            return HyphenBreak.JOIN
    # "GPT-" / "2", "Smith-" / "Jones", "10-" / "20", or a URL broken at a hyphen.
    return HyphenBreak.KEEP if first.isalnum() else HyphenBreak.NONE


def _broken_words(text: str) -> list[tuple[str, str]]:
    """The two halves of each word a line of ``text`` (lines joined by "\\n") breaks at
    its end with a hyphen (found from the hyphens: a pattern tried at every word is
    slow on a long document)."""
    halves = []
    at = text.find("-\n")
    while at >= 0:
        before = _WORD_BEFORE.search(text, max(0, at - 80), at)
        after = _WORD_AFTER.match(text, at + 2)
        if before and after:
            halves.append((before.group(), after.group()))
        at = text.find("-\n", at + 2)
    return halves


def _compound(left: str, right: str, lexicon: Counter[str | tuple[str, str]]) -> bool:
    """Is ``left``-``right`` (case-folded, broken at that hyphen) a compound the document
    writes with its hyphen or as two words more often than closed up, or one with other
    hyphens that the document never closes up at the break?"""
    closed = lexicon[left + right]
    hyphenated = lexicon[f"{left}-{right}"]
    before, after = left.rsplit("-", 1)[-1], right.split("-", 1)[0]
    if max(hyphenated, lexicon[(before, after)]) > closed:
        return True
    # "state-" / "of-the-art": no "stateof" anywhere; "sub-" / "ject-matter": "subject" is.
    return (not closed and ("-" in left or "-" in right)
            and not lexicon[before + after])


def join_hyphenated(line: str, next_line: str, kind: HyphenBreak) -> str:
    """The two lines as one, for a ``JOIN`` or ``KEEP`` break."""
    if kind is HyphenBreak.JOIN:
        return line[:-1] + next_line
    return line + next_line
