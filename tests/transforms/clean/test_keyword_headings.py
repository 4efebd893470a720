"""Heading paths a reader of a long report would agree with (``clean/headings.py``):
levels that follow the numbering ("Part II" over "Item 7." over "Note 3", "Section
3.2.1"), an exhibit or appendix starting a path of its own, table rows and cells never
headings; and the one heading rule line joining asks (``headings.looks_like_heading``)."""

from __future__ import annotations

from made_pdfs import Line, MadePdf, extract_and_clean, prose_lines, render

from ragbeam.transforms.chunk.base import HeadingIndex
from ragbeam.transforms.clean.headings import (
    contents_entries,
    find_headings,
    heading_level,
    in_numbering,
    keyword_heading,
    looks_like_heading,
    reads_like_data,
)
from ragbeam.transforms.clean.linejoin import LineBreak, classify_line_break
from ragbeam.transforms.types import BlockKind

BODY = None  # a multi-line paragraph


def _paths(paragraphs: list[str | None]) -> dict[str, tuple[int, ...]]:
    found = find_headings(paragraphs)
    return {paragraphs[i]: level for i, level in found.items()}  # type: ignore[misc]


def test_levels_follow_the_numbering_of_parts_items_notes_and_sections():
    assert keyword_heading("PART II — OTHER INFORMATION") == (1, 1)
    assert keyword_heading("Item 1A. Risk Factors") == (2, 1)
    assert keyword_heading("Note 2 – Revenue") == (3, 1)
    assert keyword_heading("Section 3.2.1 Fees") == (3, 3)
    assert keyword_heading("Exhibit 10.1") == (1, 1)  # a name, not a subsection
    assert keyword_heading("Section 3 of the Agreement provides that") is None
    assert keyword_heading("Item 2. Management’s Discussion 15") is None  # a contents entry
    paragraphs = ["PART I — FINANCIAL INFORMATION", "Item 1. Financial Statements", BODY,
                  "Note 1 – Revenue", BODY, "Item 2. Management’s Discussion and Analysis",
                  BODY, "GROSS MARGIN", BODY, "PART II — OTHER INFORMATION",
                  "Item 1A. Risk Factors", BODY]
    levels = _paths(paragraphs)
    assert levels == {"PART I — FINANCIAL INFORMATION": 1, "Item 1. Financial Statements": 2,
                      "Note 1 – Revenue": 3, "Item 2. Management’s Discussion and Analysis": 2,
                      "GROSS MARGIN": 4, "PART II — OTHER INFORMATION": 1,
                      "Item 1A. Risk Factors": 2}


def test_a_contracts_articles_and_sections_nest_by_their_numbers():
    paragraphs = ["ARTICLE 1", BODY, "Section 1.1 Definitions", BODY, "Section 1.1.1 Terms",
                  BODY, "ARTICLE 2", BODY]
    assert _paths(paragraphs) == {"ARTICLE 1": 1, "Section 1.1 Definitions": 2,
                                  "Section 1.1.1 Terms": 3, "ARTICLE 2": 1}


def test_table_rows_and_cells_are_never_headings():
    for row in ("Non-GAAP diluted EPS $ 2.61 $ 2.73", "California 94-2404110", "2022 2021",
                "Growth 12% 9%", "Total net sales 117,154"):
        assert reads_like_data(row), row
        assert heading_level(row) is None, row
    for heading in ("2 Background", "COVID-19", "Item 7. Financial Statements", "Q3 Results",
                    "2 Reducing latency by 40%"):
        assert not reads_like_data(heading), heading


def test_a_bold_row_of_figures_in_a_pdf_is_no_heading():
    pdf = MadePdf(pages=[[Line("Results of Operations", 12, True), *prose_lines(),
                          Line("Non-GAAP diluted EPS $ 2.61 $ 2.73", 12, True), *prose_lines()]])
    doc = extract_and_clean(render(pdf))
    headings = [doc.text[s.start:s.end] for s in doc.spans if s.kind is BlockKind.HEADING]
    assert "Results of Operations" in headings
    assert not any("2.61" in heading for heading in headings)


