"""Heading paths of SEC filings and the plans and exhibits they carry (issue 38): a
contents page never becomes a parent and ends the front matter; a form's answer, a
cross-reference and a table's cell are never headings; an exhibit or appendix starts its
own path, numbered or not. Synthetic cases only (``chunk/base.HeadingIndex``,
``clean/headings.py``, ``clean/linejoin.py``)."""

from __future__ import annotations

from made_pdfs import PROSE as PROSE_TEXT

from ragbeam.transforms.chunk.base import HeadingIndex
from ragbeam.transforms.clean.base import Assembly, CleanLine
from ragbeam.transforms.clean.headings import (
    BodyStyle,
    HeadingBlock,
    RowIndex,
    _following_text,
    _is_text,
    _join_division_titles,
    division_heading,
    find_headings,
    find_styled_headings,
    heading_level,
    is_answer,
    reference_ends_sentence,
    split_heading_lines,
)
from ragbeam.transforms.clean.linejoin import LineBreak, classify_line_break
from ragbeam.transforms.types import (
    BlockKind,
    Document,
    LineStyle,
    PdfLayout,
    SourceFile,
    TextSpan,
)

BODY = None  # a multi-line paragraph


def _document(blocks: list[tuple[str, BlockKind, int, int]]) -> Document:
    """(text, kind, level, page) per block."""
    text, spans, cursor = "", [], 0
    for body, kind, level, page in blocks:
        if text:
            text += "\n\n"
            cursor += 2
        spans.append(TextSpan(cursor, cursor + len(body), kind, page=page, level=level))
        text += body
        cursor += len(body)
    return Document(SourceFile("/in/x.pdf", "x", 1), "h", "application/pdf", text,
                    tuple(spans))


H, P, C = BlockKind.HEADING, BlockKind.PARAGRAPH, BlockKind.CONTENTS


def test_a_documents_first_contents_page_ends_its_front_matter():
    # A filing's cover sheet: its lines head the cover, nothing after the contents page.
    doc = _document([("FORM 10-K", H, 2, 1), (PROSE_TEXT, P, 0, 1),
                     ("DOCUMENTS INCORPORATED BY REFERENCE", H, 5, 1), (PROSE_TEXT, P, 0, 1),
                     ("TABLE OF CONTENTS", H, 4, 2), ("Item 1. Business 4", C, 0, 2),
                     ("Item 7. Review 30", C, 0, 2),
                     ("DEFINED TERMS", H, 5, 3), ("Harbour: the port", P, 0, 3),
                     ("PART I", H, 1, 4), ("Item 1. Business", H, 2, 4), (PROSE_TEXT, P, 0, 4)])
    index = HeadingIndex(doc)
    assert index.path_at(doc.text.index("DOCUMENTS")) == ("FORM 10-K",
                                                          "DOCUMENTS INCORPORATED BY REFERENCE")
    assert index.path_at(doc.text.index("Harbour:")) == ("DEFINED TERMS",)
    assert index.path_at(len(doc.text) - 1) == ("PART I", "Item 1. Business")
    # Text after the contents before any heading is under none of the cover's lines.
    doc = _document([("FORM 10-Q", H, 2, 1), (PROSE_TEXT, P, 0, 1), ("FORM 10-Q", H, 5, 2),
                     ("For the Quarterly Period Ended September 30", P, 0, 2),
                     ("Item 1. Statements 3", C, 0, 2), ("Item 2. Review 21", C, 0, 2),
                     ("Net sales 1,234 5,678", P, 0, 3)])
    assert HeadingIndex(doc).path_at(len(doc.text) - 1) == ()
    # A later contents page (an exhibit's own) ends nothing: the exhibit holds its articles.
    doc = _document([("FORM 10-K", H, 1, 1), ("Item 1. Business 4", C, 0, 2),
                     ("Item 7. Review 30", C, 0, 2), ("Item 1. Business", H, 2, 3),
                     (PROSE_TEXT, P, 0, 3), ("Exhibit 10.1", H, 1, 40),
                     ("January 1, 2022 Restatement", P, 0, 40),
                     ("ARTICLE I Foreword 1", C, 0, 41), ("ARTICLE II Terms 4", C, 0, 41),
                     ("ARTICLE I Foreword", H, 2, 42), (PROSE_TEXT, P, 0, 42)])
    assert HeadingIndex(doc).path_at(len(doc.text) - 1) == ("Exhibit 10.1",
                                                            "ARTICLE I Foreword")


