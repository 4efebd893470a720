"""Headings from a PDF's typography (``headings.find_styled_headings``) and paragraph
breaks where the style changes (``clean/layout.style_changes``), on constructed blocks:
each rule with the case it must find and the case that must stay body text."""

from __future__ import annotations

from ragbeam.transforms.clean.headings import (
    BodyStyle,
    HeadingBlock,
    body_style,
    find_styled_headings,
    heading_level,
    is_prose,
)
from ragbeam.transforms.clean.layout import bold_font_name, sizes_differ, style_changes
from ragbeam.transforms.types import LineStyle

BODY = BodyStyle(10.0, "Times-Roman", False)
TEXT = ("The harbour master keeps the tide tables for every berth and publishes them each "
        "morning, so that the pilots know which vessels can come in.")


def style(size: float = 10.0, bold: bool = False, font: str = "Times-Roman", page: int = 1,
          top: float = 300.0, x0: float = 72.0, x1: float = 300.0) -> LineStyle:
    return LineStyle(0, 1, page, x0, top, x1, top + size, size, bold, False, font)


def heading(text: str, **kwargs) -> HeadingBlock:
    return HeadingBlock(text, is_prose(text), 1, style(**kwargs), page_height=792.0)


def text(content: str = TEXT, lines: int = 3, **kwargs) -> HeadingBlock:
    return HeadingBlock(None if lines > 3 else content, is_prose(content), lines,
                        style(**kwargs), page_height=792.0)


def test_a_block_set_apart_over_text_is_a_heading_whatever_its_words():
    blocks = [heading("Interventions to improve coping by shift workers", font="Times-Bold",
                      bold=True), text(lines=5)]
    assert find_styled_headings(blocks, BODY) == {0: 1}
    # The same words in the body's style are body text.
    assert find_styled_headings([heading("Interventions to improve coping by shift workers"),
                                 text(lines=5)], BODY) == {}


def test_another_face_at_the_body_size_is_enough_where_the_pdf_hides_the_weight():
    blocks = [heading("Method", font="AdvPS405B8"), text(lines=5, font="AdvPS405B6")]
    assert find_styled_headings(blocks, BodyStyle(10.0, "AdvPS405B6", False)) == {0: 1}


def test_labels_set_alike_in_a_row_are_no_headings():
    """Authors, a figure's labels: blocks set like each other one after another."""
    blocks = [heading("Marie Gee Wilson", size=13), heading("Andrea Polzer-Debruyne", size=13),
              text(lines=5)]
    assert find_styled_headings(blocks, BODY) == {}


def test_no_text_after_it_no_heading():
    blocks = [heading("Nut case", size=8, font="Myriad"), heading("Keyway", size=8,
                                                                  font="Myriad-Bold"),
              heading("Figure 7-26. Self-locking nuts.", size=8)]
    assert find_styled_headings(blocks, BODY) == {}


def test_a_chart_s_title_centred_over_it_is_no_heading():
    """A filing's MD&A: subheadings at the text's left edge; a chart's title in their
    type, centred, with the chart drawn below it and the text far under it. Right over
    its text, the same centred line is a heading."""
    sub = {"size": 11.0, "font": "Arial-Bold", "page": 2}
    blocks = [heading("Quarterly Report", size=20.0, top=60), text(lines=5, top=90),
              heading("Legal Proceedings", **sub, top=100), text(lines=5, top=115, page=2),
              heading("Litigation Related to Security", **sub, top=200),
              text(lines=5, top=215, page=2),
              heading("Segment Revenue Walk", **sub, top=300, x0=260.0, x1=360.0),
              text(lines=5, top=450, page=2)]
    assert find_styled_headings(blocks, BODY) == {0: 1, 2: 2, 4: 2}
    blocks[7] = text(lines=5, top=315, page=2)
    assert find_styled_headings(blocks, BODY) == {0: 1, 2: 2, 4: 2, 6: 2}


