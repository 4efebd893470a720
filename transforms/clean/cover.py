"""Cover sheets that repositories put in front of a paper (pure).

ResearchGate, JSTOR, HAL, institutional repositories and download portals
prepend a page of their own: the title once more, citation and download
counts, author profile links, terms of use. Its short lines ("CITATIONS",
"SEE PROFILE") read like headings and its links become chunks, and none of it
is the document. No strings are known in advance; a first page is such a
cover sheet when, by layout alone:

1. the document has at least ``MIN_PAGES`` pages;
2. the document starts again on page 2: a run of at least ``MIN_TITLE_WORDS``
   consecutive words among the first ``TOP_LINES`` lines of page 1 (the
   title) is found among the first ``TOP_LINES`` lines of page 2;
3. that run is not a running head: it is not found on any later page;
4. page 1 links somewhere: at least one of its lines is a URL or a link target;
5. page 1 is sparse: fewer than ``MAX_WORD_SHARE`` of the words of the median
   later page (a sheet of labels, counts and links, not a page of prose).

The sheet goes, but a line of it that carries the document's persistent
identifier (a DOI, an arXiv id, an ISBN or ISSN) stays, as a paragraph: the
identifier belongs to the document (people ask for it), whoever printed it.

A paper's own first page fails rule 2, 3 or 5 (its title is not printed again
at the top of page 2, or is printed on every page as a running head, and the
page is full of text); a book's half-title page fails rule 4.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MIN_PAGES = 3
MIN_TITLE_WORDS = 6
TOP_LINES = 20
MAX_WORD_SHARE = 0.6
_WORD = re.compile(r"\w+")
_URL = re.compile(r"https?://|www\.", re.IGNORECASE)
# DOI (with or without its label or resolver), arXiv id, ISBN, ISSN.
_IDENTIFIER = re.compile(r"\b10\.\d{4,9}/\S+|\barxiv:\s*\d{4}\.\d{4,5}|\bIS[BS]N\b",
                         re.IGNORECASE)


def carries_identifier(line: str) -> bool:
    """Whether a cover-sheet line names the document's persistent identifier."""
    return _IDENTIFIER.search(line) is not None


def _words(lines: Sequence[str]) -> list[str]:
    return [word.casefold() for line in lines for word in _WORD.findall(line)]


def _prose_words(lines: Sequence[str]) -> list[str]:
    """Words of the lines that hold no URL (a link's query string is no prose)."""
    return _words([line for line in lines if not _URL.search(line)])


def _runs(words: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def links_somewhere(lines: Sequence[str]) -> bool:
    """Rule 4: is one of a first page's lines a URL or a link target? (Asked first: a
    first page without one is no cover sheet whatever the other pages hold.)"""
    return any(_URL.search(line) for line in lines)


def is_cover_page(pages: Sequence[Sequence[str]]) -> bool:
    """Is ``pages[0]`` a repository's cover sheet? ``pages``: each page's lines."""
    if len(pages) < MIN_PAGES or not pages[0] or not pages[1]:
        return False
    if not links_somewhere(pages[0]):
        return False
    # Rule 2 before rule 5 (every rule must hold; this one reads two pages' tops, rule 5
    # every page's words).
    shared = (_runs(_words(pages[0][:TOP_LINES]), MIN_TITLE_WORDS)
              & _runs(_words(pages[1][:TOP_LINES]), MIN_TITLE_WORDS))
    if not shared:
        return False
    later_words = sorted(len(_prose_words(page)) for page in pages[1:])
    if len(_prose_words(pages[0])) >= MAX_WORD_SHARE * later_words[len(later_words) // 2]:
        return False
    later = _runs(_words([line for page in pages[2:] for line in page]), MIN_TITLE_WORDS)
    return bool(shared - later)
