"""What a document is called, what it is and its period (``clean/title.py``), on PDFs
made here and read by real Tika and PDFium, and the label every chunk's header starts
with (``chunk/records.py``)."""

from __future__ import annotations

from made_pdfs import Line, MadePdf, extract_and_clean, prose_lines, render

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.records import chunk_rows, context_header
from ragbeam.transforms.chunk.strategies import build_strategy
from ragbeam.transforms.clean.title import (
    DocumentName,
    TitleLine,
    cover_title,
    document_kind,
    document_period,
    fallback_name,
    first_line_title,
    has_no_title_of_its_own,
    metadata_title_score,
    name_document,
    registrant_title,
    trading_symbol,
)
from ragbeam.transforms.embed.text import KIND_KEY, PERIOD_KEY, TITLE_SOURCE_KEY, document_label
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


def test_a_titles_note_mark_is_no_part_of_the_name():
    """A paper's title set with the mark of its first page's footnote (funding, venue)."""
    lines = [TitleLine("Adversarial Learning for Chinese NER", 1, 18, 60, 78),
             TitleLine("from Crowd Annotations∗", 1, 18, 80, 98)]
    body = "We propose an approach to learning from crowd annotations. " * 5
    name = name_document(None, {}, body, lines, 10)
    assert name.title == "Adversarial Learning for Chinese NER from Crowd Annotations"
    for title in ("Deep Retrieval*", "Deep Retrieval †", "Deep Retrieval"):
        lines = [TitleLine(title, 1, 18, 60, 78)]
        assert name_document(None, {}, body, lines, 10).title == "Deep Retrieval"
    # A mark alone is no title's end, nor a starred word inside it.
    lines = [TitleLine("A*-Search for Routing", 1, 18, 60, 78)]
    assert name_document(None, {}, body, lines, 10).title == "A*-Search for Routing"


def test_a_filings_form_beside_its_companys_name_is_said_as_its_kind():
    lines = [TitleLine("FORM 10-Q", 1, 12.6, 50, 63),
             TitleLine("HARBOUR CRANES CORPORATION", 1, 12.6, 120, 133)]
    assert cover_title(lines, 8) == "HARBOUR CRANES CORPORATION"


def test_kinds_and_periods_as_documents_print_them():
    assert document_kind("UNITED STATES … FORM 10-K ANNUAL REPORT PURSUANT") == "Form 10-K"
    assert document_kind("Acme Corp Reports Results — Earnings Release") == "Earnings Release"
    assert document_kind("2024年度第2四半期決算概要") == "決算概要"
    assert document_period("For the fiscal year ended December 31, 2022 or") == \
        "fiscal year ended December 31, 2022 (FY2022)"
    assert document_period("Date of Report (Date of earliest event reported): August 30, 2023") \
        == "August 30, 2023"
    assert document_period("Acme Reports Fourth Quarter and Full Year 2023 Results") == \
        "Fourth Quarter and Full Year 2023 (FY2023)"
    assert document_period("2024年度第2四半期決算概要") == "2024年度第2四半期（2024年度上期）"
    assert document_period("The harbour authority inspected every crane.") is None


def test_a_japanese_period_is_said_as_a_reader_asks_for_it_too():
    # A business report states its fiscal year as a span of dates: that year is 年度,
    # named by the year it begins in.
    assert document_period("事業報告 1 企業集団の現況（自 2021年4月1日 至 2022年3月31日）") \
        == "2021年度"
    assert document_period("第88期（2021年1月1日から2021年12月31日まで）") == "2021年度"
    # A quarter's or nine months' span is no year.
    assert document_period("前第3四半期累計 (自 2021年 4月 1日 至 2021年12月31日)") is None
    # A fiscal year named by the month it ends in (January to March): its 年度 beside it.
    assert document_period("2023年3月期 第2四半期決算短信〔日本基準〕（連結）") == \
        "2023年3月期 第2四半期（2022年度第2四半期）"
    assert document_period("2023年2月期 決算短信") == "2023年2月期（2022年度）"
    # One that ends later is named either way by companies: left as printed.
    assert document_period("2023年6月期 決算短信") == "2023年6月期"
    assert document_period("2023年12月期 第1四半期決算短信") == "2023年12月期 第1四半期"


