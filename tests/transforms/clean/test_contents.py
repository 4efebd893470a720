"""Contents pages and indexes (``clean/contents.py``): found on printed lines, marked
``BlockKind.CONTENTS``, never headings or parents, chunked apart and flagged ``toc``;
and a PDF's outline, resolved to pages, followed instead of its printed contents page."""

from __future__ import annotations

import json

from made_pdfs import PROSE as PROSE_TEXT
from made_pdfs import Line, MadePdf, extract_and_clean, prose_lines, render

from ragbeam.transforms.chunk.base import ChunkOptions, ContentsIndex, HeadingIndex
from ragbeam.transforms.chunk.records import TOC_KEY, chunk_rows, navigation_metadata
from ragbeam.transforms.chunk.strategies import build_strategy
from ragbeam.transforms.clean.contents import contents_lines, page_reference
from ragbeam.transforms.clean.headings import OUTLINE_KEY, outline_headings
from ragbeam.transforms.types import BlockKind, Document, SourceFile, TextSpan

CONTENTS_PAGE = ["Harbour Handbook", "Contents", "Page", "1 Cranes 3", "1.1 Brakes 3",
                 "2 Quays 4", "Wi-Fi Direct 5", "Configuring Wi-Fi Direct 5", "Index 9"]
STATEMENT = ["Net sales:", "Products $ 96,388 $ 104,429", "Services 20,766 19,516",
             "Total net sales 117,154 123,945", "Research and development 7,709 6,306",
             "Earnings per share 1.89 2.11"]
INDEX_PAGE = ["Index", "brakes, 3, 7", "cables, 12–14", "cranes, 3", "motors, 8, 2",
              "quays, 4", "safety, 1, 9", "Wi-Fi, 5, 11", "winches, 6"]


def _rows(doc):
    strategy = build_strategy("structure", ChunkOptions(), {})
    return chunk_rows(doc, strategy.chunk(doc).chunks, "structure", "h", ChunkOptions().sizer())


def test_contents_pages_and_indexes_are_found_and_tables_of_figures_are_not():
    found = contents_lines([CONTENTS_PAGE, STATEMENT, INDEX_PAGE, ["Just text."] * 6], 12)
    # After the contents title to the last entry; the document's name above stays, and
    # the title is left to heading detection.
    assert found[0] == set(range(2, len(CONTENTS_PAGE)))
    assert found[1] == set()
    assert found[2] == set(range(1, len(INDEX_PAGE)))
    assert found[3] == set()
    assert page_reference("Item 1A. Risk Factors 21", 40) == (21, False)
    assert page_reference("Total net sales 117,154", 40) is None
    assert page_reference("Diluted EPS $ 2.61", 40) is None
    assert page_reference("It happened in 2021.", 4000) is None


def _handbook(outline: bool) -> MadePdf:
    pdf = MadePdf(pages=[
        [Line("Harbour Handbook", 20, True), *prose_lines()],
        [Line("Contents", 14, True), Line("Chapter 1 Cranes 3"), Line("Brakes 3"),
         Line("Cables 3"), Line("Chapter 2 Quays 4"), Line("Moorings 4"), Line("Index 5")],
        [Line("Chapter 1 Cranes", 16, True), *prose_lines(), Line("Brakes", 12, True),
         *prose_lines(), Line("Cables", 12, True), *prose_lines()],
        [Line("Chapter 2 Quays", 16, True), *prose_lines(), Line("Moorings", 12, True),
         *prose_lines()],
        [Line("Index", 14, True), Line("brakes, 3"), Line("cables, 3, 4"), Line("cranes, 3"),
         Line("moorings, 4"), Line("quays, 4, 1"), Line("safety, 2, 3"), Line("winches, 4"),
         Line("wires, 3, 1")],
    ])
    if outline:
        pdf.outline = [(1, "Chapter 1 Cranes", 3), (2, "Brakes", 3), (2, "Cables", 3),
                       (1, "Chapter 2 Quays", 4), (2, "Moorings", 4)]
    return pdf


def test_a_contents_page_is_marked_never_a_heading_or_a_parent_and_chunked_apart():
    doc = extract_and_clean(render(_handbook(outline=False)))
    contents = [(span.page, doc.text[span.start:span.end]) for span in doc.spans
                if span.kind is BlockKind.CONTENTS]
    assert (2, "Chapter 1 Cranes 3") in contents and (2, "Moorings 4") in contents
    assert (5, "brakes, 3") in contents  # the index
    headings = [(span.page, doc.text[span.start:span.end]) for span in doc.spans
                if span.kind is BlockKind.HEADING]
    # "Contents" may head its contents; no entry of them is a heading.
    assert all(page in (1, 3, 4) or text in ("Contents", "Index") for page, text in headings)
    assert (3, "Chapter 1 Cranes") in headings and (3, "Brakes") in headings
    index = HeadingIndex(doc)
    assert all("Contents" not in index.path_at(span.start) for span in doc.spans
               if span.kind is not BlockKind.CONTENTS and span.page != 2)
    # The contents and the index are chunked apart from the text, and those chunks are
    # kept out of the index; no chunk of text carries a contents entry.
    chunks = build_strategy("structure", ChunkOptions(), {}).chunk(doc).chunks
    contents_index = ContentsIndex(doc)
    navigation = [c for c in chunks if navigation_metadata(contents_index, c) == {TOC_KEY: "1"}]
    assert {doc.pages_of(c.start, c.end)[0] for c in navigation} == {2, 5}
    rows = _rows(doc)
    assert len(rows) == len(chunks) - len(navigation)
    assert not any("Chapter 1 Cranes 3" in row["text"] or "cables, 3, 4" in row["text"]
                   for row in rows)
    brakes = next(row for row in rows if row["text"].startswith("Brakes"))
    assert brakes["heading_path"] == ["Chapter 1 Cranes", "Brakes"]