def test_an_exhibit_starts_a_path_of_its_own_and_md_and_a_is_not_under_item_1():
    pdf = MadePdf(pages=[
        [Line("PART I — FINANCIAL INFORMATION", 11, True),
         Line("Item 1. Financial Statements", 11, True), *prose_lines(),
         Line("Note 1 – Revenue", 11, True), *prose_lines()],
        [Line("Item 2. Management Discussion and Analysis", 11, True), *prose_lines(),
         Line("Gross Margin", 11, True), *prose_lines()],
        [Line("Statistical Disclosure", 11, True), *prose_lines()],
        [Line("EXHIBIT 10.1", 11, True), Line("ARTICLE 1", 11, True), *prose_lines()],
    ])
    doc = extract_and_clean(render(pdf))
    index = HeadingIndex(doc)
    at = {doc.text[s.start:s.end]: index.path_at(s.start) for s in doc.spans
          if s.kind is BlockKind.HEADING}
    assert at["Gross Margin"] == ("PART I — FINANCIAL INFORMATION",
                                  "Item 2. Management Discussion and Analysis", "Gross Margin")
    assert at["ARTICLE 1"] == ("EXHIBIT 10.1", "ARTICLE 1")


def test_line_joining_asks_the_heading_rule_of_headings_py():
    # A full-width line followed by a CJK chapter, a keyword heading or a numbered
    # heading in another paragraph: never joined to it.
    for heading in ("第一章 总则", "第二节 重要提示", "Item 2. Management’s Discussion",
                    "PART II", "2.1 General Information"):
        assert looks_like_heading(heading), heading
        assert classify_line_break("这一行一直写到页面的右边距没有结束" if heading[0] == "第"
                                   else "the last words of a long line of running text",
                                   heading, same_block=False, full_width=True) \
            is LineBreak.PARAGRAPH, heading
    assert not looks_like_heading("and this sentence simply continues")


def _heading_paths(doc) -> dict[str, tuple[str, ...]]:
    index = HeadingIndex(doc)
    return {doc.text[s.start:s.end]: index.path_at(s.start) for s in doc.spans
            if s.kind is BlockKind.HEADING}


def test_a_heading_in_capitals_that_ends_inside_a_phrase_runs_on_to_the_next_line():
    for same_block in (True, False):
        for full_width in (True, False):
            assert classify_line_break(
                "ITEM 4. REVIEW OF THE HARBOUR AUTHORITY AND STATEMENT OF", "OPERATIONS",
                same_block=same_block, full_width=full_width) is LineBreak.SPACE
    # A heading that ends as a heading does not take the next one in.
    assert classify_line_break("ITEM 4. REVIEW OF THE HARBOUR AUTHORITY", "OPERATIONS",
                               same_block=False, full_width=False) is LineBreak.PARAGRAPH
    assert classify_line_break("ITEM 4. REVIEW OF THE HARBOUR AUTHORITY AND", "PART II",
                               same_block=False, full_width=True) is LineBreak.PARAGRAPH


def test_an_item_heading_over_two_lines_is_the_sibling_of_the_item_before_it():
    pdf = MadePdf(pages=[
        [Line("PART I. HARBOUR INFORMATION", 11, True),
         Line("ITEM 1. HARBOUR STATEMENTS", 11, True), *prose_lines(),
         Line("NOTE 9 — CRANES", 11, True), *prose_lines()],
        [Line("ITEM 4. REVIEW OF THE HARBOUR AUTHORITY AND STATEMENT OF", 11, True),
         Line("OPERATIONS", 11, True, x=250), *prose_lines(),
         Line("Quay Inspections", 11, True), *prose_lines()],
    ])
    paths = _heading_paths(extract_and_clean(render(pdf)))
    item = "ITEM 4. REVIEW OF THE HARBOUR AUTHORITY AND STATEMENT OF OPERATIONS"
    assert paths[item] == ("PART I. HARBOUR INFORMATION", item)
    assert paths["Quay Inspections"] == ("PART I. HARBOUR INFORMATION", item, "Quay Inspections")