def test_a_sections_heading_over_its_own_contents_stays_the_parent_of_its_text():
    # "Item 7." over the first of its subheadings and then its own list of contents: the
    # subheading heads the list (a contents entry set as a heading), Item 7 the section.
    doc = _document([("PART I", H, 1, 1), (PROSE_TEXT, P, 0, 1),
                     ("PART II", H, 1, 30), ("Item 7. Review", H, 2, 31),
                     ("OUR BUSINESS", H, 4, 31), ("Executive Overview 32", C, 0, 31),
                     ("Our Risks 33", C, 0, 31), ("OUR BUSINESS", H, 4, 32),
                     ("Executive Overview", H, 5, 32), (PROSE_TEXT, P, 0, 32)])
    assert HeadingIndex(doc).path_at(len(doc.text) - 1) == (
        "PART II", "Item 7. Review", "OUR BUSINESS", "Executive Overview")
    # A contents title heads its contents only, whatever heading follows it there.
    doc = _document([("Contents", H, 1, 2), ("Part One", H, 2, 2), ("Cranes 3", C, 0, 2),
                     ("Quays 4", C, 0, 2), ("Cranes", H, 2, 3), (PROSE_TEXT, P, 0, 3)])
    assert HeadingIndex(doc).path_at(len(doc.text) - 1) == ("Cranes",)


def test_a_forms_answer_is_no_heading():
    for answer in ("None", "NONE", "N/A", "Not applicable.", "Yes", "No"):
        assert is_answer(answer), answer
        assert heading_level(answer) is None, answer
    for heading in ("Nonetheless Matters", "Notes", "Nominations"):
        assert not is_answer(heading), heading


def test_a_bare_reference_that_ends_a_running_sentence_is_joined_to_it():
    line = "Disability Retirement Pension: The Retirement Pension available to a Participant under"
    assert reference_ends_sentence(line, "Section 4.5.")
    for same_block in (True, False):
        for full_width in (True, False):
            assert classify_line_break(line, "Section 4.5.", same_block=same_block,
                                       full_width=full_width) is LineBreak.SPACE
    # The last line of a paragraph of several, however short.
    assert classify_line_break("Participant under", "Section 5.2.", same_block=False,
                               full_width=False, in_paragraph=True) is LineBreak.SPACE
    # A heading after a sentence's end, a titled one, one without its full stop, or after
    # a short line of its own (a heading's title) stays apart.
    assert not reference_ends_sentence("The plan pays the pension described below.",
                                       "Section 4.5.")
    assert not reference_ends_sentence(line, "Section 4.5 Death Benefits")
    assert not reference_ends_sentence(line, "ARTICLE IV")
    assert not reference_ends_sentence("Definitions and construction", "Section 2.1.")
    assert classify_line_break("Definitions and construction", "Section 2.1.",
                               same_block=False, full_width=False) is LineBreak.PARAGRAPH


def test_a_reference_after_see_goes_on_with_its_sentence_title_and_all():
    """A 10-K's MD&A: "… See" at a line's end, then "Note 5 ‘‘Goodwill and Other
    Intangibles’’ included in Item 8 …": the note's name read as a heading, which then
    headed the rest of the section (226 chunks)."""
    line = ("• During 2021, the Company recorded a $431 million goodwill impairment charge "
            "related to the LTC reporting unit within the Retail/LTC segment. See")
    reference = ("Note 5 ‘‘Goodwill and Other Intangibles’’ included in Item 8 of this 10-K for "
                 "additional information.")
    assert reference_ends_sentence(line, reference)
    assert classify_line_break(line, reference, same_block=False,
                               full_width=False) is LineBreak.SPACE
    assert reference_ends_sentence("Die Leistung wird nach dem Plan berechnet, siehe",
                                   "Abschnitt 4 Leistungen")
    # A heading after a finished sentence, or after a short line "See", stays apart.
    assert not reference_ends_sentence(line.removesuffix(" See"), reference)
    assert not reference_ends_sentence("See", "Note 5 Goodwill")
    assert not reference_ends_sentence(line, "The goodwill was written off in 2021.")


