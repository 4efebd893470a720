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
from ragbeam.transforms.types import (
    TABLE_HEADER_LEVEL,
    BlockKind,
    Chunk,
    Document,
    SourceFile,
    TextSpan,
)

HEADER = "| Year ended December 31, 2022 | Year ended December 31, 2021"
ROWS = [f"Line item {i} | $ {i * 1000:,} | $ {i * 900:,}" for i in range(1, 13)]

Block = tuple[str, BlockKind, int]  # text, kind, page


def _doc(blocks: list[Block | list[str]], page_of_table: int = 1, headed: bool = True
         ) -> Document:
    """A PDF-like document: prose blocks one span each, a table (a list of rows) a
    span per row sharing its block, its first row marked as the header row where
    ``headed`` (as cleaning marks one it found), blocks apart by a blank line."""
    return _built([(block, page_of_table, headed, BlockKind.TABLE) if isinstance(block, list)
                   else (block[0], block[2], False, block[1]) for block in blocks])


def _built(blocks: list[tuple[str | list[str], int, bool, BlockKind]]) -> Document:
    """The one builder: blocks (text or table rows, page, header row marked, kind) apart
    by a blank line; a table a span per row sharing its block."""
    text, spans = "", []
    for number, (block, page, headed, kind) in enumerate(blocks):
        if text:
            text += "\n\n"
        if isinstance(block, list):
            for i, row in enumerate(block):
                if i:
                    text += "\n"
                level = TABLE_HEADER_LEVEL if headed and i == 0 else 0
                spans.append(TextSpan(len(text), len(text) + len(row), BlockKind.TABLE,
                                      page=page, level=level, block=number))
                text += row
        else:
            spans.append(TextSpan(len(text), len(text) + len(block), kind, page=page,
                                  block=number))
            text += block
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


def test_a_pdf_table_found_without_a_header_lends_no_body_row_as_one():
    """A table cleaning found no header row for (or the part of one that goes on past a
    page) opens with a body row: later pieces carry no row of it in their context."""
    doc = _doc([("Net sales by segment", BlockKind.HEADING, 1), ROWS], headed=False)
    start = doc.text.index("Line item 5")
    (out,) = with_table_headers(doc, [Chunk(start, len(doc.text), doc.text[start:])])
    assert TABLE_HEADER_KEY not in out.metadata
    assert out.metadata[TABLE_TITLE_KEY] == "Net sales by segment"


def _paged_doc(blocks: list[tuple[str | list[str], int, bool]]) -> Document:
    """Blocks on given pages: a prose block (a heading where ``True``) one span, a table
    (a list of rows) a span per row, its first row marked as its header where ``True``."""
    return _built([(block, page, flag, BlockKind.TABLE) if isinstance(block, list)
                   else (block, page, False,
                         BlockKind.HEADING if flag else BlockKind.PARAGRAPH)
                   for block, page, flag in blocks])


def _chunk_at(doc: Document, row: str) -> Chunk:
    start = doc.text.index(row)
    return Chunk(start, len(doc.text), doc.text[start:])


def test_the_part_of_a_table_past_a_page_carries_its_title_and_header():
    """A table that goes on over a page: the part on the next page, which opens with a
    body row (or repeats the header), carries the first part's title and header row."""
    later = [f"Quay {i} | $ {i * 10:,} | $ {i * 9:,}" for i in range(1, 6)]
    doc = _paged_doc([("Crane tonnage by quay", 1, False), ([HEADER, *ROWS], 1, True),
                      (later, 2, False)])
    for row in ("Quay 1", "Quay 3"):
        (out,) = with_table_headers(doc, [_chunk_at(doc, row)])
        assert out.metadata[TABLE_HEADER_KEY] == HEADER, row
        assert out.metadata[TABLE_TITLE_KEY] == "Crane tonnage by quay", row
    # A later part that repeats the header has its own header and the first part's title.
    doc = _paged_doc([("Crane tonnage by quay", 1, False), ([HEADER, *ROWS], 1, True),
                      ("®", 1, False), ([HEADER, *later], 2, True)])
    (out,) = with_table_headers(doc, [_chunk_at(doc, "Quay 3")])
    assert out.metadata[TABLE_TITLE_KEY] == "Crane tonnage by quay"
    assert out.metadata[TABLE_HEADER_KEY] == HEADER
    start = doc.text.index(HEADER, doc.text.index("Quay") - len(HEADER) - 2)
    (first,) = with_table_headers(doc, [Chunk(start, len(doc.text), doc.text[start:])])
    assert TABLE_HEADER_KEY not in first.metadata  # it holds the header itself