def test_headings_follow_the_outline_on_the_pages_it_points_at():
    doc = extract_and_clean(render(_handbook(outline=True)))
    assert json.loads(doc.metadata[OUTLINE_KEY])[0] == [1, "Chapter 1 Cranes", 3]
    headings = [(span.page, span.level, doc.text[span.start:span.end]) for span in doc.spans
                if span.kind is BlockKind.HEADING]
    assert headings == [(3, 1, "Chapter 1 Cranes"), (3, 2, "Brakes"), (3, 2, "Cables"),
                        (4, 1, "Chapter 2 Quays"), (4, 2, "Moorings")]


def test_an_outline_entry_is_matched_on_its_own_page_not_on_a_contents_page():
    # The printed contents page (page 2) repeats every title; the outline's pages say
    # where the headings are. Without pages the first match in order is taken.
    paragraphs = ["Cranes", "Quays", None, "Cranes", None, "Quays", None]
    pages = [2, 2, 2, 3, 3, 4, 4]
    outline = [(1, "Cranes", 3), (1, "Quays", 4)]
    assert outline_headings(paragraphs, outline, pages) == {3: 1, 5: 1}
    assert outline_headings(paragraphs, [(1, "Cranes"), (1, "Quays")], pages) == {0: 1, 1: 1}


def _document(blocks: list[tuple[str, BlockKind, int]]) -> Document:
    text, spans, cursor = "", [], 0
    for body, kind, level in blocks:
        if text:
            text += "\n\n"
            cursor += 2
        spans.append(TextSpan(cursor, cursor + len(body), kind, page=1, level=level))
        text += body
        cursor += len(body)
    return Document(SourceFile("/in/x.pdf", "x", 1), "h", "application/pdf", text,
                    tuple(spans))


def test_a_contents_title_heads_its_contents_only_whatever_the_next_heading_level():
    doc = _document([("Contents", BlockKind.HEADING, 1), ("Cranes 3", BlockKind.CONTENTS, 0),
                     ("Quays 4", BlockKind.CONTENTS, 0), ("Cranes", BlockKind.HEADING, 2),
                     (PROSE_TEXT, BlockKind.PARAGRAPH, 0)])
    index = HeadingIndex(doc)
    assert index.path_at(doc.text.index("Quays 4")) == ("Contents",)
    assert index.path_at(doc.text.index(PROSE_TEXT)) == ("Cranes",)
    # An ordinary level-1 heading stays the parent of the level-2 one.
    doc = _document([("Harbour", BlockKind.HEADING, 1), (PROSE_TEXT, BlockKind.PARAGRAPH, 0),
                     ("Cranes", BlockKind.HEADING, 2), (PROSE_TEXT, BlockKind.PARAGRAPH, 0)])
    assert HeadingIndex(doc).path_at(len(doc.text) - 1) == ("Harbour", "Cranes")


def test_page_reference_guard_skips_only_lines_the_pattern_cannot_match():
    """``page_reference`` tests a line's last character before searching it (the search
    scans once per letter of a line): every line it skips so, the pattern finds nothing
    in; the lines it finds references in are still found."""
    from ragbeam.transforms.clean import contents

    lines = [*CONTENTS_PAGE, *STATEMENT, *INDEX_PAGE, "Preface ix", "Preface  ix  ",
             "Chapter Two\u2003 14\u3000", "Figures \u0663", "Notes xvi.", "Item 1A. Risk 21 ",
             "printing, 12, 45–47", "a", "", "   ", "Summary", "see p. 12.", "Anhang B 12\t",
             "Kapitel ⅳ", "x 5", "5", "ends in c", "in v", "Appendix L", "Part ² 7²"]
    skipped = 0
    for line in lines:
        last = line.rstrip()[-1:]
        if not (last.isdecimal() or last in "ivxlc"):
            skipped += 1
            assert contents._REFERENCE.search(" ".join(line.split())) is None, line
            assert page_reference(line, 500) is None
    assert skipped >= 10
    assert page_reference("Preface  ix  ", 500) == (0, False)
    assert page_reference("Chapter Two\u2003 14\u3000", 500) == (14, False)
    assert page_reference("printing, 12, 45–47", 500) == (12, True)


def test_a_line_whose_end_is_no_reference_is_not_searched_whole():
    """``page_reference`` searches a line for the whole pattern only where its end
    (``_ENDS_IN_REFERENCE``) matches: every line the guard turns away, the whole pattern
    finds nothing in, and the references found are the pattern's."""
    from ragbeam.transforms.clean import contents

    lines = [*CONTENTS_PAGE, *STATEMENT, *INDEX_PAGE, "Preface ix", "Figure 3-2", "abc123",
             "Total 117,154", "12. 34", "see p. 12.", "x 5", "5", "Part ² 7²", "Item 1A. 21",
             "EPS $ 2.61", "4.2.1 The 14", "ii", "version 10", "a-1", "Table 3.12", "Chapter 1, 2"]
    turned_away = 0
    for line in lines:
        text = " ".join(line.split())
        whole = contents._REFERENCE.search(text)
        if contents._ENDS_IN_REFERENCE.search(text) is None:
            turned_away += 1
            assert whole is None, line
        elif whole is not None and len(text) <= contents.MAX_ENTRY_CHARS:
            assert page_reference(line, 500) is not None or text[:whole.start("refs")].rstrip(
                " ,.:")[-1:].isdigit(), line
    assert turned_away >= 3