def test_an_unnumbered_appendix_or_exhibit_starts_its_own_path():
    assert division_heading("APPENDIX") == (1, 1)
    assert division_heading("Exhibit") == (1, 1)
    assert division_heading("APPENDIX ARTICLE C") == (1, 1)
    assert division_heading("APPENDIX ARTICLE PBG") == (1, 1)
    assert division_heading("Appendix of Harbour Tonnage") is None  # a title, no division
    assert division_heading("Schedule of Investments") is None
    paragraphs = ["Exhibit 10.7 HARBOUR RETIREMENT PLAN", BODY, "ARTICLE IX – MISCELLANEOUS",
                  BODY, "ARTICLE X – SIGNATURE", BODY, "APPENDIX", BODY,
                  "Exhibit 10.10 HARBOUR PENSION PLAN", BODY, "ARTICLE I – Foreword", BODY,
                  "APPENDIX ARTICLE C", BODY, "Transfers Between Plans", BODY]
    levels = {paragraphs[i]: level for i, level in find_headings(paragraphs).items()}
    # Its own path beside the articles before it, under the exhibit that carries it
    # (``test_an_appendix_after_an_exhibit_is_the_exhibits``).
    assert levels["Exhibit 10.7 HARBOUR RETIREMENT PLAN"] == 1
    assert levels["APPENDIX"] == levels["ARTICLE X – SIGNATURE"] == 2
    assert levels["APPENDIX ARTICLE C"] == 2
    assert levels["Transfers Between Plans"] > 2


def _line(text: str, x0: float, top: float, x1: float, size: float = 10.8,
          kind: BlockKind = BlockKind.PARAGRAPH, page: int = 7) -> CleanLine:
    style = LineStyle(0, 0, page, x0, top, x1, top + size, size, False, font="Sans")
    return CleanLine(text, kind, 0, page, 0, 0, 0, style=style)


def test_a_tables_header_cell_is_no_divisions_title_and_a_title_is_taken_whole():
    # "SCHEDULE 1" over a table: "Date" (its first header cell, at the table's left edge)
    # is read before the row's other cells, which are printed above it.
    assembly = Assembly([[("", _line("SCHEDULE 1", 263, 180, 331))],
                         [("", _line("Date", 173, 214, 196))],
                         [("", _line("Mortality Table Factors Interest Rate", 292, 202, 489))],
                         [("", _line(PROSE_TEXT, 86, 240, 558))]])
    assert _join_division_titles(assembly, {0: 1}) == {0: 1}
    assert [line.text for _, line in assembly.blocks[0]] == ["SCHEDULE 1"]
    # An exhibit's number in its corner, its title centred under it over two lines in
    # one style: the whole title joins the number; the plan's acronym in brackets not.
    assembly = Assembly([[("", _line("Exhibit 10.10", 513, 80, 577))],
                         [("", _line("HARBOUR", 274, 244, 321))],
                         [("", _line("PENSION EQUALIZATION PLAN", 216, 280, 379))],
                         [("", _line("(PEP)", 283, 315, 311))],
                         [("", _line(PROSE_TEXT, 86, 360, 558))]])
    found = _join_division_titles(assembly, {0: 1, 2: 5})
    assert found == {0: 1}
    assert " ".join(line.text for _, line in assembly.blocks[0]) == (
        "Exhibit 10.10 HARBOUR PENSION EQUALIZATION PLAN")
    assert assembly.blocks[1][0][1].text == "(PEP)"