def test_an_english_reports_year_is_said_as_analysts_name_it_too():
    # A year stated by its end date, or as a full year, is named "FY<year>" beside it: a
    # question asks for "FY2022", which a filing never prints.
    assert document_period("ANNUAL REPORT for the year ended 30 June 2023") == \
        "year ended 30 June 2023 (FY2023)"
    assert document_period("for the fiscal year ended January 28, 2023") == \
        "fiscal year ended January 28, 2023 (FY2023)"
    assert document_period("For the twelve months ended 2021-09-30") == \
        "twelve months ended 2021-09-30 (FY2021)"
    # A 52/53-week year that ends in the first days of January is the year before's.
    assert document_period("For the fiscal year ended January 1, 2023") == \
        "fiscal year ended January 1, 2023 (FY2022)"
    assert document_period("For the fiscal year ended Jan. 3, 2021") == \
        "fiscal year ended Jan. 3, 2021 (FY2020)"
    # A quarter or some months: the fiscal quarter's number depends on a fiscal calendar
    # the document does not state, so it is left as printed.
    assert document_period("For the quarterly period ended July 29, 2023") == \
        "quarterly period ended July 29, 2023"
    assert document_period("for the nine months ended September 30, 2023") == \
        "nine months ended September 30, 2023"
    assert document_period("Acme Reports Third Quarter Fiscal 2023 Results") == \
        "Third Quarter Fiscal 2023"


def test_a_label_says_an_english_year_the_title_names_by_its_other_name_only():
    period = document_period("Acme Reports Fourth Quarter and Full Year 2023 Results")
    assert document_label("ACME REPORTS FOURTH QUARTER AND FULL YEAR 2023 RESULTS",
                          "Earnings Release", period) == \
        "ACME REPORTS FOURTH QUARTER AND FULL YEAR 2023 RESULTS · Earnings Release · FY2023"
    assert document_label("Acme Corp", "Form 10-K", document_period(
        "For the fiscal year ended December 31, 2022")) == \
        "Acme Corp · Form 10-K · fiscal year ended December 31, 2022 (FY2022)"
    # A title in brackets names no period: kept whole.
    assert document_label("Acme Corp (ACME)", "Form 10-K", None) == "Acme Corp (ACME) · Form 10-K"


def test_a_second_quarters_results_are_said_as_the_half_year_too():
    # A 第2四半期 results report covers the fiscal year's first half, its 上期.
    assert document_period("2025年度 第２四半期 決算説明会") == \
        "2025年度 第２四半期（2025年度上期）"
    assert document_period("2025年度第1四半期決算概要") == "2025年度第1四半期"
    assert document_label("港湾機械株式会社 2025年度第2四半期決算概要", "決算概要",
                          document_period("2025年度第2四半期決算概要")) == \
        "港湾機械株式会社 2025年度第2四半期決算概要 · 2025年度上期"


def test_the_period_a_title_states_is_the_documents():
    # A results deck whose cover is read title first ("決算概要" over the period printed
    # above it): the opening's first period is its second slide's, a section's.
    opening = ("決算概要\n\n2025年度第2四半期\n\n2025年10月30日港湾機械株式会社\n\n"
               "2025年度上期 連結業績概要\n\n売上収益 1,200 億円 前年比 +3 %")
    assert document_period(opening) == "2025年度上期"
    name = name_document("2025年度第2四半期決算概要", {}, opening)
    assert name.period == "2025年度第2四半期（2025年度上期）"
    assert name.label().endswith("2025年度第2四半期決算概要 · 2025年度上期")
    # A title that states no period leaves the opening's.
    assert name_document("港湾機械 決算概要", {}, opening).period == "2025年度上期"