def test_a_table_after_text_or_with_other_columns_continues_no_table():
    later = [f"Quay {i} | $ {i * 10:,} | $ {i * 9:,}" for i in range(1, 6)]
    narrow = [f"Quay {i} | {i}" for i in range(1, 6)]
    for blocks in (
            [("Crane tonnage by quay", 1, False), ([HEADER, *ROWS], 1, True),
             ("The harbour authority inspected every crane.", 2, False), (later, 2, False)],
            [("Crane tonnage by quay", 1, False), ([HEADER, *ROWS], 1, True), (narrow, 2, False)],
            [("Crane tonnage by quay", 1, False), ([HEADER, *ROWS], 1, True), (later, 1, False)],
    ):
        doc = _paged_doc(blocks)
        (out,) = with_table_headers(doc, [_chunk_at(doc, "Quay 3")])
        assert TABLE_HEADER_KEY not in out.metadata
        assert TABLE_TITLE_KEY not in out.metadata
    # A first part found without a header lends no body row to the part after it.
    doc = _paged_doc([("Crane tonnage by quay", 1, False), (ROWS, 1, False), (later, 2, False)])
    (out,) = with_table_headers(doc, [_chunk_at(doc, "Quay 3")])
    assert TABLE_HEADER_KEY not in out.metadata
    assert out.metadata[TABLE_TITLE_KEY] == "Crane tonnage by quay"


def test_a_note_at_the_foot_of_the_first_part_does_not_end_the_table():
    """A report's table over many pages with a note under its first part (a footnote,
    a source line at the page's foot): the next page's part, which opens with a body
    row, is still that table's and carries its title and header."""
    later = [f"Quay {i} | $ {i * 10:,} | $ {i * 9:,}" for i in range(1, 6)]
    note = ("*Publication note: this report is updated twice a month; a date on a weekend "
            "moves to the next working day.")
    doc = _paged_doc([("Crane tonnage by quay", 1, False), ([HEADER, *ROWS], 1, True),
                      (note, 1, False), (later, 2, False)])
    (out,) = with_table_headers(doc, [_chunk_at(doc, "Quay 3")])
    assert out.metadata[TABLE_HEADER_KEY] == HEADER
    assert out.metadata[TABLE_TITLE_KEY] == "Crane tonnage by quay"
    # The same note before a part with a header row of its own: a new table.
    doc = _paged_doc([("Crane tonnage by quay", 1, False), ([HEADER, *ROWS], 1, True),
                      (note, 1, False), (["Quay | Tons | Value", *later], 2, True)])
    (out,) = with_table_headers(doc, [_chunk_at(doc, "Quay 3")])
    assert out.metadata[TABLE_HEADER_KEY] == "Quay | Tons | Value"
    assert TABLE_TITLE_KEY not in out.metadata
    # Prose longer than a note between them: the reader's text, a new table.
    doc = _paged_doc([("Crane tonnage by quay", 1, False), ([HEADER, *ROWS], 1, True),
                      (note * 6, 1, False), (later, 2, False)])
    (out,) = with_table_headers(doc, [_chunk_at(doc, "Quay 3")])
    assert TABLE_HEADER_KEY not in out.metadata
