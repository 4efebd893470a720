"""Contents pages and indexes: where a paged document lists itself (pure).

A printed table of contents repeats every heading of the document with a page
number; a back-of-book index lists every keyword with page numbers. Indexed as
text, they match every question's words and answer none; read as headings, a
contents entry becomes the parent of everything after it. They are found on the
printed lines, one page at a time, before lines are joined into paragraphs:

* a **contents page** has at least ``MIN_ENTRIES`` lines, and at least
  ``MIN_REFERENCE_SHARE`` of them end in a page reference (a number, or a
  lower-case roman one, after the entry's words: "Item 1A. Risk Factors 21",
  "Wi-Fi Direct 53") whose numbers mostly go up (``MIN_ASCENDING_SHARE`` of
  consecutive pairs: a contents page follows the document's order), or it has a
  contents title ("Contents", "Table of Contents", "目次", "Inhalt" …) and at
  least ``MIN_TITLED_ENTRIES`` such lines;
* an **index page** has at least ``MIN_INDEX_LINES`` lines, at least
  ``MIN_INDEX_SHARE`` of them ending in page references, numbers that do not
  go up (the entries are in alphabetical order) and at least
  ``MIN_LIST_SHARE`` of the references lists ("Wi-Fi, 53, 67", "printing 12–14").

On such a page the lines after its contents title (or from its first reference)
to its last reference are the contents; what a page prints above them (the
document's name, the contents title, which may be a heading over them only) or
below its last entry (the text starting) is not.
A table of figures in a report (numbers with thousands separators, amounts,
several numbers a line) is no contents page: a page reference is a plain
number after words, within the document's pages (``page_count`` and a margin).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from ragbeam.transforms.contents_title import is_contents_title

MIN_ENTRIES = 4
MIN_REFERENCE_SHARE = 0.5
MIN_ASCENDING_SHARE = 0.7
MIN_TITLED_ENTRIES = 3
MIN_INDEX_LINES = 8
MIN_INDEX_SHARE = 0.6
MIN_LIST_SHARE = 0.25
MAX_ENTRY_CHARS = 160
# Printed page numbers may run past the PDF's page count (a volume's pages start
# further on, front matter is numbered apart): by this many pages.
PAGE_NUMBER_MARGIN = 50
# A line's trailing page reference: words, then a number ("… Risk Factors 21"), a roman
# one ("Preface ix") or a list of them ("printing, 12, 45–47").
_REFERENCE_TAIL = (r"[\s,.:]\s*(?P<refs>(?:\d{1,4}|[ivxlc]{1,6})"
                   r"(?:\s*[-–]\s*\d{1,4})?(?:\s*,\s*\d{1,4}(?:\s*[-–]\s*\d{1,4})?)*)$")
_REFERENCE = re.compile(r"[^\W\d_].*?" + _REFERENCE_TAIL)
# Its end alone: a line it does not match has no match of the whole (which, failing,
# tries every letter of the line as its start and scans the rest from each).
_ENDS_IN_REFERENCE = re.compile(_REFERENCE_TAIL)
_ROMAN = re.compile(r"^[ivxlc]+$")
_ROMAN_DIGITS = frozenset("ivxlc")
_WORDISH = re.compile(r"[^\W\d_]{2,}")


def page_reference(text: str, max_page: int) -> tuple[int, bool] | None:
    """``(first page number, whether it is a list)`` of a line that ends in a page
    reference, or None. Roman numbers count as page 0 (front matter)."""
    last = text[-1:]  # the line's last character once its spaces collapse
    if last.isspace():  # (cleaned lines are trimmed: rarely)
        last = text.rstrip()[-1:]
    if not (last.isdecimal() or last in _ROMAN_DIGITS):
        # _REFERENCE ends in a digit or a roman one (no sentence end); searching a line
        # that does not costs a scan per letter of it (most lines of a document).
        return None
    text = " ".join(text.split())
    if len(text) > MAX_ENTRY_CHARS:
        return None
    match = _REFERENCE.search(text) if _ENDS_IN_REFERENCE.search(text) else None
    if match is None:
        return None
    refs = match.group("refs")
    if text[:match.start("refs")].rstrip(" ,.:")[-1:].isdigit():
        return None  # "Total 117,154", "EPS $ 2.61": a figure, not a page
    numbers = re.split(r"\s*[-–,]\s*", refs)
    first = numbers[0]
    if any(n.isdigit() and int(n) > max_page for n in numbers):
        return None
    number = 0 if _ROMAN.match(first) else int(first)
    return number, "," in refs or "–" in refs or "-" in refs


def _ascending_share(numbers: Sequence[int]) -> float:
    pairs = list(itertools.pairwise(numbers))
    if not pairs:
        return 1.0
    return sum(b >= a for a, b in pairs) / len(pairs)


def contents_lines(pages: Sequence[Sequence[str]], page_count: int | None = None) -> list[set[int]]:
    """For each page (its lines, in order), the indices of its lines that are a
    contents page's or an index's (module docstring)."""
    max_page = (page_count or len(pages)) + PAGE_NUMBER_MARGIN
    found: list[set[int]] = []
    for lines in pages:
        found.append(_page_contents(lines, max_page))
    return found


def _page_contents(lines: Sequence[str], max_page: int) -> set[int]:
    refs = {i: ref for i, line in enumerate(lines) if (ref := page_reference(line, max_page))}
    # A contents page set as a table puts each page number on a line of its own after
    # its entry ("Financial Statements" / "3"): the pair is one entry.
    for i, line in enumerate(lines):
        number = line.strip()
        if (i and number.isdigit() and len(number) <= 4 and int(number) <= max_page
                and i - 1 not in refs and _WORDISH.search(lines[i - 1])):
            refs[i] = (int(number), False)
    if len(refs) < MIN_TITLED_ENTRIES:
        return set()  # most pages: too few references to weigh the rest
    titles = [i for i, line in enumerate(lines) if is_contents_title(line)]
    entries = [line for i, line in enumerate(lines)
               if i not in titles and not (i in refs and i - 1 not in refs
                                           and lines[i].strip().isdigit())]
    numbers = [number for _, (number, _) in sorted(refs.items())]
    ascending = _ascending_share(numbers)
    share = len(refs) / max(len(entries), 1)
    contents = ((len(entries) >= MIN_ENTRIES and share >= MIN_REFERENCE_SHARE
                 and ascending >= MIN_ASCENDING_SHARE)
                or (titles and ascending >= MIN_ASCENDING_SHARE))
    index = (not contents and len(entries) >= MIN_INDEX_LINES and share >= MIN_INDEX_SHARE
             and ascending < MIN_ASCENDING_SHARE
             and sum(is_list for _, is_list in refs.values()) >= MIN_LIST_SHARE * len(refs))
    if not (contents or index):
        return set()
    first_ref, last_ref = min(refs), max(refs)
    # The lines between its title and its first entry ("Page", "Part I") are the
    # contents'; the title itself is left to heading detection (a heading over its
    # contents only: ``chunk.base.HeadingIndex``).
    start = min((i + 1 for i in titles if i < first_ref), default=first_ref)
    return set(range(start, last_ref + 1)) - set(titles)