def test_a_number_that_breaks_the_numbering_is_no_section():
    paragraphs = ["1 Introduction", BODY, "2 Background", BODY, "36 Other", BODY,
                  "3 Methods", BODY]
    assert _paths(paragraphs) == {"1 Introduction": 1, "2 Background": 1, "3 Methods": 1}
    # Nor where no numbered heading comes before it (a chart's label in a 10-Q).
    assert _paths(["Item 2. Review", BODY, "69 Other", BODY]) == {"Item 2. Review": 1}
    # An excerpt may start far into its numbering, where the next heading goes on from it.
    assert _paths(["14.1 Scope", BODY, "14.2 Terms", BODY, "15 Fees", BODY]) == {
        "14.1 Scope": 2, "14.2 Terms": 2, "15 Fees": 1}
    # Numbering starts again at an appendix: a jump after it is measured from there.
    assert _paths(["9 Aims", BODY, "10 Sites", BODY, "11 Cranes", BODY, "12 Quays", BODY,
                   "Appendix B: Data", BODY, "14 Tonnes", BODY]) == {
        "9 Aims": 2, "10 Sites": 2, "11 Cranes": 2, "12 Quays": 2, "Appendix B: Data": 1}
    # A document's first section may be any up to 9 (a page of a paper opens at "4 …").
    assert _paths(["4 Vignette", BODY]) == {"4 Vignette": 1}


def test_a_chart_label_set_in_bold_is_no_heading_in_a_pdf():
    pdf = MadePdf(pages=[[Line("1 Harbour Review", 12, True), *prose_lines(),
                          Line("36 Other", 10, True), *prose_lines(),
                          Line("2 Quay Survey", 12, True), *prose_lines()]])
    paths = _heading_paths(extract_and_clean(render(pdf)))
    assert "36 Other" not in paths
    assert paths["2 Quay Survey"] == ("2 Quay Survey",)


def test_a_section_set_larger_than_the_notes_ends_the_last_note():
    pdf = MadePdf(pages=[
        [Line("Note 11 : Cranes", 10, True), *prose_lines(),
         Line("Note 12 : Commitments", 10, True), *prose_lines()],
        [Line("Review of the Harbour Authority", 14, True), *prose_lines(),
         Line("Quay Inspections", 10, True), *prose_lines()],
        [Line("EXHIBIT 10.1", 10, True), *prose_lines()],
    ])
    paths = _heading_paths(extract_and_clean(render(pdf)))
    assert paths["Review of the Harbour Authority"] == ("Review of the Harbour Authority",)
    assert paths["Quay Inspections"] == ("Review of the Harbour Authority", "Quay Inspections")
    assert paths["EXHIBIT 10.1"] == ("EXHIBIT 10.1",)


def test_a_heading_between_two_numbered_sections_goes_below_the_first():
    """"（3）" follows "（2）": a heading set above them that stands between them (a
    segment's name printed large at the end of "（2）") is inside "（2）", not a parent
    of "（3）". A heading between sections that do not follow each other is left as it is."""
    paragraphs = ["（1）主要な事業内容", BODY, "（2）事業の経過", BODY, "HARBOUR SERVICES", BODY,
                  "（3）財産の推移", BODY]
    assert _paths(paragraphs) == {"（1）主要な事業内容": 5, "（2）事業の経過": 5,
                                  "HARBOUR SERVICES": 6, "（3）財産の推移": 5}
    paragraphs = ["（1）主要な事業内容", BODY, "HARBOUR SERVICES", BODY, "（3）財産の推移", BODY]
    assert _paths(paragraphs)["HARBOUR SERVICES"] == 1


def test_opening_sections_set_larger_than_the_notes_do_not_nest_under_the_cover():
    """Before the first note, a report's opening sections are measured against the notes
    to come: set larger, each stands beside the cover's lines, not under them."""
    pdf = MadePdf(pages=[
        [Line("Harbour Cranes Corporation", 16, True), *prose_lines()],
        [Line("Quarter in Review", 13, True), *prose_lines(),
         Line("Key Developments", 10, True), *prose_lines()],
        [Line("Note 1 : Cranes", 10, True), *prose_lines(),
         Line("Note 2 : Quays", 10, True), *prose_lines()],
    ])
    paths = _heading_paths(extract_and_clean(render(pdf)))
    assert paths["Quarter in Review"] == ("Quarter in Review",)
    assert paths["Key Developments"] == ("Quarter in Review", "Key Developments")
    assert paths["Note 2 : Quays"] == ("Note 2 : Quays",)


