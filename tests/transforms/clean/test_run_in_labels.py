"""A run-in label that opens a paragraph in bold ("Research and Development: Research
and development expenses are …") is cut off as a heading of its own
(``headings.cut_run_in_labels``); a label that is no heading is read back into its
paragraph (``headings.rejoin_run_in_labels``). The lines are a 10-K's notes, as the
layout pass styles them: the label's line mixes faces, so its font is unknown and its
first letter's font is kept apart (``LineStyle.lead_font``)."""

from __future__ import annotations

from made_pdfs import Line, MadePdf, extract_and_clean, prose_lines, render

from ragbeam.transforms.chunk.base import HeadingIndex
from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.extract import layout
from ragbeam.transforms.types import (
    BlockKind,
    ExtractedDocument,
    LineStyle,
)

from helpers import paragraph_paths as paths
from helpers import styled_pdf

BOLD, REGULAR = "TimesNewRomanPS-BoldMT", "TimesNewRomanPSMT"
OPENING = ("The Company prepares its financial statements in conformity with accounting "
           "principles generally accepted in the United States of America.")


def _pdf(blocks: list[list[tuple[str, str, str]]]) -> ExtractedDocument:
    """A page of Tika blocks, each a list of (text, font, lead_font) lines, one under
    the other at the body's size and left edge."""
    styled, top = [], 72.0
    for lines in blocks:
        styled.append([])
        for text, font, lead in lines:
            styled[-1].append((text, LineStyle(0, 0, 1, 72.0, top, 540.0, top + 10.0, 10.0,
                                               font == BOLD, False, font, lead_font=lead)))
            top += 12.0
        top += 12.0
    return styled_pdf(styled)


def _regular(*texts: str) -> list[tuple[str, str, str]]:
    return [(text, REGULAR, "") for text in texts]


NOTES = [
    [("Note 2 - Significant Accounting Policies", BOLD, "")],
    _regular(OPENING, "Estimates are used for the allowance for doubtful accounts, for",
             "inventories, for goodwill and for the valuation of deferred tax assets."),
    [("Research and Development: Research and development expenses are charged to", "", BOLD),
     *_regular("expense as incurred and include the costs of the laboratories and of the",
               "staff who work in them, as well as the materials they use.")],
    [("Inventories, net: Inventories are stated at the lower of cost and net realizable",
      "", BOLD),
     *_regular("value, cost being determined on a first-in, first-out basis for most of",
               "the raw materials and the finished goods the Company holds.")],
    [("Income Taxes: The provision for income taxes is determined using the asset and",
      "", BOLD),
     *_regular("liability approach, deferred taxes measured at the rates enacted for the",
               "years in which the differences are expected to reverse.")],
]


def test_a_run_in_label_heads_its_policy_and_the_paragraph_reads_on():
    doc = clean_document(_pdf(NOTES), CleanOptions(remove_furniture=False))
    assert "Research and Development:\n\nResearch and development expenses are" in doc.text
    by_paragraph = paths(doc)
    note = "Note 2 - Significant Accounting Policies"
    assert by_paragraph[next(p for p in by_paragraph if p.startswith("Research and"))] == (
        note, "Research and Development")  # the label's colon is no part of its name
    assert by_paragraph[next(p for p in by_paragraph if p.startswith("Inventories are"))] == (
        note, "Inventories, net")
    assert by_paragraph[next(p for p in by_paragraph if p.startswith(OPENING[:20]))] == (note,)


def test_two_labels_are_no_series_of_sections():
    """A paper's "Proof:", a release's two segments: labels opening paragraphs, not the
    titles of a note's policies."""
    doc = clean_document(_pdf(NOTES[:4]), CleanOptions(remove_furniture=False))
    assert "Research and Development: Research and development expenses are" in doc.text
    assert all(path == ("Note 2 - Significant Accounting Policies",)
               for path in paths(doc).values())


def test_a_label_that_is_no_heading_stays_in_its_paragraph():
    line = ("• Computing and Mobile Phones: which include computers, tablets and the phones "
            "we sell")
    repeated = ("Note: Amounts may not add due to rounding and to the currency of the "
                "segments reported")
    blocks = [*NOTES[:2], [(line, "", BOLD), *_regular("in our stores and online.")],
              [(repeated, "", BOLD), *_regular("in the tables above.")],
              [(repeated, "", BOLD), *_regular("in the tables below.")]]
    doc = clean_document(_pdf(blocks), CleanOptions(remove_furniture=False))
    # A bullet's label: no heading, read back into its paragraph. A label the document
    # repeats word for word ("Note:"): no section's title, never cut.
    assert f"{line} in our stores and online." in doc.text
    assert f"{repeated} in the tables above." in doc.text
    assert not any(doc.text[s.start:s.end].startswith(("•", "Note:")) for s in doc.spans
                   if s.kind is BlockKind.HEADING)


def test_a_label_in_the_bodys_face_is_no_run_in_heading():
    plain = [NOTES[0], NOTES[1],
             [("Research and Development: Research and development expenses are charged to",
               REGULAR, ""), *NOTES[2][1:]]]
    doc = clean_document(_pdf(plain), CleanOptions(remove_furniture=False))
    assert "Research and Development: Research and development expenses" in doc.text


def test_a_real_pdfs_bold_label_heads_its_paragraph_with_either_layout_pass(monkeypatch):
    """Real Tika and PDFium over a PDF whose label is a bold run before the regular text
    on one line: the layout pass (C, and the Python twin) keeps the label's font apart,
    and the label heads the paragraph it opens."""
    body = prose_lines()
    page = [Line("Note 2 - Significant Accounting Policies", 12.0, bold=True),
            *body[:4],
            Line(" Research and development expenses are charged to expense as incurred",
                 lead="Research and Development:", gap=20.0),
            Line("and include the costs of the laboratories and of their staff."),
            Line(" Inventories are stated at the lower of cost and net realizable value,",
                 lead="Inventories:", gap=20.0),
            Line("cost being determined on a first-in, first-out basis for most of them."),
            Line(" The provision for income taxes is determined using the liability",
                 lead="Income Taxes:", gap=20.0),
            Line("approach, deferred taxes measured at the rates enacted for those years."),
            *body[4:8]]
    data = render(MadePdf([page]))
    docs = []
    for native in ("1", "0"):
        monkeypatch.setenv(layout.NATIVE_ENV, native)
        docs.append(extract_and_clean(data))
    assert docs[0].text == docs[1].text and docs[0].spans == docs[1].spans
    doc = docs[0]
    index = HeadingIndex(doc)
    at = doc.text.index("Research and development expenses")
    assert index.path_at(at) == ("Note 2 - Significant Accounting Policies",
                                 "Research and Development")
