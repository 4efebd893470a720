"""Link targets a web page's print writes after each link: "Official website
(https://www.supremecourt.gov/)", "… (http://www.playbill.com/news/article/…). Playbill.".

A browser printing a page (a print style sheet) writes an external link's URI in
parentheses after the link's words; the PDF keeps the same link as an annotation, which
extraction records as the page's links (``extract_links``) and never as text. The
printed copy is no words of the document: half of a printed encyclopedia article's
reference chunks are such URIs, which a reader skips and a retriever matches on their
path's words. So, in a document that has link annotations, a parenthesised absolute
URI is removed with the space before it; one that the line ends inside ("(http://…&com",
"(http") is removed to the line's end and its rest from the start of the next line, up
to the closing parenthesis ("mit.x=13&commit.y=13). TV Tango." → ". TV Tango."). A URI
written without parentheses ("Retrieved from https://…") is the page's own sentence
and stays.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# " (https://host/path)": a parenthesised absolute URI, no space inside.
_TARGET = re.compile(r"[ \t]*\((?:https?|ftp)://[^\s()]*(?:\([^\s()]*\)[^\s()]*)*\)")
# A line that ends inside one: its last "(" and what follows, no space ("(https://www.wa",
# "(ht").
_OPEN_TAIL = re.compile(r"[ \t]*\([^\s()]*$")
# What a following line holds of it: its start up to the closing parenthesis, or all of
# it where the target runs on.
_TARGET_PART = re.compile(r"^[^\s()]*\)?")
_WHOLE_TARGET = re.compile(r"^\((?:https?|ftp)://[^\s()]+\)$")
# Punctuation that closes the words a link target followed.
_CLOSING = re.compile(r"^[.,;:!?]+")
# The most lines a printed target runs over (a long archive link: three or four).
MAX_TARGET_LINES = 5


def strip_link_targets(lines: Sequence[str]) -> tuple[list[str], int]:
    """The lines without the printed link targets (module docstring), and how many were
    removed. A line may become empty (the caller drops it)."""
    out = list(lines)
    removed = 0
    for i, line in enumerate(out):
        if "(" not in line:
            continue
        if "://" in line:
            line, n = _TARGET.subn("", line)
            removed += n
            out[i] = line
        opened = _OPEN_TAIL.search(line)
        if opened is None:
            continue
        joined, cuts = opened.group().strip(), []
        for j in range(i + 1, min(i + MAX_TARGET_LINES, len(out))):
            part = _TARGET_PART.match(out[j])
            if part is None or (not part.group().endswith(")") and part.end() < len(out[j])):
                break  # text, not the rest of a link target
            joined += part.group()
            cuts.append((j, part.end()))
            if joined.endswith(")"):
                break
        if joined.endswith(")") and _WHOLE_TARGET.match(joined):
            for j, end in cuts:
                out[j] = out[j][end:]
            # Punctuation after it closes the link's words on their own line
            # ('"Season 2" (ht' / 'tps://…). TV Tango.' → '"Season 2".' / 'TV Tango.').
            last = cuts[-1][0]
            closing = _CLOSING.match(out[last])
            out[i] = line[:opened.start()] + (closing.group() if closing else "")
            if closing:
                out[last] = out[last][closing.end():].lstrip()
            removed += 1
    return out, removed
