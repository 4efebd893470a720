"""A division's label atop its own page (a filing's certifications, one a page, each
under its exhibit's number) names the page, not the template; the same label repeated
atop the pages of one long exhibit is template."""

from __future__ import annotations

from furniture_pages import at, body_at, removed


def _filing_end(labels: list[str]) -> list[list]:
    """Pages of an exhibit section: each page's label top right, then its text (no folio)."""
    return [[at(label, 50.0, x0=545.0, x1=588.0, size=8.0), *body_at(p)]
            for p, label in enumerate(labels)]


def test_labels_of_one_exhibit_a_page_stay():
    """Intel's and Apple's 10-Qs end on three certifications, 'Exhibit 31.1', '31.2' and
    '32.1' each atop its page at one place: removed as a varying head, they left every
    certification under the exhibit before it."""
    pages = _filing_end(["Exhibit 31.1", "Exhibit 31.2", "Exhibit 32.1", "Exhibit 32.2"])
    assert removed(pages) == []


def test_a_long_exhibits_label_on_each_of_its_pages_goes():
    """One exhibit over four pages, its number atop each: template text. The pages after
    it, one exhibit each, keep theirs."""
    labels = ["Exhibit 10.1"] * 4 + ["Exhibit 31.1", "Exhibit 31.2"]
    pages = _filing_end(labels)
    assert removed(pages) == [(p, "Exhibit 10.1") for p in range(4)]


def test_a_varying_head_that_names_no_division_still_goes():
    """A head whose number changes from page to page without a division's keyword (a
    form's revision code) is template, as before."""
    pages = _filing_end([f"Form 10-Q rev. {n}.1" for n in range(4)])
    assert removed(pages) == [(p, f"Form 10-Q rev. {p}.1") for p in range(4)]


def test_a_head_naming_the_current_item_goes_where_its_heading_is_on_the_page():
    """Microsoft's 10-Q heads each page with its item ('Item 1A' over the risk factors'
    pages); 'Item 6' atop the one page of Item 6 is said once, but the page's heading
    'ITEM 6. EXHIBITS' names the item: the head is template, as on the other pages."""
    labels = ["Item 1A"] * 4 + ["Item 2", "Item 6"]
    pages = _filing_end(labels)
    for p, label in ((4, "ITEM 2. UNREGISTERED SALES OF EQUITY SECURITIES"),
                     (5, "ITEM 6. EXHIBITS")):
        pages[p].insert(1, at(label, 90.0, x0=72.0, x1=400.0, size=10.0))
    assert removed(pages) == [(p, label) for p, label in enumerate(labels)]