def test_captions_toc_entries_names_and_addresses_are_never_headings():
    for words in ("Figure 3. Démarche diagnostique", "Table 2 Results by site", "9 Baz 4",
                  "Oguzhan Topsakal1*, and Tahir Cetin Akinci 2",
                  "Facebook AI †University of Washington",
                  "Department of Psychology, Massey University, Albany, Auckland"):
        assert find_styled_headings([heading(words, size=14, bold=True), text(lines=5)],
                                    BODY) == {}, words


def test_a_table_header_cell_is_no_heading_and_a_small_label_over_a_footnote_neither():
    cell = HeadingBlock("Fiscal Year", False, 1, style(bold=True, font="Arial-Bold"),
                        in_row=True, page_height=792.0)
    assert find_styled_headings([cell, text(lines=5)], BODY) == {}
    # A body-sized bold label followed by small print (a table's footnote) is not its
    # heading; a small bold heading over small print of its own size is.
    label = heading("Fiscal Year", bold=True, font="Arial-Bold")
    assert find_styled_headings([label, text(lines=5, size=7.6)], BODY) == {}
    authors = heading("About the authors", size=9, bold=True, font="Times-Bold")
    assert find_styled_headings([authors, text(lines=5, size=9)], BODY) == {0: 1}


def test_the_title_is_the_largest_and_nothing_above_it_on_its_page_is_a_heading():
    banner = heading("Engineering and Natural Sciences", size=14, top=60)
    title = heading("Creating Applications with Large Language Models", size=20, top=100)
    section = heading("Introduction", size=12, bold=True, top=400, font="Times-Bold")
    blocks = [banner, text(lines=5, top=80), title, text(lines=5, top=150), section,
              text(lines=5, top=420)]
    assert find_styled_headings(blocks, BODY) == {2: 1, 4: 2}


def test_a_first_heading_set_like_the_others_is_no_title():
    blocks = [text(top=50)]
    for n in range(3):
        blocks += [heading(f"Era {n} of Word Processing", size=13.4, bold=True,
                           font="Times-Bold", top=100 + 200 * n), text(lines=5)]
    assert find_styled_headings(blocks, BODY) == {1: 1, 3: 1, 5: 1}


def test_levels_follow_numbering_and_the_style_of_numbered_headings():
    bold12 = {"size": 12, "bold": True, "font": "Times-Bold"}
    bold11 = {"size": 11, "bold": True, "font": "Times-Bold"}
    blocks = [heading("1 Introduction", **bold12), text(lines=5),
              heading("1.1 Scope", **bold11), text(lines=5),
              heading("Acknowledgments", **bold12), text(lines=5),
              heading("Positive passages", **bold11), text(lines=5)]
    assert find_styled_headings(blocks, BODY) == {0: 1, 2: 2, 4: 1, 6: 2}


def test_lettered_sections_nest_under_roman_ones():
    assert heading_level("A. Components") == (1, "alpha-1")
    assert heading_level("A.A.1 Prompts") == (3, "alpha-3")
    assert heading_level("A Study of Harbours") == (2, "title")  # not lettered: no full stop
    italic = {"font": "Times-Italic"}
    blocks = [heading("I. INTRODUCTION", size=9), text(lines=5),
              heading("A. Components", **italic), text(lines=5),
              heading("B. Use Cases", **italic), text(lines=5)]
    assert find_styled_headings(blocks, BODY) == {0: 1, 2: 2, 4: 2}


def test_chinese_enumerations_are_headings_over_tables_too():
    assert heading_level("一、主要会计数据和财务指标") == (3, "cjk-enum")
    assert heading_level("（二）重大资产出售事项进展") == (4, "cjk-paren")
    assert heading_level("1、合并资产负债表") == (4, "cjk-arabic")
    assert is_prose("公司董事会、监事会及董事、监事、高级管理人员保证季度报告内容的真实。")
    assert not is_prose("第二节 公司基本情况")