def test_an_attachment_between_two_articles_that_follow_each_other_is_in_the_first():
    """A plan's "SCHEDULE 1" printed between its "ARTICLE II" and "ARTICLE III" belongs to
    Article II: the articles after it are not inside it. A part between a 10-K's "Item 4"
    and "Item 5" stays above them (items number on across parts); sections whose numbers
    do not follow each other ("3.1", then "5.2") hold nothing between them."""
    paragraphs = ["ARTICLE I – Foreword", BODY, "ARTICLE II – Definitions", BODY,
                  "SCHEDULE 1 – Early Retirement Dates", BODY, "ARTICLE III – Participation",
                  BODY, "Section 3.1 – Eligibility", BODY, "ARTICLE IV – Benefits", BODY,
                  "Section 5.2 – Forms", BODY]
    levels = _paths(paragraphs)
    assert levels["SCHEDULE 1 – Early Retirement Dates"] > levels["ARTICLE II – Definitions"]
    assert levels["ARTICLE III – Participation"] == levels["ARTICLE II – Definitions"]
    assert levels["ARTICLE IV – Benefits"] == levels["ARTICLE II – Definitions"]
    assert levels["Section 5.2 – Forms"] > levels["ARTICLE IV – Benefits"]
    filing = _paths(["PART I", "Item 4. Mine Safety Disclosures", BODY, "PART II",
                     "Item 5. Market for Equity", BODY])
    assert filing == {"PART I": 1, "Item 4. Mine Safety Disclosures": 2, "PART II": 1,
                      "Item 5. Market for Equity": 2}


def test_a_title_numbered_again_and_again_is_a_list_entry_not_a_section():
    # A product catalogue's option list: one numbered row per model, the same option
    # under many numbers; a section names something of its own.
    row = "FMCSEC1KG 63,100"  # the option's code and price
    paragraphs = ["1 Memory Upgrade 16GB", BODY, "2 Palm Vein Sensor", row,
                  "3 Extended Support Service", row, "4 Palm Vein Sensor", row,
                  "5 Extended Support Service", row, "6 Palm Vein Sensor", row,
                  "7 Extended Support Service", row]
    assert _paths(paragraphs) == {"1 Memory Upgrade 16GB": 1}
    assert _paths(["1 手のひら静脈センサー", "FMCSEC1KG 本体と同期 63,100", "2 リアカメラ追加",
                   BODY,
                   "5 手のひら静脈センサー", "【標準モデルのみ選択可能】", "8 手のひら静脈センサー",
                   "FMCSEC1KH 本体と同期 63,100"]) == {"2 リアカメラ追加": 1}
    # Twice is not a list: "2 Overview" of two papers; nor a subsection's title.
    assert _paths(["1 Overview", BODY, "2 Data", BODY, "3 Overview", BODY]) == {
        "1 Overview": 1, "2 Data": 1, "3 Overview": 1}
    assert _paths(["1 Cranes", BODY, "1.1 Overview", BODY, "2 Quays", BODY, "2.1 Overview",
                   BODY, "3 Tugs", BODY, "3.1 Overview", BODY]) == {
        "1 Cranes": 1, "1.1 Overview": 2, "2 Quays": 1, "2.1 Overview": 2, "3 Tugs": 1,
        "3.1 Overview": 2}


def test_a_cjk_numbered_line_is_not_joined_to_the_line_above():
    # Japanese and Chinese lines join with no space: a section's heading glued to the
    # heading under it ("2．要約…注記（1）要約…計算書") is neither.
    for line in ("（1）要約四半期連結財政状態計算書", "2．要約四半期連結財務諸表及び主な注記",
                 "(3)発行済株式数", "一、重要提示", "（二）公司简介", "3、主要会计数据"):
        assert looks_like_heading(line), line
        assert classify_line_break("当社グループの業績は堅調に推移し、前年同期比で増収と",
                                   line, same_block=False, full_width=True) \
            is LineBreak.PARAGRAPH, line
    # Two numbered lines in one block: apart, however near the margin the first ends.
    for full_width in (True, False):
        assert classify_line_break("2．要約四半期連結財務諸表及び主な注記",
                                   "（1）要約四半期連結財政状態計算書", same_block=True,
                                   full_width=full_width) is LineBreak.PARAGRAPH
    # A wrapped line going on is still joined; an ASCII "2.5" or a Latin "(1)" is no
    # CJK numbering.
    assert classify_line_break("当社グループの業績は堅調に推移し、前年同期比で増収と",
                               "なりました。", same_block=True, full_width=True) \
        is LineBreak.JOINED
    assert not looks_like_heading("2.5倍に増加しました")
    assert not looks_like_heading("(1) of the agreement, the parties")