def _block(text: str, size: float = 9.0, font: str = "Sans", lines: int = 1,
           prose: bool = False) -> HeadingBlock:
    style = LineStyle(0, 0, 50, 35, 80, 400, 89, size, False, font=font)
    return HeadingBlock(text, prose, lines, style, True)


def test_a_reports_salutation_is_the_text_its_title_heads():
    body = BodyStyle(9.0, "Sans", False)
    blocks = [_block("Report of Independent Registered Public Accounting Firm", font="Sans-Bold"),
              _block("To the Board of Directors and Shareholders of Harbour Cranes Inc.",
                     prose=True),
              _block(PROSE_TEXT, lines=4, prose=True)]
    assert _is_text(blocks[1], body)
    assert _following_text(blocks, 0, {0}, body) is blocks[1]
    # A line of its own in the body's type that addresses no one is no text.
    assert not _is_text(_block("Harbour Cranes Inc. and Subsidiaries", prose=True), body)


def test_a_paragraph_that_gives_a_link_is_text_a_list_of_addresses_is_not():
    """An earnings release's "Conference Call Details" over a paragraph that ends on its
    investor site's address was no heading (any link made a block an address list)."""
    body = BodyStyle(9.0, "Sans", False)
    call = ("MGM Resorts will host a conference call at 5:00 p.m. Eastern Time today, which "
            "will include a brief discussion of the results followed by a question and answer "
            "session. Slides will be posted on the Investor Relations website at "
            "http://investors.example.com.")
    assert _is_text(_block(call, lines=3, prose=True), body)
    blocks = [_block("Conference Call Details", font="Sans-Bold"),
              _block(call, lines=3, prose=True)]
    assert _following_text(blocks, 0, {0}, body) is blocks[1]
    # A name's e-mail address and page under it are no text.
    for contact in ("jane.roe@example.org https://example.org/~jane",
                    "Jane Roe, Harbour University, jane.roe@example.org"):
        assert not _is_text(_block(contact, lines=2, prose=True), body)


def test_a_part_over_its_first_item_set_alike_is_a_heading():
    body = BodyStyle(9.0, "Sans", False)
    blocks = [_block(PROSE_TEXT, lines=4, prose=True),
              _block("Part IV", size=10.0, font="Sans-Bold"),
              _block("Item 15. Exhibits and Financial Statement Schedules", size=10.0,
                     font="Sans-Bold"),
              _block(PROSE_TEXT, lines=4, prose=True)]
    assert _following_text(blocks, 1, {1, 2}, body) is blocks[3]
    # Two items in a row set alike are a list, not a heading over the other.
    blocks[1] = _block("Item 14. Fees", size=10.0, font="Sans-Bold")
    assert _following_text(blocks, 1, {1, 2}, body) is None


def test_an_items_first_section_under_the_parts_heading_is_a_heading():
    """An annual report opens Part I with "PART I" / "ITEM 1. BUSINESS" / "Company
    Overview", all in the same bold: the item's first section is no list's last label
    (the part's heading kept as the page's, where it was a running head before)."""
    body = BodyStyle(9.0, "Sans", False)
    bold = {"size": 10.0, "font": "Sans-Bold"}
    blocks = [_block(PROSE_TEXT, lines=4, prose=True), _block("PART I", **bold),
              _block("ITEM 1. BUSINESS", **bold), _block("Company Overview", **bold),
              _block(PROSE_TEXT, lines=4, prose=True)]
    assert _following_text(blocks, 3, {1, 2, 3}, body) is blocks[4]
    # Three labels set alike with no part over them are still a list.
    blocks[1] = _block("Harbour Cranes", **bold)
    assert _following_text(blocks, 3, {1, 2, 3}, body) is None


