"""Template lines whose text varies from page to page (issue39-i): a foot naming the
current section, a head naming a section whose title is set over two lines or before a
sub-section of its size, a chapter's label on the head's row, a footline that states the
page out of the document's count."""

from __future__ import annotations

from furniture_pages import PAGE, WORDS, at, body_at, removed

from ragbeam.transforms.clean.furniture import PageLine, find_page_furniture


def test_a_footline_with_its_page_out_of_the_documents_count_goes_on_a_two_slide_deck():
    """A Beamer deck of two slides: the title slide carries no footline, so nothing
    recurs; ``2 / 2`` says the page's number out of the document's count."""
    slide = (362.8, 272.1)
    foot = "Jane Roe (jane@example.org) Short title September 28, 2023 2 / 2"
    pages = [[PageLine("A beamer template for presentations", box=(37, 116, 330, 126), size=14),
              PageLine("Jane Roe", box=(153, 138, 212, 145), size=10)],
             [PageLine("Test frame", box=(9, 9, 77, 19), size=14),
              PageLine("Hello world, this is the frame's text.", box=(12, 63, 200, 71), size=10),
              PageLine(foot, box=(11, 265, 356, 269), size=6)]]
    found = find_page_furniture(pages, [slide, slide]).lines
    assert {(p, pages[p][i].text) for p, i in found} == {(1, foot)}
    # Another page's number, or another count, says no page of this document.
    for other in ("Short title September 28, 2023 1 / 2", "Short title 2023 2 / 3"):
        pages[1][2] = pages[1][2]._replace(text=other)
        assert not find_page_furniture(pages, [slide, slide]).lines


def _section_foot(p: int, sections: list[str], placed: bool = True) -> PageLine:
    # The pages TI translated say the copyright in their language.
    text = (f"{sections[p]} {'版权' if p < 4 else 'Copyright'} © 2009–2018, Harbour "
            "Instruments Incorporated")
    if not placed:  # Tika fuses the two; PDFium does not place the line
        return PageLine(text.replace(" Copyright", "Copyright"))
    return at(text, 741.0, x0=85.0, x1=557.0, size=8.0)


def test_a_foot_naming_the_current_section_goes_on_every_section_and_unplaced():
    """A data sheet's foot names the current section beside the copyright: a short
    section's text is on two pages only, and where the English foot stands, the
    translated pages set another text in its place (four pages against sixteen). On odd
    pages PDFium does not place the foot (Tika gives it last): there it goes as its
    page's outermost line."""
    names = ["Device Overview", "Terminal Functions", "Specifications", "Detailed Description"]
    sections = [name for name, pages in zip(names, (2, 4, 8, 6), strict=True)
                for _ in range(pages)]
    pages = []
    for p in range(len(sections)):
        heading = ([at(f"{names.index(sections[p]) + 1} {sections[p]}", 80.0, size=14.0)]
                   if p == 0 or sections[p - 1] != sections[p] else [])
        lines = [at(f"Harbour data sheet {p % 3}", 20.0, size=8.0), *heading, *body_at(p)]
        odd = p % 2 == 1
        lines.append(at(str(p + 1), 742.0, x0=550.0 if odd else 55.0,
                         x1=556.0 if odd else 61.0, size=8.0))
        lines.append(_section_foot(p, sections, placed=not odd))
        pages.append(lines)
    gone = removed(pages)
    assert [p for p in range(len(pages)) if (p, pages[p][-1].text) not in gone] == []
    assert not any("discusses" in text or (text[:1].isdigit() and " " in text)
                   for _, text in gone)


