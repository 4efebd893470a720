"""Table-of-contents leader lines: "2.3 Simple parsing . . . . . . 4".

A leader is a run of dots (or middle dots, underscores, ellipses) that only
guides the eye from an entry to its page number. It carries no words, so it
is replaced by one space and the entry and its number stay:
"2.3 Simple parsing . . . . 4" → "2.3 Simple parsing 4". Three or more dots
(spaced or not) followed by a page number at the end of the line, or a run of
five or more anywhere, count as a leader; an ellipsis in prose ("wait...")
does not, because it is neither that long nor followed by a page number.
"""

from __future__ import annotations

import re

_DOT = r"[.·•∙⋅…_]"
# Three or more leader dots (optionally spaced) before a trailing page number…
_LEADER_BEFORE_NUMBER = re.compile(
    rf"\s*(?:{_DOT}\s*){{3,}}(?=\s*(?:\d{{1,4}}|[ivxlcdm]{{1,7}})\s*$)", re.IGNORECASE)
# …or a long run anywhere (forms: "Name ........ Date").
_LONG_LEADER = re.compile(rf"\s*(?:{_DOT}\s?){{5,}}\s*")
# Both patterns need three leader characters with only spaces between them: a
# line without that (nearly every line) is left alone without running them.
_THREE_DOTS = re.compile(rf"{_DOT}\s*{_DOT}\s*{_DOT}")


def strip_leaders(line: str) -> tuple[str, int]:
    """The line with each leader replaced by one space, and how many were replaced."""
    if (line.isascii() and line.count(".") + line.count("_") < 3) or not _THREE_DOTS.search(line):
        return line, 0  # an ASCII line needs three "." or "_" (counted in C) to hold one
    text, before_number = _LEADER_BEFORE_NUMBER.subn(" ", line)
    text, long_runs = _LONG_LEADER.subn(" ", text)
    if not before_number and not long_runs:
        return line, 0
    return text.strip(), before_number + long_runs