def test_a_term_beside_its_definition_is_a_row_not_a_heading():
    """A filing's "Defined Terms": each term in italics at the left, its definition as
    running text beside it, starting in the page's left half. The term shares its row
    with text: a cell, never a heading. A heading over text below it does not."""
    def line(text: str, x0: float, top: float, x1: float) -> CleanLine:
        return CleanLine(text, BlockKind.PARAGRAPH, 0, 3, 0, 0, 0,
                         style=LineStyle(0, 0, 3, x0, top, x1, top + 7, 7.1, False,
                                         font="Sans"))
    prose = PROSE_TEXT.split(". ")[0]
    term = line("ACA (also referred to as Harbour Legislation)", 18, 172, 147)
    heading = line("Harbour Operations", 18, 100, 120)
    assembly = Assembly([
        [("", heading)],
        [("", line(prose, 18, 110, 590)), (" ", line(prose, 18, 119, 590)),
         (" ", line(prose, 18, 128, 590))],
        [("", term)],
        [("", line(prose, 159, 172, 519)), (" ", line(prose, 159, 181, 519)),
         (" ", line(prose, 159, 190, 519))],
    ])
    rows = RowIndex(assembly, PdfLayout(((612.0, 792.0),) * 3, ()), BodyStyle(7.1, "Sans", False))
    assert rows.shares_row(term.style)
    assert not rows.shares_row(heading.style)


def test_a_term_set_a_little_off_its_definitions_row_is_still_a_cell():
    """A glossary's term printed a point lower than its one-line definition (no overlap
    at all) is in its row; a figure's smaller label as near a heading is not."""
    def line(text: str, x0: float, top: float, x1: float, size: float = 7.1) -> CleanLine:
        return CleanLine(text, BlockKind.PARAGRAPH, 0, 4, 0, 0, 0,
                         style=LineStyle(0, 0, 4, x0, top, x1, top + size * 0.75, size,
                                         False, font="Sans"))
    prose = PROSE_TEXT.split(". ")[0]
    term = line("HRC", 18, 563.9, 38)
    definition = line("Harbour Regulatory Committee", 160, 557.5, 313)
    heading = line("Workflow", 36, 136.6, 82, size=10.0)
    label = line("Build server", 230, 146.0, 324, size=7.3)
    assembly = Assembly([[("", line(prose, 18, 520, 590)), (" ", line(prose, 18, 530, 590)),
                          (" ", line(prose, 18, 540, 590))],
                         [("", term)], [("", definition)],
                         [("", heading)], [("", label)]])
    rows = RowIndex(assembly, PdfLayout(((612.0, 792.0),) * 4, ()),
                    BodyStyle(7.1, "Sans", False))
    assert rows.shares_row(term.style)
    assert not rows.shares_row(heading.style)
    # A label inside a table (not at the text column's left edge) keeps to the rows it
    # overlaps: a catalogue's group label a little off its items' row is left alone.
    inner = line("Recovery Media", 90, 563.9, 140)
    assembly.blocks[1] = [("", inner)]
    rows = RowIndex(assembly, PdfLayout(((612.0, 792.0),) * 4, ()),
                    BodyStyle(7.1, "Sans", False))
    assert not rows.shares_row(inner.style)


def test_a_heading_at_the_page_edge_left_of_its_columns_bullets_is_no_row():
    """A two-column paper's page of bullets: most left-column lines start indented at
    75 pt, the section heading at the text edge (56 pt), level with the right column's
    formula pieces and text. The heading is in the left column, not in their row."""
    def line(text: str, x0: float, top: float, x1: float, font: str = "Times") -> CleanLine:
        return CleanLine(text, BlockKind.PARAGRAPH, 0, 5, 0, 0, 0,
                         style=LineStyle(0, 0, 5, x0, top, x1, top + 7, 10.0, False,
                                         font=font))
    prose = PROSE_TEXT.split(". ")[0]
    bullets = [[("", line(prose, 75, 100 + 40 * k, 289)), (" ", line(prose, 75, 110 + 40 * k,
                                                                     289))]
               for k in range(6)]
    right = [[("", line(prose, 308, 100 + 40 * k, 542)), (" ", line(prose, 308, 110 + 40 * k,
                                                                    542))]
             for k in range(6)]
    heading = line("3.2. Construct Thought Cards via MCTS", 56, 618, 229, font="Times-Bold")
    formula = line("Q", 353, 616, 383, font="CMMI10")
    assembly = Assembly([*bullets, *right, [("", heading)], [("", formula)],
                         [("", line(prose, 56, 637, 289)), (" ", line(prose, 56, 647, 289))]])
    rows = RowIndex(assembly, PdfLayout(((612.0, 792.0),) * 5, ()),
                    BodyStyle(10.0, "Times", False))
    assert rows.column_starts[5] == (75, 308)
    assert not rows.shares_row(heading.style)


