"""Synthetic pages for the page-template tests: a line at a height, a page of body text
that never recurs in place, and what the template removes."""

from __future__ import annotations

from ragbeam.transforms.clean.furniture import PageLine, find_page_furniture

PAGE = (612.0, 792.0)
WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
         "kappa", "lambda", "omicron", "sigma", "tau", "upsilon", "omega")


def at(text: str, top: float, x0: float = 72.0, x1: float = 540.0, size: float = 10.0
       ) -> PageLine:
    return PageLine(text, box=(x0, top, x1, top + 0.8 * size), size=size)


def body_at(page: int, n: int = 12, top: float = 120.0) -> list[PageLine]:
    return [at(f"The {WORDS[page % 16]} part {page} discusses {WORDS[i]} at some length.",
               top + 14 * i) for i in range(n)]


def removed(pages: list[list[PageLine]]) -> list[tuple[int, str]]:
    """(page, text) of every line the template removes, in page order."""
    found = find_page_furniture(pages, [PAGE] * len(pages)).lines
    return sorted((p, pages[p][i].text) for p, i in found)
