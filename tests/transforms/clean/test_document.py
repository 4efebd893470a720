from __future__ import annotations

import json

from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.types import Block, BlockKind, ExtractedDocument, SourceFile

from helpers import lines_of

SRC = SourceFile(uri="/x.pdf", doc_id="d", size_bytes=1)


def _doc(*blocks: Block, media_type: str = "text/plain") -> ExtractedDocument:
    return ExtractedDocument(source=SRC, content_hash="h", media_type=media_type,
                             raw_text="", blocks=blocks, metadata={},
                             lines=lines_of(media_type))


def test_text_is_blocks_joined_by_blank_lines_with_pages_mapped():
    doc = clean_document(_doc(
        Block(BlockKind.HEADING, "Title", page=1, level=1, raw_start=0, raw_end=5),
        Block(BlockKind.PARAGRAPH, "  ﬁrst   line \n second\tline ", page=1, raw_start=5,
              raw_end=29),
        Block(BlockKind.PARAGRAPH, " \n ", page=2),
        Block(BlockKind.PARAGRAPH, "page two", page=2, raw_start=40, raw_end=48),
    ), CleanOptions())
    assert doc.text == "Title\n\nfirst line\nsecond line\n\npage two"
    assert doc.pages_of(0, 5) == (1, 1)
    assert doc.pages_of(0, len(doc.text)) == (1, 2)
    start = doc.text.index("page two")
    assert doc.pages_of(start, start + 4) == (2, 2)
    assert doc.raw_range_of(start, start + 8) == (40, 48)
    for span in doc.spans:
        assert doc.text[span.start:span.end].strip() == doc.text[span.start:span.end]


def test_code_keeps_indentation_and_controls_are_removed():
    doc = clean_document(_doc(Block(BlockKind.CODE, "def f():\n    return 1\x00\n\n\n\n"),),
                         CleanOptions())
    assert doc.text == "def f():\n    return 1"


def test_text_decoded_in_the_wrong_charset_is_decoded_back_and_kept_in_place():
    # UTF-8 read as Latin-1 upstream (its C1 characters included) and as Windows-1252.
    raw = "Career\n1986\u00e2\x80\x931990 Watford\nthe caf\u00c3\u00a9 \u00e2\u20ac\u201dopen"
    doc = clean_document(_doc(Block(BlockKind.PARAGRAPH, raw, page=1, raw_start=0,
                                    raw_end=len(raw))), CleanOptions())
    assert doc.text == "Career\n1986\u20131990 Watford\nthe caf\u00e9 \u2014open"
    start = doc.text.index("1986")
    # A changed line maps to its whole raw line (as NFKC's do).
    assert doc.raw_range_of(start, start + 9) == (raw.index("1986"), raw.index("\nthe"))
    kept = clean_document(_doc(Block(BlockKind.PARAGRAPH, raw)),
                          CleanOptions.without(["repair_mojibake"]))
    assert "\u00e2" in kept.text


def test_text_that_merely_looks_unusual_is_not_repaired():
    # Accented capitals, a currency sign and quotes that a wrong decoding would also
    # produce, but as people write them.
    for text in ("\u00c0 la carte: \u00c9cole, \u00a3 5, \u201cok\u201d",
                 "SOCI\u00c9T\u00c9 G\u00c9N\u00c9RALE \u00a9 2023 \u2013 \u00dcber",
                 "标准（2020 年版）", "Stra\u00dfe M\u00fcnchen \u00d8resund"):
        doc = clean_document(_doc(Block(BlockKind.PARAGRAPH, text)), CleanOptions())
        assert doc.text == clean_document(_doc(Block(BlockKind.PARAGRAPH, text)),
                                          CleanOptions.without(["repair_mojibake"])).text


def _pdf_page(page: int, lines: list[str], start: int) -> tuple[list[Block], int]:
    blocks = []
    for line in lines:
        blocks.append(Block(BlockKind.PARAGRAPH, line, page=page, raw_start=start,
                            raw_end=start + len(line)))
        start += len(line)
    return blocks, start