def test_numbered_rows_of_a_price_list_are_no_sections():
    # The short rows of a numbered option list read like headings; the rows between them
    # ("3 Memory upgrade 8GB→16GB FMC… 109,400 …") say what they are.
    paragraphs = ["1 Memory upgrade 16GB→32GB", "(onboard) FMC1A5 173,900 adds memory",
                  "2 Memory upgrade 16GB→64GB", "(onboard) FMC1A6 447,200 adds memory",
                  "3 Memory upgrade 8GB→16GB (onboard) FMC1A7 109,400 adds memory.",
                  "4 Memory upgrade 8GB→32GB", "(onboard) FMC1A8 283,300 adds memory"]
    assert _paths(paragraphs) == {}
    assert _paths(["1 メモリ変更16GB→32GB", BODY, "2 メモリ変更16GB→64GB", BODY,
                   "3 メモリ変更8GB→16GB（オンボード） FMCPRC1A7 本体と同期 109,400 を追加します。",
                   "4 メモリ変更8GB→32GB", BODY]) == {}
    # A section's neighbour is a section, whatever paragraph follows it.
    assert _paths(["1 Introduction", BODY, "2 Data", BODY,
                   "3 Introduction of the new scheme was delayed by a year.", BODY,
                   "3 Methods", BODY]) == {"1 Introduction": 1, "2 Data": 1, "3 Methods": 1}


def test_a_heading_may_end_in_a_notes_reference_mark_or_a_qualifier_in_brackets():
    # A catalogue's model headings: "＊10" refers to a note (no page number), and the
    # colour in full-width brackets qualifies the model.
    assert heading_level("A1 LIFEBOOK U3114X/S＊10") == (1, "caps")
    assert heading_level("A4 LIFEBOOK U9313/R（ピクトブラック）＊10") == (1, "caps")
    assert heading_level("A6 LIFEBOOK U7314/R") == (1, "caps")
    # A contents entry still ends in its page number; a lower-case qualifier is no caps.
    assert heading_level("2.1 Parsing 4") is None
    assert heading_level("ANNUAL REPORT (see note 4)") is None


def test_japanese_numbering_with_a_full_stop_ranks_above_parenthesised_numbers():
    # A 決算短信's attachment: "2．…" over "（1）…"; the full stop is full-width or ASCII,
    # with no space before the title.
    assert heading_level("2．要約四半期連結財務諸表及び主な注記") == (3, "cjk-full-stop")
    assert heading_level("3.連結業績予想") == (3, "cjk-full-stop")
    assert heading_level("2.5倍に増加") != (3, "cjk-full-stop")
    assert _paths(["1．経営成績等の概況", BODY, "2．要約四半期連結財務諸表及び主な注記",
                   "（1）要約四半期連結財政状態計算書", BODY, "（2）要約四半期連結損益計算書",
                   BODY]) == {"1．経営成績等の概況": 3, "2．要約四半期連結財務諸表及び主な注記": 3,
                              "（1）要約四半期連結財政状態計算書": 5,
                              "（2）要約四半期連結損益計算書": 5}
    # Where "1．" and "2．" stand between "（1）" and "（2）", they are (1)'s subsections:
    # sections of one numbering are siblings (a business report's "（1）主要な事業内容").
    assert _paths(["1 企業集団の現況", BODY, "（1）主要な事業内容", BODY, "1．変更の目的", BODY,
                   "2．主な変更点", BODY, "（2）事業の経過および成果", BODY]) == {
        "1 企業集団の現況": 1, "（1）主要な事業内容": 5, "1．変更の目的": 6, "2．主な変更点": 6,
        "（2）事業の経過および成果": 5}


def test_an_option_list_seen_again_after_a_step_back_is_no_section():
    # A qualifier in brackets does not make a listed option's title another one.
    assert _paths(["2 Palm Vein Sensor", "FMC1 6,300", "4 Palm Vein Sensor", "FMC2 6,300",
                   "6 Palm Vein Sensor (PalmSecure-F compatible)", "FMC3 6,300"]) == {}
    # Numbering goes on or starts again at 1; a step back to 3 after 27 is a list's row.
    assert _paths(["1 Scope", BODY, "2 Terms", BODY, "3 Fees", BODY, "1 Annex Scope", BODY,
                   "2 Annex Terms", BODY]) == {"1 Scope": 1, "2 Terms": 1, "3 Fees": 1,
                                               "1 Annex Scope": 1, "2 Annex Terms": 1}
    assert _paths(["7 Cranes", BODY, "8 Quays", BODY, "9 Tugs", BODY, "3 Memory Upgrade",
                   BODY]) == {"7 Cranes": 1, "8 Quays": 1, "9 Tugs": 1}