def test_a_recto_head_names_a_section_whose_title_a_sub_title_of_its_size_follows():
    """Annual accounts: verso heads the report's name, recto heads the section's name;
    a section opens with its name and at once a sub-title of the same size, or sets its
    name over two lines: the head still says a title opened before it."""
    titles = [["Balance sheet 2021"], ["Notes to the accounts"],
              ["Governing bodies", "Board of trustees"],
              ["Opinion of the independent", "auditor of the accounts"]]
    heads = ["Balance sheet 2021", "Notes to the accounts", "Governing bodies",
             "Opinion of the independent auditor of the accounts"]
    pages = []
    for p in range(8):
        section = p // 2
        opening = ([at(text, 70.0 + 30 * k, size=28.0) for k, text in enumerate(titles[section])]
                   if p % 2 == 0 else [])
        head = (at("ANNUAL ACCOUNTS 2021", 31.0, x0=42.0, x1=158.0, size=9.0) if p % 2 == 0
                else at(heads[section], 31.0, x0=300.0, x1=552.0, size=9.0))
        folio = at(str(p + 2), 801.0, x0=43.0 if p % 2 == 0 else 542.0,
                    x1=50.0 if p % 2 == 0 else 552.0, size=9.0)
        pages.append([head, *opening, *[line._replace(size=9.0) for line in body_at(p, top=150.0)],
                      folio])
    gone = removed(pages)
    assert [(p, text) for p, text in gone if p % 2 and not text.isdigit()] == [
        (p, heads[p // 2]) for p in range(1, 8, 2)]
    assert not any(text in {t for ts in titles for t in ts} and pages[p][0].text != text
                   for p, text in gone)


def test_a_chapters_label_on_the_heads_row_in_its_type_goes_wherever_along_the_row():
    """An annual report's head: the chapter's label at the left of odd pages, the
    spread's folio at the right of even ones, both in the head's small type on one row;
    each label's text once. The text's first line, in the text's type, stays."""
    pages = []
    for p in range(12):
        if p % 2:
            head = at(f"{p - 1:02d} | {p:02d}", 55.0, x0=547.0, x1=567.0, size=6.0)
        else:
            head = at(f"Chapter label {WORDS[p]}", 55.0, x0=149.0, x1=240.0, size=6.0)
        pages.append([head, *[line._replace(size=9.0) for line in body_at(p)]])
    gone = removed(pages)
    assert [(p, text) for p, text in gone if p % 2 == 0] == [
        (p, f"Chapter label {WORDS[p]}") for p in range(0, 12, 2)]
    assert not any("discusses" in text for _, text in gone)


def test_a_spreads_folio_run_into_the_chapters_label_goes_a_heading_after_a_number_stays():
    """Tika runs the spread's folio into the label beside it (``08 | 09Software``),
    where PDFium placed neither: the line opens with the folio as the other pages set
    it, the page's numbers at their offsets, and goes on with a short label. A line
    whose number is no folio of its page, or that goes on with a sentence, stays."""
    pages = []
    for p in range(10):
        head = f"{p:02d} | {p + 1:02d}" + ("" if p % 2 else f"Label {WORDS[p]}")
        pages.append([PageLine(head), *(PageLine(line.text) for line in body_at(p))])
    pages[4][0] = PageLine("03 | 05Label epsilon")  # no folio of page 5's
    pages[6][0] = PageLine("06 | 07The text opens here and says more than a label does.")
    found = find_page_furniture(pages).lines
    assert sorted((p, pages[p][i].text) for p, i in found) == [
        (p, pages[p][0].text) for p in (0, 1, 2, 3, 5, 7, 8, 9)]


def test_a_portrait_documents_landscape_pages_carry_their_own_head_no_slide_title():
    """A data sheet's package addendum: four landscape pages of tables after twelve
    portrait ones, headed ``PACKAGE OPTION ADDENDUM`` in display type. Landscape pages
    are slides only in a deck (half its pages landscape or more): the head goes."""
    landscape = (792.0, 612.0)
    pages, sizes = [], []
    for p in range(16):
        if p < 12:
            pages.append([at(f"Data sheet {WORDS[p]} part", 20.0, size=8.0),
                          *[line._replace(size=8.0) for line in body_at(p)]])
            sizes.append(PAGE)
        else:
            pages.append([at("PACKAGE OPTION ADDENDUM", 16.0, x0=300.0, x1=520.0, size=14.0),
                          at("www.harbour.com 15-Nov-2019", 71.0, x0=37.0, x1=760.0, size=8.0),
                          *[line._replace(size=8.0) for line in body_at(p)]])
            sizes.append(landscape)
    found = find_page_furniture(pages, sizes).lines
    gone = {(p, pages[p][i].text) for p, i in found}
    assert {(p, "PACKAGE OPTION ADDENDUM") for p in range(12, 16)} <= gone
    assert not any("discusses" in text for _, text in gone)