def test_pdf_paragraph_joins_across_a_page_break_around_link_targets_and_page_numbers():
    wide = "A line of body text that runs all the way to the margin of the column and"
    p1, cursor = _pdf_page(1, ["Introduction", wide, wide, "then it breaks the page with manip-"],
                           0)
    link = Block(BlockKind.PARAGRAPH, "https://example.org/", page=1, raw_start=cursor,
                 raw_end=cursor + 20, detached=True)
    p2, _ = _pdf_page(2, ["2", "ulation of text, and ends here.", "Next paragraph starts."],
                      cursor + 20)
    p3, _ = _pdf_page(3, ["3", "Third page text that stays.", "More text on page three."], 500)
    doc = clean_document(_doc(*p1, link, *p2, *p3, media_type="application/pdf"),
                         CleanOptions())
    paragraphs = doc.text.split("\n\n")
    assert paragraphs[0] == "Introduction"
    assert paragraphs[1] == f"{wide} {wide} then it breaks the page with manipulation of text, " \
                            "and ends here."
    assert paragraphs[2] == "https://example.org/"  # after the paragraph it interrupted
    assert "\n2\n" not in f"\n{doc.text}\n" and "\n3\n" not in f"\n{doc.text}\n"
    start = doc.text.index("manipulation")
    assert doc.pages_of(start, start + len("manipulation of text")) == (1, 2)
    assert doc.metadata["clean_hyphenations_joined"] == "1"
    assert doc.metadata["clean_furniture_lines_removed"] == "2"
    assert json.loads(doc.metadata["clean_furniture_lines"]) == [[2, "2"], [3, "3"]]
    # Every span maps back to its own source line.
    for span in doc.spans:
        assert span.raw_end - span.raw_start >= span.end - span.start - 1


def test_each_step_can_be_switched_off():
    lines = ["Contents . . . . . . . 4", "the manip-", "ulation"]
    blocks = [Block(BlockKind.PARAGRAPH, "\n".join(lines), page=1)]
    off = CleanOptions(strip_leaders=False, dehyphenate=False, join_lines=False)
    assert clean_document(_doc(*blocks, media_type="application/pdf"), off).text == \
        "\n".join(lines)
    on = clean_document(_doc(*blocks, media_type="application/pdf"), CleanOptions())
    assert on.text == "Contents 4 the manipulation"


def test_no_clean_switches_steps_off_and_changes_the_config_hash():
    from ragbeam.pipeline.run import request_from_argv

    base = ["--input", "x", "--output", "out"]
    default = request_from_argv(base).config
    custom = request_from_argv(
        [*base, "--no-clean", "remove_furniture", "--no-clean", "join_lines"]).config
    assert default.clean == CleanOptions()
    assert custom.clean == CleanOptions(remove_furniture=False, join_lines=False)
    assert custom.config_hash != default.config_hash


def test_carriage_returns_end_lines_and_raw_offsets_stay_exact():
    raw = "first line\r\nsecond line\rthird line"
    doc = clean_document(_doc(Block(BlockKind.PARAGRAPH, raw, raw_start=0, raw_end=len(raw))),
                         CleanOptions())
    assert doc.text == "first line\nsecond line\nthird line"
    assert [raw[s.raw_start:s.raw_end] for s in doc.spans] == [
        "first line", "second line", "third line"]


def test_a_heading_over_two_lines_is_one_heading_span():
    raw = "Part One:\nThe Beginning"
    doc = clean_document(_doc(Block(BlockKind.HEADING, raw, level=1, raw_start=0,
                                    raw_end=len(raw))), CleanOptions())
    assert doc.text == "Part One: The Beginning"
    assert [(s.start, s.end, s.raw_start, s.raw_end) for s in doc.spans] == [
        (0, len(doc.text), 0, len(raw))]