def test_a_label_says_a_period_the_title_already_names_by_its_other_name_only():
    period = document_period("2023年3月期 第2四半期決算短信")
    assert document_label("港湾機械株式会社 2023年3月期 第2四半期決算短信", "決算短信", period) \
        == "港湾機械株式会社 2023年3月期 第2四半期決算短信 · 2022年度第2四半期"
    assert document_label("港湾機械株式会社 決算短信", "決算短信", period) == \
        "港湾機械株式会社 決算短信 · 2023年3月期 第2四半期（2022年度第2四半期）"
    assert document_label("港湾機械株式会社 事業報告", None, "2021年度") == \
        "港湾機械株式会社 事業報告 · 2021年度"


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


LOG = ("2016-12-19 16:31:46,895 INFO Completed load of log test-5 in 5 ms\n"
       "2016-12-19 16:31:46,904 INFO Completed load of log test-6 in 1 ms\n") * 20


def test_a_log_or_a_table_in_plain_text_is_named_by_its_file_where_nothing_else_names_it():
    # Real Tika: a log and a CSV carry no title of their own; what names them in every
    # chunk's header is the name their author gave the file, whatever the folder.
    for data, name in ((LOG.encode(), "kafka0-server.log"),
                       (b"city,visits\nOslo,3\nBergen,5\n" * 10, "visits-2023.csv")):
        doc = extract_and_clean(data, name)
        assert doc.title == name and doc.metadata[TITLE_SOURCE_KEY] == "file name"
        assert context_header(doc, ("Results",)) == f"{name} > Results"


