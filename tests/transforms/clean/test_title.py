"""What a document is called, what it is and its period (``clean/title.py``), on PDFs
made here and read by real Tika and PDFium, and the label every chunk's header starts
with (``chunk/records.py``)."""

from __future__ import annotations

from made_pdfs import Line, MadePdf, extract_and_clean, prose_lines, render

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.records import chunk_rows, context_header
from ragbeam.transforms.chunk.strategies import build_strategy
from ragbeam.transforms.clean.title import (
    TitleLine,
    cover_title,
    document_kind,
    document_period,
    first_line_title,
    metadata_title_score,
    name_document,
)
from ragbeam.transforms.embed.text import KIND_KEY, PERIOD_KEY, TITLE_SOURCE_KEY
from ragbeam.transforms.types import Document, SourceFile

ACCESSION = "0000320193-23-000006"
OPENING = "Harbour Cranes Inc. Annual Report 2022. The harbour authority inspected every crane."


def _filing(title: str | None = ACCESSION) -> MadePdf:
    return MadePdf(pages=[
        [Line("UNITED STATES SECURITIES AND EXCHANGE COMMISSION", 12, True),
         Line("FORM 10-Q", 14, True),
         Line("For the quarterly period ended March 31, 2023", 10),
         Line("Harbour Cranes Inc.", 20, True), *prose_lines()],
        [Line("Item 1. Financial Statements", 11, True), *prose_lines(), *prose_lines()],
    ], title=title, producer="EDGRpdf Service")


def test_the_cover_names_a_filing_whose_metadata_title_is_an_accession_number():
    doc = extract_and_clean(render(_filing()))
    assert doc.title == "Harbour Cranes Inc."
    assert doc.metadata[TITLE_SOURCE_KEY] == "cover"
    assert doc.metadata[KIND_KEY] == "Form 10-Q"
    assert doc.metadata[PERIOD_KEY] == "quarterly period ended March 31, 2023"
    strategy = build_strategy("structure", ChunkOptions(), {})
    rows = chunk_rows(doc, strategy.chunk(doc).chunks, "structure", "h", ChunkOptions().sizer())
    label = "Harbour Cranes Inc. · Form 10-Q · quarterly period ended March 31, 2023"
    assert rows and all(row["context"].startswith(label) for row in rows)
    assert not any(ACCESSION in row["context"] for row in rows)


def test_metadata_titles_that_name_no_document_are_not_titles():
    software = ["EDGRpdf Service w/ EO.Pdf 22.0.40.0", "Microsoft® Word for Microsoft 365"]
    for value in (ACCESSION, "04.01.2023 10Q", "Microsoft Word - report.docx",
                  "PowerPoint Presentation", "Untitled", "scan_20231027_123456.pdf",
                  "EDGRpdf Service w/ EO.Pdf 22.0.40.0", ""):
        assert metadata_title_score(value, OPENING, software) == 0.0, value
    assert metadata_title_score("Harbour Cranes Annual Report", OPENING, software) == 1.0
    # A real-looking title the document never prints is doubtful: half its words.
    assert metadata_title_score("Harbour Ferries Quarterly", OPENING) < 0.5


def test_metadata_title_stands_where_there_is_no_cover_and_it_is_a_real_title():
    name = name_document("Harbour Cranes Annual Report", {}, OPENING)
    assert (name.title, name.source, name.kind) == ("Harbour Cranes Annual Report", "metadata",
                                                    "Annual Report")
    assert name_document(ACCESSION, {}, OPENING).title is None
    # Outside PDFs a metadata title is its author's: a name suffices, a template's not.
    assert name_document("Quay rota", {}, "Mon,Tue", require_printed=False).title == \
        "Quay rota"
    assert name_document("Quay rota", {}, "Mon,Tue").title is None  # a PDF's must be printed
    assert name_document("Microsoft Word - rota.docx", {}, "Mon,Tue",
                         require_printed=False).title is None
    # An outline rooted at the document's name names it.
    outline = [(1, "Harbour Cranes Handbook", 1), (2, "Safety", 2), (2, "Brakes", 3)]
    assert name_document(ACCESSION, {}, OPENING, outline=outline).title == \
        "Harbour Cranes Handbook"