def _styled_pdf(lines: list[tuple[str, float, bool, str, float]]) -> ExtractedDocument:
    """A one-page PDF whose lines (text, x0, bold, font, top) are each Tika's block of
    their own, styled as the layout pass styles them (11 pt)."""
    from ragbeam.transforms.types import LineStyle, PdfLayout

    blocks, styles, raw, cursor = [], [], "", 0
    for text, x0, bold, font, top in lines:
        blocks.append(Block(BlockKind.PARAGRAPH, text, page=1, raw_start=cursor,
                            raw_end=cursor + len(text)))
        styles.append(LineStyle(cursor, cursor + len(text), 1, x0, top, x0 + 5.0 * len(text),
                                top + 11.0, 11.0, bold, False, font))
        raw += text + "\n"
        cursor += len(text) + 1
    return ExtractedDocument(source=SRC, content_hash="h", media_type="application/pdf",
                             raw_text=raw, blocks=tuple(blocks), metadata={},
                             layout=PdfLayout(((612.0, 792.0),), tuple(styles)),
                             lines=lines_of("application/pdf"))


def test_a_numbered_bold_heading_runs_on_to_its_second_line_and_stays_one_heading():
    body = [("How could researchers leverage the library for their research? Here we walk",
             72.0, False, "Times", 150.0 + 13 * i) for i in range(5)]
    heading = [("4 Vignette: Building an Attributed QA", 72.0, True, "Times-Bold", 110.0),
               ("System for Scientific Papers", 72.0, True, "Times-Bold", 123.0)]
    doc = clean_document(_styled_pdf([*heading, *body]), CleanOptions())
    headings = [doc.text[s.start:s.end] for s in doc.spans if s.kind is BlockKind.HEADING]
    assert headings == ["4 Vignette: Building an Attributed QA System for Scientific Papers"]
    # Its title's second line under the title, after the number, with a word in a code
    # font (the line's face mixed, so not bold as a whole): the same heading.
    heading = [("3.1 Representing and manipulating", 72.0, True, "Times-Bold", 110.0),
               ("visually-rich documents with magelib", 96.0, False, "", 123.0)]
    doc = clean_document(_styled_pdf([*heading, *body]), CleanOptions())
    headings = [doc.text[s.start:s.end] for s in doc.spans if s.kind is BlockKind.HEADING]
    assert headings == ["3.1 Representing and manipulating visually-rich documents with magelib"]
    # A bold label over a bulleted line in a mixed face stays apart from it.
    heading = [("OBJECTIFS", 72.0, True, "Times-Bold", 110.0),
               ("y Prescrire et interpréter un examen des gaz du sang", 72.0, False, "", 123.0)]
    doc = clean_document(_styled_pdf([*heading, *body]), CleanOptions())
    assert "OBJECTIFS\n\n" in doc.text


def test_a_replacement_character_written_for_every_space_is_the_space():
    """Tika writes U+FFFD for every space of a PDF whose font maps its space glyph to
    nothing; a few U+FFFD for unreadable glyphs inside words stay."""
    sentence = "Das neue Premium-Smartphone setzt neue Maßstäbe mit schnellem Autofokus."
    spaced = sentence.replace(" ", "\ufffd")
    text = "\n".join([spaced] * 4)
    doc = clean_document(_doc(Block(BlockKind.PARAGRAPH, text, page=1, raw_start=0,
                                    raw_end=len(text)), media_type="application/pdf"),
                         CleanOptions())
    assert "\ufffd" not in doc.text and doc.text.startswith(sentence[:30])
    assert doc.metadata["clean_replacement_chars_as_spaces"] == "1"
    assert doc.raw_range_of(0, len(sentence)) == (0, len(spaced))  # offsets unchanged
    word = "Die Stra\ufffde ist lang und die Stadt ist alt, sagt er."
    doc = clean_document(_doc(Block(BlockKind.PARAGRAPH, word, page=1, raw_start=0,
                                    raw_end=len(word)), media_type="application/pdf"),
                         CleanOptions())
    assert "Stra\ufffde" in doc.text
    assert doc.metadata["clean_replacement_chars_as_spaces"] == "0"