def test_body_style_is_where_most_characters_are():
    styles = [(style(9.0, font="Table"), 300), (style(10.0), 2000), (style(14.0), 40)]
    assert body_style(styles) == BODY
    assert body_style([]) is None


def test_a_paragraph_ends_where_size_or_face_changes_not_at_an_italic_word():
    body = style()
    assert style_changes(style(12, bold=True, font="Times-Bold"), body)
    assert style_changes(body, style(8))  # a footnote under the body
    assert style_changes(style(font="AdvPS405B8"), style(font="AdvPS405B6"))
    assert not style_changes(body, style(10.5))  # rounding, or an abstract's 10.9 pt
    mixed = style(font="")  # italic word at the middle: the line's face is unknown
    assert not style_changes(body, mixed) and not style_changes(mixed, body)
    assert not style_changes(body, None) and not style_changes(body, style(0.0))
    assert sizes_differ(10, 12) and not sizes_differ(10, 10.9) and sizes_differ(11, 12)
    # In small print a step of a tenth of the size is another size: a filing's 7.7 pt
    # subheadings over its 6.9 pt text; 6.9 and 7.4 are still one.
    assert sizes_differ(6.9, 7.7) and not sizes_differ(6.9, 7.4)
    # A font named bold is bold; a demibold only where the PDF gives no weight at all.
    assert bold_font_name("LiberationSans-Bold") and bold_font_name("Helvetica-Black")
    assert not bold_font_name("FranklinGothic-Demi") and not bold_font_name("Arial-ItalicMT")
    assert bold_font_name("FranklinGothic-Demi", demi=True)


def test_blocks_without_a_style_go_by_the_text_rules_alone():
    """Lines PDFium did not place (no style) mixed with placed ones."""
    unplaced = HeadingBlock("REFERENCES", False, 1, None)
    numbered = HeadingBlock("2.1 General Information", False, 1, None)
    blocks = [heading("Harbour Operations Review", size=20, top=80), text(lines=5),
              unplaced, text(lines=5), numbered, text(lines=5, font="")]
    assert find_styled_headings(blocks, BODY) == {0: 1, 2: 1, 4: 2}
    # A title-case line must be set apart from its text, which an unplaced one (a
    # figure's label Tika repeats) cannot show: the text rules alone do not take it.
    blocks[2] = HeadingBlock("Final Solution", False, 1, None)
    assert find_styled_headings(blocks, BODY) == {0: 1, 4: 2}


def test_a_code_section_in_bold_is_a_heading_though_it_ends_with_a_full_stop():
    """21 CFR's "§ 1308.22 Excluded substances.", bold at the body's size, over its text;
    a title running on to a second line; a sentence that merely opens with a reference,
    and a section sign in the body's own style, are text."""
    assert heading_level("§ 1308.22 Excluded substances.") == (2, "section-sign")
    assert heading_level("§ 3a Zweck des Gesetzes") == (2, "section-sign")
    for sentence in ("§ 1308.41 shall, within 30 days after the", "§§ 1301.13, 1301.22, and",
                     "§ 1308.12(e) or in § 1308.13 (b) or (c) or in"):
        assert heading_level(sentence) is None, sentence
    bold = {"bold": True, "font": "Century-Bold"}
    run_on = HeadingBlock("§ 1308.23 Exemption of certain chemical preparations; application.",
                          True, 2, style(**bold), page_height=792.0)
    blocks = [heading("§ 1308.22 Excluded substances.", **bold), text(lines=5), run_on,
              text(lines=5)]
    assert find_styled_headings(blocks, BODY) == {0: 2, 2: 2}
    assert find_styled_headings([heading("§ 1308.22 Excluded substances."), text(lines=5)],
                                BODY) == {}