def test_the_cover_title_is_the_largest_text_not_a_stamp_a_link_or_a_sentence():
    lines = [TitleLine("arXiv:2301.01234v2 [cs.CL] 3 Jan 2023", 1, 24, 100, 124, rotated=True),
             TitleLine("https://example.org/journal", 1, 22, 20, 42),
             TitleLine("Learning to Retrieve", 1, 18, 60, 78),
             TitleLine("Passages for Questions", 1, 18, 80, 98),
             TitleLine("We show that retrieval helps question answering a lot.", 1, 18, 200, 218),
             TitleLine("Ann Author", 1, 12, 110, 122), TitleLine("Later page title", 2, 30, 10, 40)]
    assert cover_title(lines, 10) == "Learning to Retrieve Passages for Questions"
    assert cover_title(lines, 18) is None  # nothing set larger than the body


def test_a_filings_form_beside_its_companys_name_is_said_as_its_kind():
    lines = [TitleLine("FORM 10-Q", 1, 12.6, 50, 63),
             TitleLine("HARBOUR CRANES CORPORATION", 1, 12.6, 120, 133)]
    assert cover_title(lines, 8) == "HARBOUR CRANES CORPORATION"


def test_kinds_and_periods_as_documents_print_them():
    assert document_kind("UNITED STATES … FORM 10-K ANNUAL REPORT PURSUANT") == "Form 10-K"
    assert document_kind("Acme Corp Reports Results — Earnings Release") == "Earnings Release"
    assert document_kind("2024年度第2四半期決算概要") == "決算概要"
    assert document_period("For the fiscal year ended December 31, 2022 or") == \
        "fiscal year ended December 31, 2022"
    assert document_period("Date of Report (Date of earliest event reported): August 30, 2023") \
        == "August 30, 2023"
    assert document_period("Acme Reports Fourth Quarter and Full Year 2023 Results") == \
        "Fourth Quarter and Full Year 2023"
    assert document_period("2024年度第2四半期決算概要") == "2024年度第2四半期"
    assert document_period("The harbour authority inspected every crane.") is None


def test_a_calls_transcript_is_said_as_a_call_not_as_the_release_it_mentions():
    assert document_kind("Harbour Cranes FY23 Third Quarter Earnings Conference Call Ann Lee, "
                         "Bo Chan. Our earnings press release is on our website.") == \
        "Earnings Conference Call"
    assert document_kind("Q1 2022 HARBOUR CRANES INC. EARNINGS CALL — Conference Call "
                         "Participants") == "Earnings Call"
    # A release announces its call in prose: that names no kind.
    assert document_kind("Harbour Cranes will host a conference call to discuss its earnings "
                         "call results. Press Release") == "Press Release"
    assert document_kind("Harbour Cranes will host an earnings conference call at 2 p.m.") \
        is None


def _transcript(first_line: str) -> MadePdf:
    # Everything at the body's size and face: no line is set larger as the title.
    speech = ("Good afternoon and thank you for joining us today. Our earnings press release "
              "and financial summary slide deck are on our investor relations website. ") * 3
    return MadePdf(pages=[[Line(first_line, 10), Line("Ann Lee, Bo Chan, Cy Dunn", 10),
                           Line("Tuesday, April 25, 2023", 10), Line("ANN LEE:", 10, True),
                           *prose_lines(speech)]])


def test_a_transcript_with_nothing_set_larger_is_named_by_the_first_line_saying_what_it_is():
    doc = extract_and_clean(render(_transcript(
        "Harbour Cranes FY23 Third Quarter Earnings Conference Call")))
    assert doc.title == "Harbour Cranes FY23 Third Quarter Earnings Conference Call"
    assert doc.metadata[TITLE_SOURCE_KEY] == "first line"
    assert doc.metadata[KIND_KEY] == "Earnings Conference Call"
    assert doc.metadata.get(PERIOD_KEY) == "FY23"


def test_a_first_line_that_does_not_say_what_the_document_is_names_nothing():
    # The kind is named further down (the speech's "press release" is prose, lower case;
    # the heading says "Earnings Call"), not by the first line: no title is guessed.
    doc = extract_and_clean(render(_transcript("Harbour Cranes Investor Relations")))
    assert doc.title is None and doc.metadata[TITLE_SOURCE_KEY] == ""
    assert first_line_title([TitleLine("Earnings Call", 1, 10, 50, 60)], "Earnings Call") is None
    assert first_line_title([TitleLine("Acme will host its Earnings Call today at 5 p.m.", 1,
                                       10, 50, 60)], "Earnings Call") is None