def test_the_cyclic_collector_is_held_off_while_cleaning_and_left_as_it_was(monkeypatch):
    import gc

    import pytest

    import ragbeam.transforms.clean.document as document

    seen: list[bool] = []
    step = document._strip_leaders

    def watched(lines):
        seen.append(gc.isenabled())
        return step(lines)

    def failing(lines):
        raise RuntimeError("a step fails")

    one_line = _doc(Block(BlockKind.PARAGRAPH, "one line", page=1))
    monkeypatch.setattr(document, "_strip_leaders", watched)
    assert gc.isenabled()
    clean_document(one_line, CleanOptions())
    assert seen == [False] and gc.isenabled()  # off inside, on again after
    gc.disable()  # switched off by someone else: stays off
    try:
        clean_document(one_line, CleanOptions())
        assert seen == [False, False] and not gc.isenabled()
    finally:
        gc.enable()
    monkeypatch.setattr(document, "_strip_leaders", failing)
    with pytest.raises(RuntimeError):
        clean_document(one_line, CleanOptions())
    assert gc.isenabled()  # on again after a step fails


def test_a_heading_that_names_nothing_is_a_paragraph():
    """A word processor's heading style over a generator's UUID heads no section (it
    would stand in the heading path of everything below it); a heading with a word and
    a number still heads one."""
    doc = clean_document(_doc(
        Block(BlockKind.HEADING, "Introduction", level=1),
        Block(BlockKind.PARAGRAPH, "Large language models are a building block."),
        Block(BlockKind.HEADING, "d666f1f7-46cb-42bd-9a39-9a39cf2a509f", level=2),
        Block(BlockKind.PARAGRAPH, "In light of the intuition, we ask a question."),
        Block(BlockKind.HEADING, "Table 20231027", level=2),
        media_type="application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ), CleanOptions())
    headings = [doc.text[s.start:s.end] for s in doc.spans if s.kind is BlockKind.HEADING]
    assert headings == ["Introduction", "Table 20231027"]
    assert "d666f1f7-46cb-42bd-9a39-9a39cf2a509f" in doc.text  # kept as text


def test_link_syntax_and_printed_targets_leave_the_text():
    """Markdown's links are their words; a plain-text print loses its wrapped targets;
    a wiki's print footer goes from any document."""
    md = clean_document(_doc(
        Block(BlockKind.HEADING, "See [the guide](https://example.org/guide)", level=1),
        Block(BlockKind.PARAGRAPH, "Like [textract](https://github.com/example/textract).\n"
              "Ask on <https://example.org/discussions>."),
        media_type="text/markdown"), CleanOptions())
    assert md.text == ("See the guide\n\nLike textract.\nAsk on "
                       "<https://example.org/discussions>.")
    assert md.metadata["clean_link_targets_removed"] == "2"
    printed = "\n".join(['1. "Harbour tides" (https://www.exa',
                         "mple.org/tides/2009.html). The Quay Post.",
                         '2. "Pier lights" (ht', "tps://www.example.org/lights.html).",
                         '3. "Old ferry" (https://www.example.org/fer',
                         "ry.html) from the original. See [a map](https://example.org/m)."])
    text = clean_document(_doc(
        Block(BlockKind.PARAGRAPH, printed, raw_start=0, raw_end=len(printed)),
        Block(BlockKind.PARAGRAPH, 'Retrieved from "https://wiki.example.org/w/index.php?'
              'title=Harbour&oldid=80488"')), CleanOptions()).text
    assert "http" not in text and "Retrieved" not in text
    assert "The Quay Post." in text and "See a map." in text
