"""A table's title (the short blocks right before it on its page) and its header row
travel with every piece of it: the title opens the table's first chunk when it fits,
and a chunk that starts inside the table carries title and header in its context."""

from __future__ import annotations

from ragbeam.transforms.chunk.records import chunk_rows
from ragbeam.transforms.chunk.sizing import CharSizer
from ragbeam.transforms.chunk.table import (
    TABLE_HEADER_KEY,
    TABLE_TITLE_KEY,
    split_keeping_tables,
    table_regions,
    table_row_spans,
    table_titles,
    title_text,
    with_table_headers,
)
from ragbeam.transforms.types import BlockKind, Chunk, Document, SourceFile, TextSpan

HEADER = "| Year ended December 31, 2022 | Year ended December 31, 2021"
ROWS = [f"Line item {i} | $ {i * 1000:,} | $ {i * 900:,}" for i in range(1, 13)]

Block = tuple[str, BlockKind, int]  # text, kind, page


def _doc(blocks: list[Block | list[str]], page_of_table: int = 1) -> Document:
    """A PDF-like document: prose blocks one span each, a table (a list of rows) a
    span per row sharing its block, blocks apart by a blank line."""
    text, spans = "", []
    for number, block in enumerate(blocks):
        if text:
            text += "\n\n"
        if isinstance(block, list):
            for i, row in enumerate(block):
                if i:
                    text += "\n"
                spans.append(TextSpan(len(text), len(text) + len(row), BlockKind.TABLE,
                                      page=page_of_table, block=number))
                text += row
        else:
            words, kind, page = block
            spans.append(TextSpan(len(text), len(text) + len(words), kind, page=page,
                                  block=number))
            text += words
    return Document(SourceFile("r.pdf", "r", len(text)), "h", "application/pdf", text,
                    tuple(spans))


def _titles(doc: Document) -> list[list[str]]:
    found = table_titles(doc, table_regions(doc))
    return [[doc.text[a:b] for a, b in spans] for spans in found.values()]


PROSE = ("Revenue grew in every segment over the year, as the table below shows in detail "
         "for each of the company's lines of business.")


def test_the_short_blocks_before_a_table_on_its_page_are_its_title():
    doc = _doc([(PROSE, BlockKind.PARAGRAPH, 1),
                ("CONSOLIDATED STATEMENTS OF OPERATIONS", BlockKind.HEADING, 1),
                ("(In millions, except per share data)", BlockKind.PARAGRAPH, 1),
                [HEADER, *ROWS]])
    assert _titles(doc) == [["CONSOLIDATED STATEMENTS OF OPERATIONS",
                             "(In millions, except per share data)"]]


def test_a_sentence_a_long_block_or_a_page_break_ends_the_title():
    sentence = _doc([("Net sales by segment.", BlockKind.PARAGRAPH, 1), [HEADER, *ROWS]])
    assert _titles(sentence) == []
    colon = _doc([("The following table shows net sales by segment:", BlockKind.PARAGRAPH, 1),
                  [HEADER, *ROWS]])
    assert _titles(colon) == [["The following table shows net sales by segment:"]]
    credits = ("Credits: Produced by the Online Distributed Proofreading Team (This file was "
               "produced from images available at The Internet Archive)")  # 20 words
    assert _titles(_doc([(credits, BlockKind.PARAGRAPH, 1), [HEADER, *ROWS]])) == []
    caption = ("The following table shows the components of lease expense recognized in the "
               "condensed consolidated statements of operations for the periods presented:")
    assert _titles(_doc([(caption, BlockKind.PARAGRAPH, 1), [HEADER, *ROWS]])) == [[caption]]
    units = ("(in millions)", BlockKind.PARAGRAPH, 1)
    assert _titles(_doc([(caption, BlockKind.PARAGRAPH, 1), units, [HEADER, *ROWS]])) == [
        [caption, "(in millions)"]]
    long_caption = " ".join(["word"] * 40) + " and more:"
    assert _titles(_doc([(long_caption, BlockKind.PARAGRAPH, 1), [HEADER, *ROWS]])) == []
    cjk = "表 7.5 停车区用地指标基准值（公顷/处）"
    assert _titles(_doc([(cjk, BlockKind.PARAGRAPH, 1), [HEADER, *ROWS]])) == [[cjk]]
    assert _titles(_doc([("停车区" * 50, BlockKind.PARAGRAPH, 1), [HEADER, *ROWS]])) == []
    other_page = _doc([("Segment results", BlockKind.HEADING, 1), [HEADER, *ROWS]],
                      page_of_table=2)
    assert _titles(other_page) == []


def test_at_most_three_blocks_nearest_last():
    doc = _doc([(f"Label {i}", BlockKind.PARAGRAPH, 1) for i in range(5)] + [[HEADER, *ROWS]])
    assert _titles(doc) == [["Label 2", "Label 3", "Label 4"]]