def test_a_first_heading_that_restates_the_documents_name_is_said_once():
    """A report's title printed again as its first heading ("Financial Results" under
    the label "Financial Results · Q2 FY2024") is not repeated in the header; a heading
    further down the path that the label happens to contain stays."""
    doc = Document(source=SourceFile(uri="/r.pdf", doc_id="r", size_bytes=1),
                   content_hash="h", media_type="application/pdf", text="x",
                   title="Financial Results", metadata={PERIOD_KEY: "Q2 FY2024"})
    assert (context_header(doc, ("Financial  results", "Revenue", "Results"))
            == "Financial Results · Q2 FY2024 > Revenue > Results")
    assert context_header(doc, ("Revenue",)) == "Financial Results · Q2 FY2024 > Revenue"
    untitled = Document(source=doc.source, content_hash="h", media_type="text/plain",
                        text="x")
    assert context_header(untitled, ("Guide", "Install")) == "Guide > Install"


def test_a_printed_metadata_title_that_holds_the_covers_words_is_the_fuller_name():
    cover = [TitleLine("Results Summary", 1, 24.0, 50.0, 74.0)]
    text = "Second Quarter 2024 Results Summary\n\nRevenue rose in the quarter."
    fuller = name_document("Second Quarter 2024 Results Summary", {}, text, cover, 10.0)
    assert (fuller.title, fuller.source) == ("Second Quarter 2024 Results Summary", "metadata")
    # A metadata title that does not hold the cover's words leaves the cover's.
    other = name_document("Quarterly Deck", {}, text, cover, 10.0)
    assert (other.title, other.source) == ("Results Summary", "cover")


def test_a_report_opening_on_a_numbered_section_is_not_named_by_it():
    """A cover whose largest lines are the report's kind and its first section ("1
    Overview of the Group (1 April 2023 to 31 March 2024)") is named by the kind, not by
    the section; a cover that is only a numbered section names nothing."""
    cover = [TitleLine("Business Report", 1, 20.0, 40.0, 60.0),
             TitleLine("1 Overview of the Group (1 April 2023 to 31 March 2024)", 1, 20.0,
                       64.0, 84.0)]
    assert cover_title(cover, 10.0) == "Business Report"
    assert cover_title(cover[1:], 10.0) is None
    assert cover_title([TitleLine("第1章 事業の概況", 1, 20.0, 40.0, 60.0)], 10.0) is None
    assert cover_title([TitleLine("（1）主要な事業内容", 1, 20.0, 40.0, 60.0)], 10.0) is None


def test_the_issuing_organisation_leads_the_title_where_the_document_prints_its_name():
    text = "Business Report\n\nHarbour Cranes inspected every crane on the northern quay."
    cover = [TitleLine("Business Report", 1, 20.0, 40.0, 60.0)]
    name = name_document("Report No. 124", {"dc:creator": "Harbour Cranes Inc."}, text,
                         cover, 10.0)
    assert (name.title, name.source) == ("Harbour Cranes Inc. Business Report", "cover")
    # Said once where the title names it already; no title at all: the issuer names it.
    assert name_document(None, {"dc:creator": "Harbour Cranes Inc."}, text,
                         [TitleLine("Harbour Cranes Annual Review", 1, 20.0, 40.0, 60.0)],
                         10.0).title == "Harbour Cranes Annual Review"
    assert name_document(None, {"dc:creator": "Harbour Cranes Inc."}, "Harbour Cranes 2023",
                         ).title == "Harbour Cranes Inc."
    # A converter's name the document never prints, a person, software: no issuer.
    for author in ("EDGAR Online, a division of Donnelley Financial Solutions",
                   "Quay Records Ltd.", "Ann Author", "anonymous"):
        assert name_document(None, {"dc:creator": author}, text, cover, 10.0).title == \
            "Business Report", author
    assert name_document(None, {"dc:creator": "Harbour Cranes Inc.",
                                "pdf:producer": "Harbour Cranes Inc."}, text, cover,
                         10.0).title == "Business Report"
    # Japanese: the company's name printed without its legal form.
    ja = name_document(None, {"dc:creator": "港湾クレーン株式会社"},
                       "事業報告\n\n港湾クレーンは北の岸壁のクレーンを点検した。",
                       [TitleLine("事業報告", 1, 20.0, 40.0, 60.0)], 10.0)
    assert ja.title == "港湾クレーン株式会社 事業報告"