def test_a_title_over_four_lines_set_large_is_the_title():
    title = HeadingBlock("Scalability of Controlling Heterogenous Stress-Engineered MEMS "
                         "Microrobots (MicroStressBots) through Common Control Signal using "
                         "Electrostatic Hysteresis", True, 4, style(size=24, top=60),
                         page_height=792.0)
    blocks = [title, heading("Vahid Foroutan1*, Ratul Majumdar1", size=11, top=180),
              text(lines=5, top=240), heading("I. INTRODUCTION", top=400), text(lines=5)]
    assert find_styled_headings(blocks, BODY) == {0: 1, 3: 1}
    # The same four lines in the body's size are a paragraph.
    assert 0 not in find_styled_headings([title._replace(style=style(top=60)), *blocks[1:]],
                                         BODY)


def test_a_title_set_like_the_sections_is_the_title_where_no_text_follows_it():
    """An EGC paper sets its title and its numbered sections alike; the authors follow
    the title, text follows each section."""
    like = {"size": 14.3, "bold": True, "font": "Nimbus-Bold"}
    blocks = [heading("Résumés et interrogations de logs de requêtes OLAP", top=180, **like),
              heading("Julien Aligon*, Patrick Marcel*", top=220),
              heading("prenom.nom@univ-tours.fr", top=240),
              text(lines=5, top=300), heading("1 Introduction", top=500, **like), text(lines=5)]
    assert find_styled_headings(blocks, BODY) == {0: 1, 4: 1}


def test_a_product_name_with_a_digit_is_no_note_mark():
    """ "IBM DB2 for i" is a title; "Foroutan1*" is an author with a note's mark."""
    blocks = [heading("Row and Column Access Control Support in IBM DB2 for i", size=24,
                      bold=True, font="Helvetica-Bold", top=80), text(lines=5, top=200)]
    assert find_styled_headings(blocks, BODY) == {0: 1}
    blocks[0] = heading("Vahid Foroutan1* and Ratul Majumdar", size=24, top=80)
    assert find_styled_headings(blocks, BODY) == {}


def test_a_section_over_its_first_subsection_set_alike_are_both_headings():
    """A CHI abstract sets "Introduction" and "HCI and smartphones" alike, the text under
    the second; three labels set alike in a row are a list, and a pair over a caption a
    pair of names."""
    bold = {"size": 9.5, "bold": True, "font": "Verdana-Bold"}
    blocks = [text(lines=5), heading("Introduction", **bold),
              heading("HCI and smartphones", **bold), text(lines=5)]
    assert find_styled_headings(blocks, BODY) == {1: 1, 2: 1}
    three = [text(lines=5), heading("Nut case", **bold), heading("Keyway", **bold),
             heading("Lock washer", **bold), text(lines=5)]
    assert find_styled_headings(three, BODY) == {}
    over_caption = [text(lines=5), heading("Marie Gee", **bold), heading("Ann Polzer", **bold),
                    heading("Figure 2. The harbour", **bold)]
    assert find_styled_headings(over_caption, BODY) == {}


def test_a_label_over_the_title_at_its_size_is_no_title():
    label = heading("Research Article", size=17.9, font="Minion-Italic", top=137)
    title = heading("Patient Experiences of Structured Heart Failure Programmes", size=17.9,
                    bold=True, font="Minion-Black", top=160)
    blocks = [label, title, text(lines=5, top=300)]
    assert find_styled_headings(blocks, BODY) == {1: 1}


def test_a_forms_line_item_is_no_heading():
    assert heading_level("2 Multiply the amount on Line 1 by 90% (.90) $") is None
    assert heading_level("4 Tax due €") is None
    assert heading_level("2 Reducing latency by 40%") == (1, "num-1")


def test_a_contract_typed_in_one_face_has_its_sections_by_their_numbering():
    """ "§ 1 Affiliate Participation" in the body's own face is a heading, as "2 Methods"
    is; "§ 1308.22 Excluded substances." in it is a clause."""
    typed = {"font": "CourierNewPSMT"}
    blocks = [text(lines=5, **typed), heading("§ 1 Affiliate Participation", **typed),
              text(lines=5, **typed)]
    body = BodyStyle(10.0, "CourierNewPSMT", False)
    assert find_styled_headings(blocks, body) == {1: 2}
    blocks[1] = heading("§ 1308.22 Excluded substances.", **typed)
    assert find_styled_headings(blocks, body) == {}


