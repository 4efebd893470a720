"""Headings from a PDF's outline (``headings.outline_headings``,
``extract/outline.pdf_outline``): the pure matching, and real Tika output."""

from __future__ import annotations

import json

from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.clean.headings import (
    OUTLINE_KEY,
    BodyStyle,
    HeadingBlock,
    outline_headings,
    with_unlisted_references,
)
from ragbeam.transforms.extract.backends import EmbeddedTika
from ragbeam.transforms.extract.document import build_extracted_document
from ragbeam.transforms.extract.outline import pdf_outline
from ragbeam.transforms.types import BlockKind, FetchedFile, LineStyle, SourceFile

BODY = None  # a multi-line paragraph: never a heading


def test_outline_entries_find_their_paragraphs_in_order_with_their_levels():
    paragraphs = ["Contents", "1 Introduction 3", BODY, "1 Introduction", BODY,
                  "TOUS LES JOURS", "JAMAIS", "A.A.4 Memory", BODY, "A.A.5 Storage", BODY,
                  "Results", BODY]
    outline = [(1, "1 Introduction"), (2, "A.A.4 Memory"), (2, "A.A.5 Storage"),
               (1, "Missing section"), (1, "Results")]
    # The table of contents entry ("… 3") and the chart's capitals are not headings;
    # A.A.5 is a sibling of A.A.4, as the outline says.
    assert outline_headings(paragraphs, outline) == {3: 1, 7: 2, 9: 2, 11: 1}


def test_entries_match_with_or_without_their_numbering_and_repeated_titles_in_turn():
    paragraphs = ["1 Foo", BODY, "2 Bar", BODY, "3 Foo", BODY]
    assert outline_headings(paragraphs, [(1, "Foo"), (1, "Bar"), (1, "Foo")]) == {
        0: 1, 2: 1, 4: 1}


def test_an_outline_that_does_not_describe_the_text_leaves_headings_to_the_rules():
    paragraphs = ["1 Foo", BODY, "2 Bar", BODY]
    assert outline_headings(paragraphs, [(1, "First"), (2, "Second"), (2, "Foo")]) is None


def test_tikas_outline_of_a_real_pdf_becomes_its_headings(corpus_dir):
    data = (corpus_dir / "pdf/llncsdoc.pdf").read_bytes()
    xhtml, metadata = EmbeddedTika().extract(data, "llncsdoc.pdf")
    outline = pdf_outline(xhtml)
    assert outline[:3] == [(1, "1 Installation"), (1, "2 Working with the llncs Document Class"),
                           (2, "2.1 General Information")]
    fetched = FetchedFile(SourceFile("/in/llncsdoc.pdf", "d", len(data)), data, "h")
    extracted = build_extracted_document(fetched, xhtml, metadata)
    # With the page PDFium resolves each entry to (``outline.with_pages``).
    assert json.loads(extracted.metadata[OUTLINE_KEY])[:1] == [[1, "1 Installation", 1]]
    doc = clean_document(extracted, CleanOptions())
    headings = [(span.level, doc.text[span.start:span.end]) for span in doc.spans
                if span.kind is BlockKind.HEADING]
    assert headings == outline
    plain = EmbeddedTika().extract((corpus_dir / "pdf/dpr-multi-column.pdf").read_bytes(),
                                   "dpr.pdf")[0]
    assert pdf_outline(plain) == []


def _block(text: str | None, size: float = 10.0, font: str = "Times-Roman",
           lines: int = 1) -> HeadingBlock:
    return HeadingBlock(text, text is None, lines,
                        LineStyle(0, 1, 1, 72.0, 100.0, 300.0, 100.0 + size, size, False,
                                  False, font))


def test_a_reference_list_the_outline_leaves_out_gets_its_heading():
    """LaTeX's bibliography has no bookmark: without its heading the last section
    (the acknowledgements) is the parent of every reference."""
    body = BodyStyle(10.0, "Times-Roman", False)
    blocks = [_block("1 Introduction", 12, "Times-Bold"), _block(None, lines=6),
              _block("8 Acknowledgements", 12, "Times-Bold"), _block(None, lines=3),
              _block("References", 12, "Times-Bold"), _block(None, lines=9),
              _block("A Examples", 12, "Times-Bold"), _block(None, lines=4)]
    found = {0: 1, 2: 1, 6: 1}
    outline = [(1, "1 Introduction", 1), (1, "8 Acknowledgements", 9), (1, "A Examples", 12)]
    assert with_unlisted_references(blocks, found, outline, body) == {0: 1, 2: 1, 4: 1, 6: 1}
    # "References" in the body's type is a word of the text, not a heading.
    plain = [*blocks[:4], _block("References"), *blocks[5:]]
    assert with_unlisted_references(plain, found, outline, body) == found
    # An outline that lists the references has found them (or chose not to).
    listed = [*outline, (1, "References", 10)]
    assert with_unlisted_references(blocks, found, listed, body) == found
    # Before the first outline heading (a contents page's line) it heads nothing.
    assert with_unlisted_references([blocks[4], *blocks[:4]], {1: 1, 3: 1}, outline,
                                    body) == {1: 1, 3: 1}