def test_a_pdf_or_a_web_page_is_never_named_by_its_file():
    # Their formats carry or print a title: where none was found, the file's name (often
    # a scanner's or a download's) does not stand in for it.
    pdf = extract_and_clean(render(_transcript("Harbour Cranes Investor Relations")),
                            "scan_0001.pdf")
    assert pdf.title is None
    untitled = DocumentName(None)
    for media_type in ("application/pdf", "text/html",
                       "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                       "message/rfc822"):
        assert not has_no_title_of_its_own(media_type)
        assert fallback_name(untitled, None, "gs://b/in/x.bin", media_type) == untitled
    for media_type in ("text/plain; charset=UTF-8", "text/csv", "text/x-log", "text/markdown",
                       "text/x-python", "application/json"):
        assert has_no_title_of_its_own(media_type), media_type
    assert fallback_name(untitled, None, "gs://bucket/logs/app.log?generation=3",
                         "text/plain").title \
        == "app.log"
    assert fallback_name(DocumentName("Ops Runbook", "metadata"), "Setup", "/in/runbook.md",
                         "text/markdown").title == "Ops Runbook"


def test_an_office_file_or_markdown_without_a_title_is_named_by_its_opening_heading():
    # Real Tika: a Markdown file opening on its title heading, sections below it at the
    # same level as in a paper written in Word ("Abstract", "Introduction").
    text = ("# Harbour Crane Maintenance Guide\n\n## Abstract\n\n" + "The cranes are "
            "inspected every month by the harbour authority. " * 8 + "\n\n## Inspection\n\n"
            + "Each inspection covers the hoist, the brakes and the rails. " * 8)
    doc = extract_and_clean(text.encode(), "guide.md")
    assert doc.title == "Harbour Crane Maintenance Guide"
    assert doc.metadata[TITLE_SOURCE_KEY] == "opening heading"
    assert context_header(doc, ("Harbour Crane Maintenance Guide", "Inspection")) == \
        "Harbour Crane Maintenance Guide > Inspection"
    numbered = extract_and_clean(text.replace("# Harbour Crane Maintenance Guide",
                                              "# 1. Overview").encode(), "guide.md")
    assert numbered.title == "guide.md" and numbered.metadata[TITLE_SOURCE_KEY] == "file name"
    untitled = DocumentName(None)
    for line in ("Title", "Contents", "1. Overview", "The cranes are inspected every month."):
        assert fallback_name(untitled, line, "/in/x.docx", "application/msword") == untitled

def test_a_spreadsheet_s_default_sheet_name_is_no_title():
    """A workbook's first sheet keeps the name its application gave it ("Sheet1",
    "Tabelle1", "Feuil1", "工作表1") unless someone renamed it: no title; a renamed
    sheet's name is one."""
    untitled = DocumentName(None)
    xlsx = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    for line in ("Sheet1", "Sheet 2", "Tabelle1", "Feuil3", "Hoja 1", "工作表1", "シート1"):
        assert fallback_name(untitled, line, "/in/book.xlsx", xlsx) == untitled
        assert name_document(line, {}, "a | b", require_printed=False).title is None
    named = fallback_name(untitled, "Crane inspections 2024", "/in/book.xlsx", xlsx)
    assert named.title == "Crane inspections 2024"
    assert fallback_name(untitled, "Sheet metal orders", "/in/b.xlsx", xlsx).title


def test_a_mail_subject_naming_an_address_is_still_the_mail_s_title():
    """A subject is its author's name for a mail, also where it holds an address or a
    link ("Delivery failure (bob@example.org)"); an address alone is no title, and a
    PDF's metadata title (a converter's) is held to the stricter rule as before."""
    body = "Your message could not be delivered to the recipient."
    for subject in ("Delivery failure (bob@example.org)", "Re: slides for jane@example.com",
                    "Minutes, see https://example.org/minutes"):
        assert name_document(subject, {}, body, require_printed=False).title == subject
    for subject in ("bob@example.org", "<bob@example.org>", "https://example.org/x"):
        assert name_document(subject, {}, body, require_printed=False).title is None
    assert name_document("Delivery failure (bob@example.org)", {}, body).title is None


_COVER = ("UNITED STATES SECURITIES AND EXCHANGE COMMISSION\n\nFORM 10-K\n\n"
          "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934"
          "\n\nFor the fiscal year ended December 31, 2022\n\n"
          "For the transition period from to\n\nCommission file number 1-2345\n\n"
          "{name}\n\n(Exact name of registrant as specified in its charter)\n\n"
          "Delaware 12-3456789\n\nIndicate by check mark whether the registrant is a shell.")


def test_a_filing_is_named_by_its_registrant_whatever_the_size_it_is_set_in():
    """A securities filing's cover prints the filer's name above the form's caption
    "(Exact name of registrant as specified in its charter)": the name, even where it is
    set no larger than the body (nothing on the cover stands out by size) or a converter's
    metadata title holds it and more."""
    text = _COVER.format(name="HARBOUR CRANES CORPORATION")
    body = [TitleLine(line, 1, 9.0, 10.0 * n, 10.0 * n + 7) for n, line in
            enumerate(text.split("\n\n"))]
    name = name_document("0000012345-23-000007", {}, text, body, 9.0)
    assert (name.title, name.source, name.kind) == ("HARBOUR CRANES CORPORATION", "cover",
                                                    "Form 10-K")
    assert name.period == "fiscal year ended December 31, 2022 (FY2022)"
    web = name_document("10-Q - 10/28/2022 - Harbour Cranes Corporation", {}, text, body, 9.0)
    assert web.title == "HARBOUR CRANES CORPORATION"
    # Joined to the file number's line; the caption's other spellings.
    assert registrant_title("Commission File No. 000-1234 Harbour Cranes, Inc.\n"
                            "(Exact Name of Registrants as Specified in their Charters)"
                            ) == "Harbour Cranes, Inc."
    assert registrant_title("Harbour Cranes N.V. (Exact name of registrant as specified in "
                            "its charter)") == "Harbour Cranes N.V."
    assert registrant_title("Commission file number: 000-30653\n\nHarbour Gaming, Inc.\n\n"
                            "(Exact name of small business issuer as specified in its charter)"
                            ) == "Harbour Gaming, Inc."


def test_a_registrant_caption_with_no_name_above_it_names_nothing():
    # The form's own line above the caption, a caption heading a table of registrants,
    # no caption at all.
    assert registrant_title("For the transition period from to\n\n(Exact name of registrant "
                            "as specified in its charter)") is None
    assert registrant_title("Commission File Number | (Exact name of registrant as specified "
                            "in its charter) | IRS No.\n1-2345 | Harbour Cranes Inc. | 1") is None
    assert registrant_title("Harbour Cranes Inc.\n\nAnnual Report 2022") is None
    assert registrant_title("FORM 8-K\n(Exact name of registrant as specified in its "
                            "charter)") is None


def test_a_registrant_is_named_with_the_trading_symbol_its_cover_lists():
    """The cover's Section 12(b) table gives each class's trading symbol before its
    exchange, as running text or as a table's cells; the symbol joins the registrant's
    name unless the name holds it; no table, no symbol."""
    table = ("Securities registered pursuant to Section 12(b) of the Act:\n\n"
             "Title of each class Trading Symbol(s) Name of each exchange on which registered"
             "\n\nCommon Stock, $0.01 par value per share HCX The Nasdaq Global Select Market"
             "\n\n1.125% Notes due 2027 HCX27 New York Stock Exchange")
    assert trading_symbol(table) == "HCX"
    assert trading_symbol("Section 12(b) of the Act:\nTitle of each class | Trading Symbol(s) "
                          "| Name of each exchange on which registered\nCommon Stock, par "
                          "value $0.01 per share | HC | New York Stock Exchange") == "HC"
    assert trading_symbol("Securities registered pursuant to Section 12(b) of the Act: None"
                          "\n\nIndicate by check mark whether the registrant is a shell.") is None
    text = _COVER.format(name="HARBOUR CRANES CORPORATION").replace(
        "Delaware 12-3456789", "Delaware 12-3456789\n\n" + table)
    assert name_document(None, {}, text).title == "HARBOUR CRANES CORPORATION (HCX)"
    said = _COVER.format(name="HCX Holdings, Inc.") + "\n\n" + table
    assert name_document(None, {}, said).title == "HCX Holdings, Inc."


def test_a_cover_with_no_registrant_caption_still_names_its_trading_symbol():
    """Some filers print no "(Exact name of registrant …)" caption: the name then comes
    from the cover's largest line, and the Section 12(b) table's symbol joins it as it
    joins a registrant's; a cover with no such table gets none."""
    table = ("Securities registered pursuant to Section 12(b) of the Act:\n\n"
             "Title of each class | Trading Symbol | Name of exchange on which registered\n"
             "Common stock, $0.01 par value per share | HCX | NASDAQ")
    text = ("UNITED STATES SECURITIES AND EXCHANGE COMMISSION\n\nFORM 10-Q\n\n"
            "For the Quarterly Period Ended December 31, 2022\n\nHARBOUR CRANES CORPORATION"
            "\n\nWASHINGTON 91-1234567\n\n(STATE OF INCORPORATION) (I.R.S. ID)\n\n" + table)
    cover = [TitleLine("HARBOUR CRANES CORPORATION", 1, 16.0, 200.0, 216.0)]
    assert name_document(None, {}, text, cover, 9.0).title == "HARBOUR CRANES CORPORATION (HCX)"
    plain = text.replace(table, "Indicate by check mark whether the registrant is a shell.")
    assert name_document(None, {}, plain, cover, 9.0).title == "HARBOUR CRANES CORPORATION"


def test_a_browser_printed_page_is_named_by_its_page_not_its_site():
    """A web page printed by a browser: its metadata title is the page's <title>, the
    name it prints large then the site's ("Harbour Cranes - Quaypedia"); the site's name
    is the same on every page of the site and names none of them."""
    cover = [TitleLine("Harbour Cranes", 1, 24, 60, 84)]
    opening = "Harbour Cranes. Quaypedia, the free harbour encyclopedia. Cranes lift boxes."
    browser = {"pdf:producer": "Skia/PDF m123", "xmp:CreatorTool": "Chromium"}
    name = name_document("Harbour Cranes - Quaypedia", browser, opening, cover, 10.0)
    assert (name.title, name.source) == ("Harbour Cranes", "cover")
    assert name_document("Harbour Cranes | Quay Port Authority", browser, opening, cover,
                         10.0).title == "Harbour Cranes"
    # Not a browser's print: the fuller metadata title stays, as before.
    assert name_document("Harbour Cranes - Quaypedia", {"pdf:producer": "pdfTeX-1.40"},
                         opening, cover, 10.0).title == "Harbour Cranes - Quaypedia"
    # A tail that says what the page is or when is the page's name, not a site's.
    assert name_document("Harbour Cranes - Annual Report 2022", browser,
                         opening + " Annual Report 2022.", cover, 10.0).title == \
        "Harbour Cranes - Annual Report 2022"
    # No separator: the metadata title is one name ("Harbour Cranes Quaypedia").
    assert name_document("Harbour Cranes Quaypedia", browser, opening, cover,
                         10.0).title == "Harbour Cranes Quaypedia"


def test_a_bare_covers_publisher_over_the_documents_name_are_both_the_title():
    # A publisher's booklets share its name, set largest; the line below names each.
    lines = [TitleLine("Harbour Cranes", 1, 28, 100, 128),
             TitleLine("Crane Operators Dental Plan", 1, 20, 140, 160),
             TitleLine("This booklet explains the plan in detail for members.", 2, 10, 40, 50)]
    assert cover_title(lines, 10) == "Harbour Cranes — Crane Operators Dental Plan"


def test_a_cover_with_body_text_a_kind_or_a_period_below_keeps_its_largest_line():
    publisher = TitleLine("Harbour Cranes", 1, 28, 100, 128)
    body = TitleLine("Commission file number 001-01234", 1, 10, 300, 310)
    plan = TitleLine("Crane Operators Dental Plan", 1, 20, 140, 160)
    assert cover_title([publisher, plan, body], 10) == "Harbour Cranes"  # a cover sheet
    assert cover_title([publisher, TitleLine("Annual Report", 1, 20, 140, 160)], 10) \
        == "Harbour Cranes"
    assert cover_title([publisher, TitleLine("December 31, 2022", 1, 20, 140, 160)], 10) \
        == "Harbour Cranes"
    # Three sizes: no one line under the publisher's name.
    assert cover_title([publisher, plan, TitleLine("Members' edition", 1, 14, 170, 184)],
                       10) == "Harbour Cranes"


def test_a_kind_named_in_prose_past_the_opening_paragraph_is_not_the_documents():
    """A role library's duties ("prepare the quarterly financial statements") talk about
    documents; a release's first sentence ("today reported financial results") says what
    it is; a title says it wherever it stands."""
    duties = "Roles at Harbour Cranes. " + "Chief Financial Officer. Lead the team. " * 40
    assert document_kind(duties + "Lead the preparation of quarterly financial statements.") \
        is None
    assert document_kind("Harbour Cranes today reported financial results for the quarter.") \
        == "Financial Results"
    assert document_kind(duties + "Annual Report 2023") == "Annual Report"


def test_a_title_may_end_in_a_question_mark():
    """A paper's title asks ("… Really Finish Your Sentence?", over two lines): it is the
    cover's largest text, not a sentence to pass over for a figure's label below it."""
    lines = [TitleLine("Do Prompt-Based Models Really Understand", 1, 14.3, 79, 93),
             TitleLine("the Meaning of Their Prompts?", 1, 14.3, 95, 109),
             TitleLine("Suppose a human is given two sentences and asked whether", 1, 10, 300,
                       310),
             TitleLine("the second follows from the first; the models are not.", 1, 10, 312,
                       322),
             TitleLine("easy!", 1, 11.4, 395, 406)]
    assert cover_title(lines, 10) == ("Do Prompt-Based Models Really Understand the Meaning "
                                      "of Their Prompts?")