def test_rows_of_variants_in_a_row_are_no_sections():
    # An option list's rows, one per variant, block after block.
    assert _paths(["24 Extended Warranty", BODY, "25 Support Service Premium 3 years",
                   "FMC31 66,000", "26 Support Service Premium 4 years", "FMC41 83,000",
                   "27 Support Service Premium 5 years", "FMC51 99,000"]) == {
        "24 Extended Warranty": 1}
    # Studies titled alike, with their text between them, are sections.
    prose = [BODY, BODY, BODY, BODY]
    assert _paths(["1 Introduction", *prose, "2 Study 1 Design", *prose, "3 Study 2 Design",
                   *prose, "4 Study 3 Design", *prose]) == {
        "1 Introduction": 1, "2 Study 1 Design": 1, "3 Study 2 Design": 1,
        "4 Study 3 Design": 1}


def test_sections_titled_alike_that_the_contents_page_lists_are_sections():
    # A test file's placeholder sections: "Foo", "Bar", "Baz" again and again, each
    # listed on its contents page ("1 Foo 2").
    names = [f"{n} {title}" for n, title in enumerate(["Foo", "Bar", "Baz"] * 3, 1)]
    texts = [part for name in names for part in (name, "Hello, here is some text.")]
    found = {i: 1 for i in range(0, len(texts), 2)}
    assert in_numbering(texts, found) == {}
    assert in_numbering(texts, found, contents_entries(f"{name} 2" for name in names)) == found


def test_a_line_the_contents_page_lists_stands_alone():
    # A 決算短信: the statement's heading over its period, in one block, on a page whose
    # lines are short (a table's), so by its length it seems to run to the margin.
    from ragbeam.transforms.clean.base import CleanLine, CleanOptions
    from ragbeam.transforms.clean.linejoin import assemble

    def line(text: str, kind: BlockKind, block: int, page: int) -> CleanLine:
        return CleanLine(text, kind, block, page, 0, 0, 1)

    heading = "（2）要約四半期連結損益計算書及び要約四半期連結包括利益計算書"
    lines = [line("○添付資料の目次", BlockKind.PARAGRAPH, 0, 1),
             line("1．経営成績等の概況 2", BlockKind.CONTENTS, 1, 1),
             line(f"{heading} 4", BlockKind.CONTENTS, 2, 1),
             line("（3）要約四半期連結持分変動計算書 5", BlockKind.CONTENTS, 3, 1),
             line(heading, BlockKind.PARAGRAPH, 4, 2),
             line("第3四半期連結累計期間", BlockKind.PARAGRAPH, 4, 2),
             *(line(f"売上収益 {n},642,722 {n},621,432 増減率 {n}.8", BlockKind.PARAGRAPH,
                    5 + n, 2) for n in range(1, 4))]
    assembly = assemble(lines, True, CleanOptions(), {})
    assert heading in assembly.contents and "1．経営成績等の概況" in assembly.contents
    texts = ["".join(sep + piece.text for sep, piece in block) for block in assembly.blocks]
    assert heading in texts and "第3四半期連結累計期間" in texts
    # Without the contents page, the two lines are one run of words, as before.
    joined = assemble([piece for piece in lines if piece.kind is BlockKind.PARAGRAPH], True,
                      CleanOptions(), {})
    assert heading + "第3四半期連結累計期間" in [
        "".join(sep + piece.text for sep, piece in block) for block in joined.blocks]
    assert contents_entries(["3", "Overview 12", "参考資料 iv"]) == {"Overview", "参考資料"}
    # Latin lines are left as they were (measured on English 10-Qs: see ``linejoin._listed``).
    latin = [line("Contents", BlockKind.PARAGRAPH, 0, 1),
             line("Item 1. Financial Statements 3", BlockKind.CONTENTS, 1, 1),
             line("Item 2. Results 9", BlockKind.CONTENTS, 2, 1),
             line("Item 3. Risk Factors 12", BlockKind.CONTENTS, 3, 1),
             line("Item 1. Financial Statements", BlockKind.PARAGRAPH, 4, 2),
             line("CONSOLIDATED STATEMENTS OF CASH FLOWS", BlockKind.PARAGRAPH, 4, 2)]
    assert "Item 1. Financial Statements" in assemble(latin, True, CleanOptions(), {}).contents