def test_a_short_label_ending_in_a_colon_heads_its_text_where_its_font_sets_it_apart():
    bold = {"bold": True, "font": "Times-Bold"}
    blocks = [text(lines=5), heading("Terms and Termination:", **bold), text(lines=5)]
    assert find_styled_headings(blocks, BODY) == {1: 1}
    # In the body's face it is a line of the text; one word in italics opens a proof.
    blocks[1] = heading("Terms and Termination:")
    assert find_styled_headings(blocks, BODY) == {}
    blocks[1] = heading("Proof:", font="Times-Italic")
    assert find_styled_headings(blocks, BODY) == {}


def test_a_sentence_is_no_heading_in_brackets_or_in_the_polite_form_without_its_stop():
    """A note set apart by its font ("【…可能です。】" in bold over a table) is a sentence:
    it names no section, though its full stop stands inside the brackets; a polite
    Japanese predicate ends a sentence where the 。 is left off. A bracketed label that
    is no sentence stays a heading."""
    bold = {"bold": True, "font": "Gothic-Bold", "size": 12}
    body = "本製品は法人向けのノートパソコンです。仕様の詳細は各ページの表をご覧ください。" * 3
    for note in ("【この構成に対して、カスタムメイドで仕様の変更が可能です。】",
                 "「本体と同時にご注文ください。」", "【標準モデルでは選択できません】",
                 "本体ご購入後の変更はできません", "(See the notes below.)"):
        assert heading_level(note) is None, note
        assert find_styled_headings([heading(note, **bold), text(body, lines=5)],
                                    BODY) == {}, note
    for label in ("【購入相談窓口】", "（セグメント情報）", "サポートサービス 価格表",
                  "What is new?", "POUR EN SAVOIR PLUS (ACIDOSES)..."):
        assert find_styled_headings([heading(label, **bold), text(body, lines=5)],
                                    BODY) == {0: 1}, label


def _paths_of(blocks: list[HeadingBlock], levels: dict[int, int]) -> dict[str, tuple[str, ...]]:
    """Each heading's path, as ``chunk.base.HeadingIndex`` builds it from the levels."""
    stack: list[tuple[int, str]] = []
    paths = {}
    for i, level in sorted(levels.items()):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, blocks[i].text or ""))
        paths[blocks[i].text or ""] = tuple(title for _, title in stack)
    return paths


def test_a_filings_headings_nest_by_their_type_whatever_numbering_shares_it():
    """A 10-K's Item 1 sets its sections in bold capitals and their subsections in a
    smaller italic; its notes' lettered subsections ("A. Basis of Presentation") share
    the italic. The italic sits below the bold capitals (a section after an italic
    subsection is not inside it); a section whose line lost its style sits beside the
    section before it, not above its siblings."""
    body = BodyStyle(8.0, "Arial", False)

    def prose() -> HeadingBlock:
        return text(size=8.0, font="Arial")

    def bold(words: str, size: float = 9.5) -> HeadingBlock:
        return heading(words, size=size, bold=True, font="Arial,Bold")

    def italic(words: str) -> HeadingBlock:
        return heading(words, size=8.5, font="Arial,Italic")

    blocks = [bold("PART I", 12), bold("Item 1. Business", 11), prose(),
              bold("CRANE OPERATIONS"), prose(),
              HeadingBlock("QUAY SERVICES", False, 1, None, page_height=792.0), prose(),
              italic("In the United States"), prose(), bold("ENVIRONMENTAL MATTERS"), prose(),
              bold("Item 8. Financial Statements", 11), bold("Note 1. Basis of Presentation"),
              italic("A. Basis of Presentation"), prose(), italic("B. Estimates"), prose()]
    paths = _paths_of(blocks, find_styled_headings(blocks, body))
    item = ("PART I", "Item 1. Business")
    assert paths["CRANE OPERATIONS"] == (*item, "CRANE OPERATIONS")
    assert paths["QUAY SERVICES"] == (*item, "QUAY SERVICES")
    assert paths["In the United States"] == (*item, "QUAY SERVICES", "In the United States")
    assert paths["ENVIRONMENTAL MATTERS"] == (*item, "ENVIRONMENTAL MATTERS")
    assert paths["B. Estimates"] == ("PART I", "Item 8. Financial Statements",
                                     "Note 1. Basis of Presentation", "B. Estimates")