def _styled(text: str, x0: float, top: float, page: int = 5, size: float = 9.0,
            font: str = "Sans-Bold", kind: BlockKind = BlockKind.PARAGRAPH) -> CleanLine:
    style = LineStyle(0, 0, page, x0, top, x0 + 6 * len(text), top + size, size, False,
                      font=font)
    return CleanLine(text, kind, 0, page, 0, 0, 0, style=style)


def test_headings_run_into_one_block_are_cut_apart():
    # A 10-Q's part and item over its first statement, one block as assembled.
    part = [("", _styled("PART I. FINANCIAL INFORMATION", 230, 63)),
            (" ", _styled("Item 1. Financial Statements", 240, 74))]
    title = [("", _styled("CONSOLIDATED BALANCE SHEETS", 229, 104)),
             (" ", _styled("(in millions, except per share data)", 230, 115)),
             (" ", _styled("(unaudited)", 250, 126))]
    assembly = Assembly([part, title])
    assert split_heading_lines(assembly) == 2
    assert [[line.text for _, line in block] for block in assembly.blocks] == [
        ["PART I. FINANCIAL INFORMATION"], ["Item 1. Financial Statements"],
        ["CONSOLIDATED BALANCE SHEETS"],
        ["(in millions, except per share data)", "(unaudited)"]]
    assert all(block[0][0] == "" for block in assembly.blocks)
    # Not cut: two items of one rank (a list), a sentence over a bracket, a title over a
    # line of text, lines in two styles, a long bracketed caption.
    for lines in (["Item 1. Financial Statements", "Item 2. Properties"],
                  ["The figures below are audited.", "(unaudited)"],
                  ["Consolidated Balance Sheets", "as of the quarter's end"],
                  ["CONSOLIDATED BALANCE SHEETS",
                   "(Exact name of the harbour's operator as set out in its charter)"]):
        block = [("" if n == 0 else " ", _styled(text, 230, 100 + 11 * n))
                 for n, text in enumerate(lines)]
        assembly = Assembly([block])
        assert split_heading_lines(assembly) == 0, lines
    mixed = [("", _styled("CONSOLIDATED BALANCE SHEETS", 229, 104)),
             (" ", _styled("(unaudited)", 250, 115, font="Sans"))]
    assert split_heading_lines(Assembly([mixed])) == 0


def _page_block(text: str | None, top: float, page: int = 5, font: str = "Sans-Bold",
                lines: int = 1, prose: bool = False, table: bool = False) -> HeadingBlock:
    style = LineStyle(0, 0, page, 220, top, 380, top + 9, 9.0, False, font=font)
    return HeadingBlock(text, prose, lines, style, True, page_height=792.0, table=table)


