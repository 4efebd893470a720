"""What a heading names in a chunk's heading path (pure): a run-in heading's title
without the opening of its paragraph.

A run-in heading opens its paragraph on the same line, set apart by a full stop, a
colon or a dash ("Section 2.3 No Duplication. Nothing herein entitles any Business Employee…";
"Income from Continuing Operations Before Provision/(Benefit) for Taxes on
Income––The decreases in Income…"). Read as one line, the whole of it became the
heading: a sentence in every path below it. The heading's text in the document is
left as it is (offsets, the chunk's text); its name in the path is the title.
"""

from __future__ import annotations

import re

# Where a run-in title ends: after a full stop or a colon, or at a dash; a capital
# opens the paragraph.
_RUN_IN_BREAK = re.compile(
    r"(?<=[a-z)\]”’\"'])[.:]\s+(?=[A-Z])|\s*(?:––|--|—|–)\s*(?=[A-Z])")
_WORD = re.compile(r"[^\W\d_][\w'’/()-]*")
MIN_LONG_WORD = 4  # letters: shorter words ("of", "the", "and") are minor in a title
MIN_TITLE_CAPITALS = 0.75  # of a title's long words
MIN_PROSE_LOWER_WORDS = 3  # long words in lower case: the paragraph's opening…
MIN_SENTENCE_LOWER_WORDS = 2  # …or a whole sentence's ("The Plan shall be administered…")
MIN_PROSE_LOWER_SHARE = 0.4  # …and at least this share of its long words


def _long_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text) if sum(c.isalpha() for c in w) >= MIN_LONG_WORD]


def _reads_as_title(text: str) -> bool:
    words = _long_words(text)
    return bool(words) and (sum(w[0].isupper() for w in words)
                            >= MIN_TITLE_CAPITALS * len(words))


def _reads_as_prose(text: str) -> bool:
    """The opening of a paragraph: lower-case words, and no question (a title's
    subtitle asks one: "Values – What do we use to achieve our mission?")."""
    if text.rstrip().endswith(("?", "？")):
        return False
    words = _long_words(text)
    lower = sum(w[0].islower() for w in words)
    least = (MIN_SENTENCE_LOWER_WORDS if text.rstrip().endswith((".", "!")) else
             MIN_PROSE_LOWER_WORDS)
    return lower >= least and lower >= MIN_PROSE_LOWER_SHARE * len(words)


def run_in_title(text: str) -> tuple[int, int] | None:
    """Where a run-in title ends in ``text`` and where its paragraph starts: the first
    break whose part before reads as a title (capitalised words; a full stop or a colon
    stays with it) and whose rest reads as prose (lower-case words); None where no
    title opens the text."""
    for match in _RUN_IN_BREAK.finditer(text):
        end = match.start() + (1 if match.group()[:1] in ".:" else 0)
        if _reads_as_title(text[:end]) and _reads_as_prose(text[match.end():]):
            return end, match.end()
    return None


def heading_name(heading: str) -> str:
    """``heading`` (its words joined by single spaces) as a path names it: a run-in
    heading's title alone (``run_in_title``); any other heading whole. A colon that
    ends a label ("Revenue Recognition:") introduces its text and is left out."""
    found = run_in_title(heading)
    name = heading if found is None else heading[:found[0]]
    return name[:-1].rstrip() if name.endswith((":", "：")) else name