def test_a_part_set_smaller_than_its_items_keeps_the_sections_set_like_it_above_subsections():
    """A 10-Q sets "PART I" smaller than "ITEM 1." (the keywords rank them, not their
    type); its notes' sections share the part's face, named bold but flagged regular,
    and their subsections a bold italic flagged bold: the subsections stay inside."""
    body = BodyStyle(9.0, "ArialMT", False)

    def prose() -> HeadingBlock:
        return text(size=9.0, font="ArialMT")

    blocks = [heading("PART I. FINANCIAL INFORMATION", size=9.0, font="Arial-BoldMT"),
              heading("ITEM 1. FINANCIAL STATEMENTS", size=10.8, font="Arial-BoldMT"),
              heading("NOTE 1 — ACCOUNTING POLICIES", size=9.0, font="ArialMT"), prose(),
              heading("Financial Instruments", size=9.0, font="Arial-BoldMT"), prose(),
              heading("Investments", size=9.0, bold=True, font="Arial-BoldItalicMT"), prose(),
              heading("Derivatives", size=9.0, bold=True, font="Arial-BoldItalicMT"), prose()]
    paths = _paths_of(blocks, find_styled_headings(blocks, body))
    assert paths["Derivatives"][-2:] == ("Financial Instruments", "Derivatives")


def test_a_section_heading_beside_a_side_box_caption_heads_the_text_after_it():
    """A browser's print of a web page draws a section's heading, then the caption of a
    picture in a side box beside the text column (small print, right of the heading),
    then the section's text: the heading stands over that text, not over the caption."""
    caption = HeadingBlock("The harbour in 1900, seen from the lighthouse.", True, 2,
                           style(size=7.0, font="Sans", x0=420.0, x1=580.0, top=320.0, page=2),
                           page_height=792.0)
    blocks = [text(lines=5, top=100.0),
              heading("Cranes", size=15, font="Serif-Bold", x0=72.0, x1=140.0, top=280.0,
                      page=2),
              caption, text(lines=5, top=330.0, page=2)]
    # (on page 2: the largest line near the top of the first page is its title)
    assert find_styled_headings(blocks, BODY) == {1: 1}
    # The same caption under the heading in its column: small print it heads (or not)
    # as before, a caption's label, not a section over the text after it.
    under = caption._replace(style=style(size=7.0, font="Sans", x0=72.0, x1=300.0, top=300.0,
                                                   page=2))
    assert find_styled_headings([blocks[0], blocks[1], under, blocks[3]], BODY) == {}
    # Past the small print, a table's next cell in another column is no text of its.
    cell = HeadingBlock("Appointed by the harbour board in 1952 for life.", True, 3,
                        style(size=7.0, font="Sans", x0=400.0, x1=500.0, page=2), in_row=True,
                        page_height=792.0)
    assert find_styled_headings([blocks[0], blocks[1], caption, cell], BODY) == {}