def test_a_statements_title_over_the_table_filling_its_page_is_a_heading():
    body = BodyStyle(9.0, "Sans", False)
    text = _page_block(PROSE_TEXT, 600, page=4, font="Sans", lines=6, prose=True)
    title = _page_block("Consolidated Statements of Income", 84)
    units = _page_block("(In millions, except per share data)", 95)
    table = _page_block(None, 120, font="Sans", lines=30, table=True)
    found = find_styled_headings([text, title, units, table], body)
    assert 1 in found and 2 not in found
    # After its page's part and item headings, too.
    item = _page_block("Item 1. Financial Statements", 60)
    assert 2 in find_styled_headings([text, item, title, units, table], body)
    # A table's caption within the page's text, or one low on its page, is no page title.
    for blocks in ([text, _page_block(PROSE_TEXT, 60, font="Sans", lines=3, prose=True),
                    title, units, table],
                   [text, title._replace(style=title.style._replace(top=400, bottom=409)),
                    units, table]):
        assert find_styled_headings(blocks, body).get(len(blocks) - 3) is None
    # A title over no table on its page is not one by this rule, nor two headings run
    # into one block, nor a line in neither title case nor capitals.
    later = table._replace(style=table.style._replace(page=6))
    assert 1 not in find_styled_headings([text, title, units, later], body)
    joined = title._replace(text="2. Condensed Statements (1) Condensed Balance Sheet",
                            lines=2)
    assert 1 not in find_styled_headings([text, joined, units, table], body)
    for other in ("出荷時のメモリ実装状態一覧", "shipping memory list by model"):
        assert 1 not in find_styled_headings([text, title._replace(text=other), units,
                                              table], body), other


def test_an_appendix_after_an_exhibit_is_the_exhibits():
    paragraphs = ["PART IV", BODY, "Item 15. Exhibits", BODY,
                  "Exhibit 10.7 HARBOUR RETIREMENT PLAN", BODY, "ARTICLE I – Foreword", BODY,
                  "ARTICLE II – Definitions", BODY, "SCHEDULE 1", BODY,
                  "ARTICLE III – Benefits", BODY, "APPENDIX", BODY,
                  "APPENDIX ERW - EARLY RETIREMENT WINDOWS", BODY, "Transfers Between Plans",
                  BODY, "Exhibit 10.8 HARBOUR SAVINGS PLAN", BODY, "ARTICLE I – Purpose", BODY]
    levels = {paragraphs[i]: level for i, level in find_headings(paragraphs).items()}
    exhibit = levels["Exhibit 10.7 HARBOUR RETIREMENT PLAN"]
    assert levels["Exhibit 10.8 HARBOUR SAVINGS PLAN"] == exhibit == levels["PART IV"]
    assert levels["APPENDIX"] == levels["APPENDIX ERW - EARLY RETIREMENT WINDOWS"] \
        == exhibit + 1
    assert levels["Transfers Between Plans"] > exhibit + 1
    # A schedule between two articles of one numbering is the first article's.
    assert levels["SCHEDULE 1"] > levels["ARTICLE II – Definitions"]
    assert levels["ARTICLE III – Benefits"] == levels["ARTICLE I – Foreword"]
    assert levels["ARTICLE I – Purpose"] == levels["ARTICLE I – Foreword"]
    # Without an exhibit before it, an appendix starts its own path as before.
    alone = ["PART IV", BODY, "Item 15. Exhibits", BODY, "APPENDIX", BODY,
             "Transfers Between Plans", BODY]
    levels = {alone[i]: level for i, level in find_headings(alone).items()}
    assert levels["APPENDIX"] == levels["PART IV"]
    assert division_heading("APPENDIX ERW - EARLY RETIREMENT WINDOWS") == (1, 1)
    assert division_heading("APPENDIX ERW - the windows below") is None


def test_an_exhibit_lettered_after_one_numbered_is_the_numbered_ones():
    """Apple's 10-Q files an award agreement as "Exhibit 10.2"; the agreement's own
    "EXHIBIT A" sits in it, and the next numbered exhibit starts a path again. Lettered
    exhibits with no numbered one before them stand each on their own."""
    paragraphs = ["PART II", BODY, "Item 6. Exhibits", BODY,
                  "Exhibit 10.2 PERFORMANCE AWARD AGREEMENT", BODY, "1. Grant", BODY,
                  "EXHIBIT A PERFORMANCE VESTING REQUIREMENTS", BODY, "Vesting Schedule", BODY,
                  "EXHIBIT B FORM OF NOTICE", BODY, "Exhibit 31.1 CERTIFICATION", BODY]
    levels = {paragraphs[i]: level for i, level in find_headings(paragraphs).items()}
    numbered = levels["Exhibit 10.2 PERFORMANCE AWARD AGREEMENT"]
    assert levels["Exhibit 31.1 CERTIFICATION"] == numbered == levels["PART II"]
    assert levels["EXHIBIT A PERFORMANCE VESTING REQUIREMENTS"] \
        == levels["EXHIBIT B FORM OF NOTICE"] == numbered + 1
    assert levels["Vesting Schedule"] > numbered + 1
    alone = ["MASTER SERVICES AGREEMENT", BODY, "EXHIBIT A PRICING", BODY,
             "EXHIBIT B SERVICE LEVELS", BODY]
    levels = {alone[i]: level for i, level in find_headings(alone).items()}
    assert levels["EXHIBIT A PRICING"] == levels["EXHIBIT B SERVICE LEVELS"]


