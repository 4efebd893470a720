"""The page-template model (``clean/furniture/template.py``) on PDFs made here, read by
real Tika and real PDFium and cleaned as a run cleans them: each kind of template the
model finds, and the user's text it must keep."""

from __future__ import annotations

import json

from ragbeam.transforms.types import BlockKind, Document

from pdfs import Text, body, cleaned, make_pdf, sentence


def page_text(doc: Document, page: int) -> str:
    return "\n".join(doc.text[s.start:s.end] for s in doc.spans if s.page == page)


def headings(doc: Document) -> list[str]:
    return [doc.text[s.start:s.end] for s in doc.spans if s.kind is BlockKind.HEADING]


def test_a_question_set_like_a_heading_atop_each_page_stays_and_heads_its_text():
    """Eight pages, each under a 14 pt bold ``Question N`` whose number follows the
    pages: the user's headings, not a running head; the page numbers go."""
    pages = [[Text(f"Question {p + 1}", 72, 740, 14, bold=True), *body(p),
              Text(str(p + 1), 300, 40, 9)] for p in range(8)]
    doc = cleaned(make_pdf(pages))
    assert headings(doc) == [f"Question {p + 1}" for p in range(8)]
    for p in range(8):
        text = page_text(doc, p + 1)
        assert text.startswith(f"Question {p + 1}") and sentence(p, 0) in text
    assert doc.metadata["clean_furniture_lines_removed"] == "8"  # the page numbers


def test_a_head_in_display_type_that_changes_its_case_only_is_one_running_head():
    """A fund's annual report heads its first pages with the fund's name in title case
    and its accounts' pages with it in capitals, both in display type over small print:
    its words do not vary from page to page, so it is no user's heading but a running
    head, and it goes on every page."""
    pages = [[Text("Harbour Fund" if p < 4 else "HARBOUR FUND", 72, 750, 18),
              *body(p), Text(str(p + 1), 300, 40, 9)] for p in range(12)]
    doc = cleaned(make_pdf(pages))
    for p in range(12):
        text = page_text(doc, p + 1)
        assert "harbour fund" not in text.casefold(), (p, text[:80])
        assert sentence(p, 0) in text


def test_recto_heads_that_change_with_the_chapter_and_chapter_tabs_go():
    """A handbook set two-sided: verso pages carry its title at the top left, recto
    pages the current chapter's title with the page number set tight against it
    (``Harbour Handbook5 | Preparation``), and a tab with the chapter's number at the
    outer edge. No chapter's head is on half the recto pages, nor on pages in a row."""
    chapters = ["Preparation"] * 6 + ["Operations"] * 6 + ["Review"] * 6
    pages = []
    for p, chapter in enumerate(chapters):
        number = p + 1
        recto = p % 2 == 0
        head = (Text(f"Harbour Handbook{number} | {chapter}", 330, 750, 9) if recto
                else Text(f"{number} | The Harbour Handbook", 72, 750, 9))
        tab_y = 600 - 40 * (p // 6)
        tab = Text(str(p // 6 + 1), 592 if recto else 8, tab_y, 12, bold=True)
        pages.append([head, *body(p), tab])
    doc = cleaned(make_pdf(pages))
    removed = json.loads(doc.metadata["clean_furniture_lines"])
    for p in range(len(chapters)):
        text = page_text(doc, p + 1)
        assert "Harbour Handbook" not in text, (p, text[:80])
        assert sentence(p, 0) in text and sentence(p, 13) in text
        assert [p + 1, str(p // 6 + 1)] in removed  # the tab
    assert all(chapter not in doc.text for chapter in set(chapters))


def test_a_statements_repeated_head_block_goes_and_its_title_stays():
    """A quarterly report's notes: the first page titled in 12 pt, the next pages under
    the same block repeated in the body's type (company, ``… (Continued)``,
    ``(Unaudited)``)."""
    title = "NOTES TO CONDENSED CONSOLIDATED FINANCIAL STATEMENTS"
    first = [Text("HARBOUR HOLDINGS INC.", 200, 750, 10, bold=True),
             Text(title, 120, 734, 12, bold=True), Text("(Unaudited)", 270, 720, 10),
             *body(0, top=690), Text("1", 300, 40, 9)]
    pages = [first] + [[Text("HARBOUR HOLDINGS INC.", 200, 750, 10, bold=True),
                        Text(f"{title} (Continued)", 110, 736, 10, bold=True),
                        Text("(Unaudited)", 270, 722, 10), *body(p, top=690),
                        Text(str(p + 1), 300, 40, 9)] for p in range(1, 15)]
    doc = cleaned(make_pdf(pages))
    assert "(Continued)" not in doc.text and "HARBOUR HOLDINGS" not in doc.text
    assert doc.text.startswith(title) and doc.text.count(title) == 1
    assert all(sentence(p, 0) in page_text(doc, p + 1) for p in range(15))


def test_link_annotations_are_never_text_and_are_kept_as_the_pages_links():
    # The template's link on every page and a link cited once: neither is body text
    # (issue 38), both are kept in metadata with their page.
    support, cited = "https://harbour.example/support", "https://harbour.example/tide-tables"
    pages = [[*body(p), Text(f"Harbour data sheet page {p + 1}", 72, 40, 8)] for p in range(6)]
    links = [[support] + ([cited] if p == 2 else []) for p in range(6)]
    doc = cleaned(make_pdf(pages, links))
    assert support not in doc.text
    assert cited not in doc.text
    kept = doc.metadata["extract_links"]
    assert support in kept and cited in kept