def test_the_note_under_a_table_above_is_not_the_next_table_s_title():
    doc = _doc([[HEADER, *ROWS[:3]],
                ("See accompanying notes", BlockKind.PARAGRAPH, 1),
                ("Balance sheet", BlockKind.HEADING, 1),
                [HEADER, *ROWS[3:]]])
    assert _titles(doc) == [["Balance sheet"]]
    alone = _doc([[HEADER, *ROWS[:3]], ("Balance sheet", BlockKind.HEADING, 1),
                  [HEADER, *ROWS[3:]]])
    assert _titles(alone) == [["Balance sheet"]]  # all there is


def test_title_text_is_one_line_without_what_the_heading_path_says():
    doc = _doc([("Segment  results", BlockKind.HEADING, 1),
                ("(in\nmillions)", BlockKind.PARAGRAPH, 1), [HEADER, *ROWS]])
    title = next(iter(table_titles(doc, table_regions(doc)).values()))
    assert title_text(doc, title) == "Segment results (in millions)"
    assert title_text(doc, title, ("Annual report", "Segment results")) == "(in millions)"


def test_the_first_group_leaves_room_for_the_title_the_others_do_not():
    text = "\n".join([HEADER, *ROWS])
    sizer = CharSizer()
    plain, _ = table_row_spans(text, 0, len(text), 200, sizer)
    led, _ = table_row_spans(text, 0, len(text), 200, sizer, lead=60)
    assert all(sizer.span(text, a, b) <= 200 for a, b in plain + led)
    assert sizer.span(text, *led[0]) <= 200 - 60
    assert led[0][1] < plain[0][1]
    # every row in exactly one group, cut between rows only
    assert "\n".join(text[a:b] for a, b in led) == text


def test_a_title_that_fits_opens_the_table_s_first_chunk():
    doc = _doc([(PROSE, BlockKind.PARAGRAPH, 1),
                ("Net sales by segment", BlockKind.HEADING, 1),
                ("(in millions)", BlockKind.PARAGRAPH, 1), [HEADER, *ROWS]])
    tables = table_regions(doc)
    spans, cuts = split_keeping_tables(doc.text, tables, 260, 0, CharSizer(),
                                       titles=table_titles(doc, tables))
    pieces = [doc.text[a:b] for a, b in spans]
    assert cuts == 0
    assert pieces[0] == PROSE  # the prose before the title stays apart
    assert pieces[1].startswith(f"Net sales by segment\n\n(in millions)\n\n{HEADER}\nLine item 1 ")
    assert all(len(p) <= 260 for p in pieces)
    assert "".join(pieces).replace("\n", "") == doc.text.replace("\n", "")


def test_a_title_too_long_to_share_stands_alone_and_travels_in_the_context():
    title = "Net sales by segment and by geographic area, in millions of dollars"
    doc = _doc([(title, BlockKind.PARAGRAPH, 1), [HEADER, *ROWS]])
    tables = table_regions(doc)
    spans, _ = split_keeping_tables(doc.text, tables, 110, 0, CharSizer(),
                                    titles=table_titles(doc, tables))
    assert doc.text[slice(*spans[0])] == title
    chunks = with_table_headers(doc, [Chunk(a, b, doc.text[a:b]) for a, b in spans])
    assert TABLE_TITLE_KEY not in chunks[0].metadata
    assert chunks[1].metadata[TABLE_TITLE_KEY] == title  # it starts at the header row
    assert TABLE_HEADER_KEY not in chunks[1].metadata
    for chunk in chunks[2:]:
        assert chunk.metadata[TABLE_TITLE_KEY] == title
        assert chunk.metadata[TABLE_HEADER_KEY] == HEADER


def test_every_later_piece_of_a_table_carries_title_and_header_in_its_context():
    doc = _doc([("Net sales by segment", BlockKind.HEADING, 1),
                ("(in millions)", BlockKind.PARAGRAPH, 1), [HEADER, *ROWS]])
    tables = table_regions(doc)
    spans, _ = split_keeping_tables(doc.text, tables, 200, 0, CharSizer(),
                                    titles=table_titles(doc, tables))
    chunks = [Chunk(a, b, doc.text[a:b]) for a, b in spans]
    rows = chunk_rows(doc, chunks, "recursive", "c", CharSizer(), embed_text=True)
    assert len(rows) >= 3
    assert rows[0]["text"].startswith("Net sales by segment")
    assert rows[0]["context"] == ""
    for row in rows[1:]:
        assert row["context"] == f"Net sales by segment (in millions)\n{HEADER}"
        assert row["metadata"][TABLE_TITLE_KEY] == "Net sales by segment (in millions)"
        assert row["embed_text"].endswith(f"{HEADER}\n\n{row['text']}")
        assert row["text"] == doc.text[row["char_start"]:row["char_end"]]  # exact


def test_a_chunk_under_the_title_s_heading_does_not_repeat_it():
    doc = _doc([("Net sales by segment", BlockKind.HEADING, 1), [HEADER, *ROWS]])
    start = doc.text.index("Line item 5")
    chunk = Chunk(start, len(doc.text), doc.text[start:],
                  heading_path=("Net sales by segment",))
    (out,) = with_table_headers(doc, [chunk])
    assert TABLE_TITLE_KEY not in out.metadata
    assert out.metadata[TABLE_HEADER_KEY] == HEADER