def test_a_heading_at_a_page_foot_heads_the_text_after_a_caption_read_before_it():
    """A browser's print of a web page (Wikipedia's "Production" / "Development" at the
    foot of a page): the next page's picture caption, halfway down, is read before the
    text from that page's top. The headings stand over that text, not the caption; a
    caption read in its place (the text under it) is small print they do not head."""
    body = BodyStyle(12.0, "Serif", False)
    caption = HeadingBlock("The actress was cast for the series.", True, 3,
                           style(size=10.0, font="Sans", x0=41.0, x1=139.0, top=310.0, page=6),
                           page_height=792.0)
    blocks = [text(lines=5, top=100.0, size=12.0, font="Serif", page=5),
              heading("Production", size=18, font="Serif-Bold", x0=36.0, x1=121.0, top=660.0,
                      page=5),
              heading("Development", size=14, font="Sans-Bold", x0=36.0, x1=123.0, top=713.0,
                      page=5),
              caption, text(lines=7, top=32.0, size=12.0, font="Serif", page=6, x0=36.0,
                            x1=577.0)]
    assert set(find_styled_headings(blocks, body)) == {1, 2}
    below = blocks[4]._replace(style=style(size=12.0, font="Serif", page=6, x0=36.0, x1=577.0,
                                           top=400.0))
    assert find_styled_headings([*blocks[:4], below], body) == {}


def test_text_whose_size_is_unknown_is_no_small_print():
    """A paragraph whose lines' size could not be read (0) is running text as the body's:
    a heading over it is in proportion (Wikipedia's "Accolades" was left body text)."""
    body = BodyStyle(12.0, "Serif", False)
    unknown = text(lines=4, size=12.0, font="Serif", top=478.0)
    unknown = unknown._replace(style=unknown.style._replace(size=0.0))
    blocks = [text(lines=5, top=100.0, size=12.0, font="Serif"),
              heading("Accolades", size=14, font="Sans-Bold", x0=36.0, x1=105.0, top=455.0),
              unknown]
    assert find_styled_headings(blocks, body) == {1: 1}


def test_a_font_named_bold_is_bold_where_the_pdf_gives_no_weight():
    """A browser's print of a 10-K (AMD's risk factors): the category "Economic and
    Strategic Risks" in LiberationSans-Bold, its weight given as regular, over a risk's
    title in bold italic (weight bold): a heading, not a regular line over bold text (a
    form's answer over its label). A larger regular line over small text in a font named
    bold (Intel's "Exhibits" over its table's heads in Arial-BoldMT) stays one too."""
    body = BodyStyle(10.0, "LiberationSans", False)
    risk = HeadingBlock("Intel Corporation’s dominance of the microprocessor market adversely "
                        "affects our business.", True, 2,
                        style(size=10.0, bold=True, font="LiberationSans-BoldItalic",
                              top=320.0), page_height=792.0)
    blocks = [text(lines=5, top=100.0, font="LiberationSans"),
              heading("Economic and Strategic Risks", font="LiberationSans-Bold", top=300.0),
              risk, text(lines=6, top=350.0, font="LiberationSans")]
    assert 1 in find_styled_headings(blocks, body)
    # The same weight hidden on a line whose font's name says nothing: no heading.
    plain = heading("Economic and Strategic Risks", font="LiberationSans-Medium", top=300.0)
    assert 1 not in find_styled_headings([blocks[0], plain, *blocks[2:]], body)
    from ragbeam.transforms.clean.headings import _distinct

    assert _distinct(style(size=11.2, font="ArialMT"), style(size=7.2, font="Arial-BoldMT"))


def test_a_day_and_a_month_is_a_date_not_a_numbered_section():
    """A table's or a list's date ("9 August" in a list of reigns) reads like section 9
    titled "August"; set a little smaller than the body it was a level-1 heading that
    took the document's title out of every path after it."""
    for date in ("9 August", "31 December", "1 Jan.", "12 Sept"):
        assert heading_level(date) is None, date
    assert heading_level("9 Augustine's rule") == (1, "num-1")
    assert heading_level("3 Maybe later") == (1, "num-1")
    blocks = [text(lines=5, top=100.0), heading("9 August", size=9.0, font="Sans", top=300.0),
              text(lines=5, top=330.0)]
    assert find_styled_headings(blocks, BODY) == {}


