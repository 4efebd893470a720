"""A tagged PDF's heading elements as a heading source (``extract/tagged.py``,
``headings.outline_headings`` unordered, ``headings.mark_headings`` tagged): a PDF that
Chromium printed from ``tests/data/tagged-headings.html`` (its structure tree tags
h1…h3), one PDFium writes untagged, and the pure matching."""

from __future__ import annotations

import io
import json
import pathlib

import pypdfium2 as pdfium

from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.clean.headings import (
    OUTLINE_KEY,
    TAGGED_HEADINGS_KEY,
    _without_label_runs,
    outline_headings,
    outline_of,
    tagged_only,
)
from ragbeam.transforms.extract.backends import EmbeddedTika
from ragbeam.transforms.extract.document import build_extracted_document
from ragbeam.transforms.extract.tagged import tagged_headings
from ragbeam.transforms.types import BlockKind, FetchedFile, SourceFile

TAGGED = pathlib.Path(__file__).resolve().parents[2] / "data" / "tagged-headings.pdf"
EXPECTED = [(1, "Lighthouses of the North Coast", 1), (2, "History", 1), (3, "Early lamps", 1),
            (2, "Towers that still stand", 1), (3, "Signal Point", 1), (2, "Sources", 1)]


def test_a_tagged_pdfs_heading_elements_with_their_levels_and_pages():
    assert tagged_headings(TAGGED.read_bytes()) == EXPECTED


def test_an_untagged_pdf_and_bytes_pdfium_refuses_have_none():
    document = pdfium.PdfDocument.new()
    document.new_page(595, 842)
    out = io.BytesIO()
    document.save(out)
    document.close()
    assert tagged_headings(out.getvalue()) == []
    assert tagged_headings(b"%PDF-1.7 not a pdf") == []


def test_tagged_headings_stand_in_for_a_missing_outline_only():
    tagged = json.dumps([[1, "Title", 1]])
    assert outline_of({TAGGED_HEADINGS_KEY: tagged}) == [(1, "Title", 1)]
    assert tagged_only({TAGGED_HEADINGS_KEY: tagged})
    both = {OUTLINE_KEY: json.dumps([[1, "Outline", 2]]), TAGGED_HEADINGS_KEY: tagged}
    assert outline_of(both) == [(1, "Outline", 2)] and not tagged_only(both)
    assert outline_of({}) == [] and not tagged_only({})


def test_unordered_entries_take_their_page_s_paragraph_wherever_the_last_matched():
    # Text wrapped around a floated image is read before the heading over it: the tree
    # says History, Religion; the text has Religion's paragraph first on page 2.
    paragraphs = ["Religion", "Body text", "History", "Body text", "Religion"]
    pages = [2, 2, 2, 2, 3]
    entries = [(2, "History", 2), (3, "Religion", 2)]
    assert outline_headings(paragraphs, entries, pages) == {2: 2, 4: 3}  # ordered: page 3
    assert outline_headings(paragraphs, entries, pages, ordered=False) == {2: 2, 0: 3}


def test_a_run_of_adjacent_blocks_tagged_at_one_level_is_a_label_block():
    # An address block tagged H2 line by line (name, lab, city) is no section.
    assert _without_label_runs({0: 1, 3: 2, 4: 2, 5: 2, 7: 2, 8: 3}) == {0: 1, 7: 2, 8: 3}
    assert _without_label_runs({1: 2, 2: 2, 4: 2}) == {1: 2, 2: 2, 4: 2}


def test_a_tagged_pdf_without_outline_gets_its_tree_s_headings_as_sections():
    data = TAGGED.read_bytes()
    xhtml, metadata = EmbeddedTika().extract(data, "tagged-headings.pdf")
    fetched = FetchedFile(SourceFile("/in/tagged-headings.pdf", "d", len(data)), data, "h")
    extracted = build_extracted_document(fetched, xhtml, metadata)
    assert OUTLINE_KEY not in extracted.metadata
    assert json.loads(extracted.metadata[TAGGED_HEADINGS_KEY]) == [list(e) for e in EXPECTED]
    doc = clean_document(extracted, CleanOptions())
    headings = [(span.level, doc.text[span.start:span.end]) for span in doc.spans
                if span.kind is BlockKind.HEADING]
    assert headings == [(level, text) for level, text, _ in EXPECTED]


def test_two_tagged_headings_printed_on_one_line_match_it_together():
    # A filing tags "ITEM 1." and "BUSINESS" apart and prints them on one line.
    from ragbeam.transforms.clean.headings import _merge_split_entries

    paragraphs = ["PART I", "ITEM 1. BUSINESS", None, "Overview", None]
    entries = [(3, "PART I", 6), (4, "ITEM 1.", 6), (4, "BUSINESS", 6), (5, "Overview", 6)]
    merged = _merge_split_entries(entries, paragraphs)
    assert merged == [(3, "PART I", 6), (4, "ITEM 1. BUSINESS", 6), (5, "Overview", 6)]
    assert outline_headings(paragraphs, merged, [6] * 5, ordered=False) == {0: 3, 1: 4, 3: 5}