def test_a_cover_line_repeated_over_the_next_page_takes_its_place():
    # The filer's name on the cover, then with the form's name over the contents page.
    doc = _document([("HARBOUR CRANES INC.", H, 2, 1), (PROSE_TEXT, P, 0, 1),
                     ("HARBOUR CRANES INC. FORM 10-Q", H, 4, 2), ("For the Quarter", P, 0, 2),
                     ("Item 1. Statements 3", C, 0, 2), ("Item 2. Review 21", C, 0, 2)])
    assert HeadingIndex(doc).path_at(doc.text.index("For the Quarter")) == (
        "HARBOUR CRANES INC. FORM 10-Q",)
    # The form's name on the cover and again, set smaller, over the contents page.
    doc = _document([("FORM 10-Q", H, 2, 1), (PROSE_TEXT, P, 0, 1),
                     ("FORM 10-Q", H, 5, 2), ("For the Quarter Ended", P, 0, 2),
                     ("Item 1. Statements 3", C, 0, 2), ("Item 2. Review 21", C, 0, 2),
                     ("PART I", H, 1, 3), ("Item 1. Statements", H, 2, 3),
                     ("Notes", H, 3, 3), (PROSE_TEXT, P, 0, 3), ("Notes", H, 4, 3),
                     (PROSE_TEXT, P, 0, 3)])
    index = HeadingIndex(doc)
    assert index.path_at(doc.text.index("For the Quarter Ended")) == ("FORM 10-Q",)
    # After the front matter a heading repeating one in its path takes no place of its
    # own: it is not nested again (a path "Notes > Notes" says nothing more).
    assert index.path_at(len(doc.text) - 1) == ("PART I", "Item 1. Statements", "Notes")
    # Without a contents page there is no front matter: an article's "Harbour Cranes
    # Fleet" section stays under its title "Harbour Cranes".
    doc = _document([("Harbour Cranes", H, 1, 1), (PROSE_TEXT, P, 0, 1),
                     ("Harbour Cranes Fleet", H, 2, 3), (PROSE_TEXT, P, 0, 3)])
    assert HeadingIndex(doc).path_at(len(doc.text) - 1) == ("Harbour Cranes",
                                                           "Harbour Cranes Fleet")


def test_a_registrant_line_over_its_statements_title_is_no_wrapped_heading():
    # "NVIDIA CORPORATION AND SUBSIDIARIES" over a longer title in capitals: the title's
    # first word would have fitted on the line above, so the break is no wrap.
    line = "ACME CORPORATION AND SUBSIDIARIES"
    title = "CONDENSED CONSOLIDATED STATEMENTS OF CASH FLOWS"
    assert classify_line_break(line, title, same_block=True, full_width=False) \
        is LineBreak.PARAGRAPH
    # A heading wrapped over two lines fills the first: joined, as before.
    assert classify_line_break("MANAGEMENT'S DISCUSSION AND ANALYSIS OF FINANCIAL",
                               "CONDITION", same_block=True, full_width=False) \
        is LineBreak.SPACE
    # Code in capitals after a short keyword line is no heading: joined, as before.
    assert classify_line_break("RETURN CASE", "WHEN VERIFY_GROUP_FOR_USER ( SESSION_USER , 'HR' )",
                               same_block=True, full_width=False) is not LineBreak.PARAGRAPH