def test_a_paper_tables_row_citing_its_work_is_no_heading():
    """A comparison table lists the works by author and year ("TRADE (Wu et al., 2019)
    O(n)"): title case, but a heading cites no one; a parenthesis that is no citation
    stays a heading's."""
    for row in ("TRADE (Wu et al., 2019) O(n)", "Baseline Model (Smith and Jones, 2018)",
                "Tracker (Lee 2020a)"):
        assert heading_level(row) is None, row
        blocks = [heading(row, font="Times-Bold", bold=True), text(lines=5)]
        assert find_styled_headings(blocks, BODY) == {}, row
    assert heading_level("Results on Dataset Two (Table 2)") == (2, "title")


def test_a_header_row_read_as_lines_side_by_side_is_no_heading():
    """A table's header cells set on two lines each, read by Tika one after another as
    the lines of one block: each line stands beside the one before, in its row; a
    heading's second line stands under its first."""
    from ragbeam.transforms.clean.base import CleanLine
    from ragbeam.transforms.clean.headings import _heading_block
    from ragbeam.transforms.types import BlockKind

    def line(words: str, x0: float, top: float, x1: float) -> tuple[str, CleanLine]:
        return ("", CleanLine(words, BlockKind.PARAGRAPH, 0, 1, 0, 0, len(words),
                              style=style(top=top, x0=x0, x1=x1, font="Arial-Bold",
                                          bold=True)))

    row = [line("Portrait Name Reign from", 60.0, 36.0, 230.0),
           line("Reign until Death Predecessor", 210.0, 34.0, 480.0),
           line("Title", 500.0, 42.0, 540.0)]
    text_of = " ".join(piece[1].text for piece in row)
    assert _heading_block(row, text_of, False).text is None
    # A film's title wrapped in its cell, the second line then the role's cell.
    film = [line("Good Morning,", 86.0, 615.0, 175.0), line("Miss Dove Miss Dove", 86.0, 626.0,
                                                             260.0)]
    film[1][1].style = film[1][1].style._replace(cells=((0, 86.0, 109.0), (10, 215.0, 260.0)))
    assert _heading_block(film, "Good Morning, Miss Dove Miss Dove", False).text is None
    wrapped = [line("Interventions to improve coping", 72.0, 300.0, 300.0),
               line("by shift workers", 72.0, 312.0, 180.0)]
    assert _heading_block(wrapped, "Interventions to improve coping by shift workers",
                          False).text is not None


def test_a_charts_share_or_a_cell_cut_off_is_no_heading():
    """A legend's "Unaffiliated – 12%", a box's cell "English (Choctaw" whose line goes on
    beside it: set apart, over text, but no heading; a closed parenthesis stays one's."""
    for label in ("Unaffiliated – 12%", "English (Choctaw"):
        assert heading_level(label) is None, label
        blocks = [heading(label, font="Times-Bold", bold=True), text(lines=5)]
        assert find_styled_headings(blocks, BODY) == {}, label
    blocks = [heading("Merovingian Dynasty (509–751)", font="Times-Bold", bold=True),
              text(lines=5)]
    assert find_styled_headings(blocks, BODY) == {0: 1}


def test_a_heading_over_a_line_restating_it_heads_the_text_after_that_line():
    """A booklet's "Foot Care" in bold over "COVERED SERVICES: Foot Care" in the body's type,
    then its text: the restating line is no list's next label, the heading heads the text."""
    for kicker in ("COVERED SERVICES: Foot Care", "Foot Care Services", "Foot care"):
        blocks = [heading("Foot Care", bold=True, font="Calibri-Bold"), heading(kicker),
                  text(lines=5)]
        assert find_styled_headings(blocks, BODY) == {0: 1}, kicker
    # A next line naming something else is a list of labels' next entry, or a caption: no
    # text follows the bold line.
    blocks = [heading("Foot Care", bold=True, font="Calibri-Bold"), heading("Orthotics and shoes"),
              text(lines=5)]
    assert find_styled_headings(blocks, BODY) == {}
