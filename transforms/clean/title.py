"""What a document is called and what it is, as a person would say it (pure).

A chunk read alone must say which document it comes from: a question names
"Apple", "Form 10-Q", "FY2022", and a chunk of that filing's notes names none of
them. Metadata titles are often no title at all: an EDGAR accession number
(``0000320193-23-000006``), a file name, a template's name ("Microsoft Word -
report.docx", "PowerPoint Presentation") or the producing software. So the
title is taken, in this order, from:

1. **the cover** (PDFs with a layout): the text set largest on the first page
   that has text, where it is set larger than the document's body text (lines
   at the largest size, in reading order: a filing's "FORM 10-Q" and its
   company's name when both are set at that size); a rotated margin stamp, a
   link, a number or a long sentence is no title;
2. **the outline's root**: a PDF outline with a single top entry that reads
   like a title names the whole document;
3. **the metadata title**, only where it reads like a title
   (``metadata_title_score``): words of letters, no file name, template name,
   identifier or producing software, and, for a PDF (whose metadata a converter
   often fills), most of its words printed in the document's opening text;
4. **the first line** of the first page (nothing set larger, no title above),
   where it says what the document is and more ("Acme FY23 Third Quarter Earnings
   Conference Call", ``first_line_title``): a first line that names no kind
   ("UNITED STATES", a date, a page header) is no title.
5. **the opening heading** of a document not printed on pages (an office file, Markdown,
   plain text): its first line, where it is a heading that reads like a title ("AutoGen:
   Enabling Next-Gen LLM Applications …" above "Abstract"; ``opening_heading_title``);
   a PDF's is its cover's business (1.);
6. **the file name**, only for a format that has no title of its own (plain text,
   logs, CSV, code, Markdown, JSON: ``fallback_name``): there the name its author gave
   the file is the only one it has ("kafka0-server.log"). A format that carries or
   prints its title (PDF, office documents, web pages, mail) is never named by its
   file: a missing title there means none was found, and such files are often named
   by a scanner, a download or a filing system (``scan_0001.pdf``, an accession number).

A cover's line that opens a numbered section ("1 Overview of the Group", "第1章 …",
"（1）…") is the first section's heading printed large, not the document's name. Where
the metadata's author is an organisation (``issuer``: a company's legal form, "…
Inc.", "… 株式会社") that the document prints, and the title does not name it, the
title starts with it: a report titled "Business Report" is that company's.

Besides the title, what the document is and the period it covers, where its
opening says so (``document_kind``, ``document_period``): a form ("Form 10-Q"),
a kind of report ("Annual Report", "Earnings Release", "決算短信") or a call's
transcript ("Earnings Call"), and "the
quarterly period ended December 31, 2022", "fiscal year 2023",
"2024年度第2四半期". ``document_label`` joins them into the one line that names
the document in a chunk's contextual header.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ragbeam.transforms.charsets import CJK_CHAR, SENTENCE_ENDS
from ragbeam.transforms.clean.headings import is_identifier, opens_numbered_section
from ragbeam.transforms.clean.layout import sizes_differ
from ragbeam.transforms.contents_title import is_contents_title
from ragbeam.transforms.embed.text import KIND_KEY, PERIOD_KEY, TITLE_SOURCE_KEY, document_label

# Where the title, the kind and the period are looked for: the document's opening.
OPENING_CHARS = 6000
# Where a kind stated in prose still says what the document is: its headline and first
# paragraph (``_in_prose``).
OPENING_PROSE_CHARS = 1000
MAX_TITLE_WORDS = 24
MAX_TITLE_CHARS = 200
# A metadata title is taken when at least this share of its words are printed in the
# document's opening (a real title is on the cover or the first page).
MIN_TITLE_WORDS_PRINTED = 0.5
# Title lines of one group: consecutive in reading order and at most this many line
# heights apart vertically.
MAX_TITLE_LINE_GAP = 2.5
MAX_TITLE_GROUPS = 2
# Lines set at the title's size: within this share of it (PDF sizes are exact; a line
# a point smaller is another line of the cover, not the title's).
TITLE_SIZE_TOLERANCE = 0.04
# Between a bare cover's largest line (its publisher) and the line below it that names
# the document ("Contoso Electronics — Northwind Health Standard Plan").
COVER_SUBTITLE_SEPARATOR = " — "
# A line ending in a full stop is a sentence, not a title, from this many words on.
MIN_SENTENCE_WORDS = 5
# Metadata keys that name the software that made the file, not the document.
SOFTWARE_KEYS = ("pdf:producer", "pdf:docinfo:producer", "pdf:docinfo:creator_tool",
                 "xmp:CreatorTool", "producer", "creator_tool", "extended-properties:Application",
                 "Application-Name", "generator", "meta:generator")

# Metadata keys that name a document's author.
AUTHOR_KEYS = ("dc:creator", "meta:author", "pdf:docinfo:creator", "Author", "creator")
# An issuer's name without its legal form is at least this long ("3M", "富士通").
MIN_ISSUER_CHARS = 2
# An organisation's legal form, which names a company, not a person or a tool.
_ORGANISATION = re.compile(
    r"(?:株式会社|有限会社|合同会社|股份有限公司|有限公司|\b(?:Inc|Incorporated|Corp|"
    r"Corporation|Company|Ltd|Limited|LLC|LLP|PLC|AG|GmbH|S\.A|N\.V|S\.p\.A)\b)",
    re.IGNORECASE)

_WORD = re.compile(r"[^\W\d_]{2,}")
_LETTER_WORD = re.compile(r"[^\W\d_][^\W_]*")
_FILE_NAME = re.compile(r"\.(?:pdf|docx?|dotx?|xlsx?|pptx?|odt|ods|odp|rtf|txt|html?|tex|dvi|"
                        r"ps|eps|indd|qxd|pages|key|numbers|md|csv|xml)\b", re.IGNORECASE)
# "Microsoft Word - report", "Microsoft PowerPoint - deck": a printer driver's prefix.
_APP_PREFIX = re.compile(r"^(?:microsoft\s+)?(?:word|excel|powerpoint|outlook)\s+-\s+",
                         re.IGNORECASE)
# Names templates and tools give a document nobody named.
_PLACEHOLDERS = frozenset({
    "untitled", "untitled document", "document", "document1", "new document", "title",
    "no title", "notitle", "default", "template", "presentation", "powerpoint presentation",
    "slide 1", "word document", "microsoft word", "draft", "final", "copy", "none", "null",
    "unknown", "pdf", "scan", "scanned document", "print", "blank",
})
_URL = re.compile(r"https?://|www\.|\S@\S", re.IGNORECASE)
# The name an application gives a new sheet ("Sheet1", "Tabelle1", "Feuil1", "Hoja 2",
# "工作表1", "シート1"): a spreadsheet's first sheet keeps it unless someone renamed it,
# so it names no document.
_DEFAULT_SHEET_NAME = re.compile(
    r"(?:sheet|tabelle|feuil(?:le)?|hoja|foglio|planilha|folha|blad|ark|arkusz|list|лист|"
    r"munkalap|sayfa|taulukko|工作表|シート|시트)[^\S\n]*\d+", re.IGNORECASE)
# An address or link inside an author's title ("Delivery failure (bob@example.org)"),
# with the brackets around it.
_ADDRESS_TOKEN = re.compile(r"[(<\[]?\S*(?:https?://|www\.|\S@\S)\S*?[)>\]]?(?=\s|$)",
                            re.IGNORECASE)

# The caption securities forms print below the filer's name: "(Exact name of registrant
# as specified in its charter)", "(Exact Name of Registrants as Specified in their
# Charters)", "(Exact name of issuer as specified in its charter)", a small filer's "(Exact
# name of small business issuer as specified in its charter)".
_REGISTRANT_CAPTION = re.compile(
    r"\(\s*exact\s+name\s+of\s+(?:the\s+)?(?:small\s+business\s+)?"
    r"(?:registrant|issuer|company|trust|fund)(?:s|\(s\))?"
    r"\s+as\s+specified\s+in\s+(?:its|their)\s+(?:charters?|governing\s+instruments?)",
    re.IGNORECASE)
# What precedes the name on its line where lines were joined: the cover's file number.
_FILE_NUMBER = re.compile(r"^.*\bfile\s+(?:number|no\.?)\s*:?\s*[\d-]+[.,;]?\s*", re.IGNORECASE)
# The form's own lines, which are no registrant's name.
_FORM_LINE = re.compile(r"\b(?:pursuant|transition\s+period|securities\s+and\s+exchange|"
                        r"commission|period\s+ended|year\s+ended|date\s+of\s+report)\b",
                        re.IGNORECASE)

# A filing's cover lists the securities registered under Section 12(b), each class with its
# trading symbol before the exchange that lists it ("Common Stock, $0.01 par value AMD
# The Nasdaq Global Select Market"; as a table's cells, "… | CVS | New York Stock
# Exchange"): the name people often call the company by.
_SECTION_12B = re.compile(r"\bSection\s+12\(b\)", re.IGNORECASE)
SYMBOL_WINDOW_CHARS = 600
_EXCHANGE = (r"(?:The\s+)?(?:New\s+York\s+Stock\s+Exchange|Nasdaq|NASDAQ|NYSE|Cboe|CBOE|"
             r"Chicago\s+Stock\s+Exchange)")
_SYMBOL = re.compile(r"(?<![\w$.,%/-])([A-Z]{1,5}(?:\.[A-Z])?)\s*\|?\s*"
                     r"(?:Name\s+of\s+(?:each\s+)?exchange\s+on\s+which\s+registered\s*)?"
                     + _EXCHANGE)
_NOT_SYMBOLS = frozenset({"NYSE", "NASDAQ", "CBOE", "LLC", "INC", "PLC", "THE", "II", "III"})

# What the document is: a form ("FORM 10-Q", "Form 8-K", "Form 20-F", "Schedule 14A"),
# or a kind of report named on its cover.
_FORM = re.compile(r"\b(?:FORM|Form)\s+(\d{1,2}-[A-Z]{1,2}\b|[A-Z]{1,3}-\d{1,2}[A-Z]?\b|"
                   r"DEF\s?14A\b|\d{3,4}(?:-[A-Z]{1,3})?\b)")
_REPORT = re.compile(
    r"\b((?:Annual|Quarterly|Interim|Half[- ]Year(?:ly)?|Semi-?Annual|Integrated|"
    r"Sustainability|Performance|Earnings|Financial)\s+(?:Report|Results|Release|Statements?)"
    r"|Earnings\s+Release|Press\s+Release|Proxy\s+Statement|Prospectus|"
    r"Investor\s+Presentation|Accident\s+Report|Study\s+Protocol|Clinical\s+(?:Study|Trial)"
    r"\s+Protocol)\b", re.IGNORECASE)
# A call's transcript: "Q1 2022 Acme Inc. Earnings Call", "FY23 Third Quarter Earnings
# Conference Call". A release announces its call in prose ("will host a conference call
# to discuss …"), so only a kind capitalised as a title's words counts (``_call_kind``).
_CALL = re.compile(r"\b((?:(?:Earnings|Quarterly|Results)\s+(?:Conference\s+)?|Conference\s+)"
                   r"Call)\b", re.IGNORECASE)
_CJK_REPORT = re.compile(r"(決算短信|決算概要|決算説明(?:会)?資料|有価証券報告書|四半期報告書|"
                         r"統合報告書|年次報告書?|年度報告|季度报告|半年度报告|招股说明书|"
                         r"株主総会(?:招集通知)?)")
_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
          r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?")
_DATE = (rf"(?:{_MONTH}\s+\d{{1,2}},?\s+\d{{4}}|\d{{1,2}}\s+{_MONTH}\s+\d{{4}}|"
         r"\d{4}-\d{2}-\d{2})")
_ORDINAL = r"(?:first|second|third|fourth|1st|2nd|3rd|4th)"
# A word each match of ``_REPORT`` holds (case-folded; none with an "i", which an
# ignore-case pattern also matches as "ı" or "İ", letters that casefold keeps apart):
# a text without any of them is not searched (the patterns are slow on a long opening).
_REPORT_WORDS = ("report", "result", "release", "statement", "prospectus", "presentat",
                 "protocol")


def _names_any(folded: str, words: tuple[str, ...] | None) -> bool:
    """Does ``folded`` (a case-folded text) hold one of ``words`` (None: not known)?"""
    return words is None or any(word in folded for word in words)


# The period a report covers, in the order they are tried.
_PERIODS = (
    # "For the quarterly period ended December 31, 2022", "for the fiscal year ended …"
    re.compile(rf"\b((?:(?:fiscal|quarterly|annual|interim|three|six|nine|twelve|transition)"
               rf"\s+)?(?:(?:year|quarter|period|months?|weeks?)\s+)?(?:period\s+)?"
               rf"ended\s+{_DATE})", re.IGNORECASE),
    # an 8-K: "Date of Report (Date of earliest event reported): August 30, 2023"
    re.compile(rf"\bDate of Report\b[^:\n]{{0,60}}:\s*({_DATE})", re.IGNORECASE),
    # "Fourth Quarter and Full Year 2023", "third quarter of fiscal 2024"
    re.compile(rf"\b({_ORDINAL}\s+quarter(?:\s+(?:and\s+full\s+year|of))?\s+(?:fiscal\s+)?"
               rf"(?:year\s+)?\d{{4}})\b", re.IGNORECASE),
    re.compile(r"\b((?:Q[1-4]\s*(?:FY)?\s*'?\d{2,4})|(?:FY\s?'?\d{2,4}(?:\s*Q[1-4])?)|"
               r"(?:fiscal\s+(?:year\s+)?\d{4}))\b", re.IGNORECASE),
    re.compile(r"((?:19|20)\d{2}\s*年(?:度|\s*\d{1,2}\s*月期)?\s*(?:第\s*[1-4１-４一二三四]\s*"
               r"四半期|上期|下期|上半期|通期|中間期)?)(?=.{0,12}(?:決算|報告|概要|説明))"),
)
# For each of ``_PERIODS``, words one of which its every match holds (``_REPORT_WORDS``'
# rule; None: searched always).
_PERIOD_WORDS: tuple[tuple[str, ...] | None, ...] = (
    ("ended",), ("date of report",), ("quarter",), None, ("年",))
assert len(_PERIOD_WORDS) == len(_PERIODS)


@dataclass(frozen=True)
class TitleLine:
    """One line of a PDF page as title detection sees it."""

    text: str
    page: int
    size: float
    top: float
    bottom: float
    rotated: bool = False


@dataclass(frozen=True)
class DocumentName:
    """What names a document: its title (and where it came from), kind and period."""

    title: str | None
    source: str = ""  # "cover", "outline", "metadata", "first line", "opening heading",
    # "file name" or ""
    kind: str | None = None
    period: str | None = None

    def label(self) -> str:
        return document_label(self.title, self.kind, self.period)

    def metadata(self) -> dict[str, str]:
        out = {TITLE_SOURCE_KEY: self.source}
        if self.kind:
            out[KIND_KEY] = self.kind
        if self.period:
            out[PERIOD_KEY] = self.period
        return out


def _words(text: str) -> list[str]:
    """Words of letters (two or more), case-folded; each CJK character is a word."""
    words = [w.casefold() for w in _WORD.findall(text) if not CJK_CHAR.match(w[0])]
    return words + CJK_CHAR.findall(text)


def _is_named_thing(text: str) -> bool:
    """Could ``text`` be a title at all: letters, not a link, not an identifier, not a
    file or template name, not too long, not a sentence."""
    text = " ".join(text.split())
    if not text or len(text) > MAX_TITLE_CHARS or len(text.split()) > MAX_TITLE_WORDS:
        return False
    if _URL.search(text) or _FILE_NAME.search(text) or _APP_PREFIX.match(text):
        return False
    if text.casefold().strip(" .-_") in _PLACEHOLDERS or _DEFAULT_SHEET_NAME.fullmatch(text):
        return False
    if any(is_identifier(token) for token in text.split()) and len(_words(text)) < 2:
        return False  # "0000320193-23-000006", "04.01.2023 10Q Document"
    return bool(_words(text))


def metadata_title_score(value: str | None, opening: str, software: Sequence[str] = ()) -> float:
    """How much a metadata title reads like the document's title, 0 to 1: 0 for what is
    not a name (``_is_named_thing``) or names the software; else the share of its words
    printed in the document's opening text."""
    if not value or not _named_by_author(value, software):
        return 0.0
    words = _words(value)
    printed = set(_words(opening[:OPENING_CHARS]))
    return sum(w in printed for w in words) / len(words)


def cover_title(lines: Sequence[TitleLine], body_size: float, text: str = "") -> str | None:
    """The text set largest on the first page that has text, where it is set larger
    than the body: its lines at the largest size, consecutive ones joined into groups.
    A group that only says what the document is ("FORM 10-Q") is left to
    ``document_kind``; of several groups, those the document's ``text`` repeats most
    (a company's name, printed again in its report; not the authority a form is filed
    with), at most ``MAX_TITLE_GROUPS`` in reading order."""
    # A contents page first ("Contents"), a report opening on its first section ("1
    # Overview of the Group" set as large as the report's name): no title.
    groups = [group for group in _largest_groups(lines, body_size)
              if not is_contents_title(group) and not opens_numbered_section(group)]
    named = [group for group in groups if not _only_a_kind(group)] or groups
    if len(named) > 1 and text:
        folded = " ".join(text.split()).casefold()
        repeats = [folded.count(group.casefold()) for group in named]
        named = [group for group, n in zip(named, repeats, strict=True) if n == max(repeats)]
    title = " ".join(named[:MAX_TITLE_GROUPS])
    if not title or not _is_named_thing(title):
        return None
    if len(named) == 1 and (subtitle := _cover_subtitle(lines, body_size, title)):
        return f"{title}{COVER_SUBTITLE_SEPARATOR}{subtitle}"
    return title


def _cover_subtitle(lines: Sequence[TitleLine], body_size: float, title: str) -> str | None:
    """The one line (or group of lines) a bare cover sets below its largest text,
    where that largest text names who publishes the document and this line names the
    document ("Contoso Electronics" over "Northwind Health Standard Plan"): a cover
    page holding nothing but these two, both set larger than the body. A publisher's
    booklets share its name on their covers; only the second line tells them apart.
    A cover with any text at the body's size (a filing's cover sheet, a paper's
    abstract), a third size, a second line that only says what the document is
    ("Annual Report 2022") or that ends a sentence adds nothing."""
    if _only_a_kind(title):
        return None
    first_page = next((line.page for line in lines if line.text.strip()), None)
    page = [line for line in lines
            if line.page == first_page and line.text.strip() and not line.rotated]
    if not page or not body_size or any(
            not line.size or line.size <= body_size
            or not sizes_differ(line.size, body_size) for line in page):
        return None
    top = max((line.size for line in page if " ".join(line.text.split()) in title), default=0.0)
    rest = [line for line in page if abs(line.size - top) > TITLE_SIZE_TOLERANCE * top]
    if not rest or any(sizes_differ(line.size, rest[0].size) for line in rest):
        return None
    below = [i for i, line in enumerate(page) if line in rest]
    if below != list(range(below[0], below[0] + len(below))) or below[0] == 0:
        return None  # one group, after the largest text
    subtitle = " ".join(" ".join(line.text.split()) for line in rest)
    if (not _is_named_thing(subtitle) or _sentence(subtitle) or _only_a_kind(subtitle)
            or document_period(subtitle) is not None or re.search(_DATE, subtitle)
            or subtitle.casefold() in title.casefold()
            or len(f"{title} {subtitle}") > MAX_TITLE_CHARS):
        return None
    return subtitle


def registrant_title(opening: str) -> str | None:
    """The registrant's name on a securities filing's cover: the line just above the
    caption "(Exact name of registrant as specified in its charter)" that the forms
    print below it (the first, where a combined filing names several registrants). A
    name set no larger than the body, as on many covers, is still the filer's name; a
    line of the form itself ("Commission file number …", a period) or a caption that
    heads a table's column (the registrants listed below it) names nothing."""
    text = opening[:OPENING_CHARS]
    if "xact" not in text or not (match := _REGISTRANT_CAPTION.search(text)):
        return None
    before = text[:match.start()].rstrip().splitlines()
    if not before or "|" in before[-1]:
        return None
    name = " ".join(_FILE_NUMBER.sub("", before[-1]).split()).strip(" |-")
    if (not name or _FORM_LINE.search(name) or not _is_named_thing(name) or _sentence(name)
            or document_kind(name) is not None or document_period(name) is not None):
        return None
    return name


def trading_symbol(opening: str) -> str | None:
    """The first trading symbol of a filing's cover, in its Section 12(b) table: the
    capitals before a listing exchange's name; None where the cover lists none."""
    text = opening[:OPENING_CHARS]
    if "12(b)" not in text or (section := _SECTION_12B.search(text)) is None:
        return None
    window = text[section.end():section.end() + SYMBOL_WINDOW_CHARS]
    return next((match.group(1) for match in _SYMBOL.finditer(window)
                 if match.group(1) not in _NOT_SYMBOLS), None)


def _with_symbol(name: str, symbol: str | None) -> str:
    """"Advanced Micro Devices, Inc. (AMD)": a registrant's name with its trading symbol,
    unless the name says it already ("CVS Health Corporation")."""
    if symbol is None or symbol.casefold() in {w.casefold() for w in re.findall(r"[\w.]+", name)}:
        return name
    return f"{name} ({symbol})"


def first_line_title(lines: Sequence[TitleLine], kind: str | None) -> str | None:
    """The first page's first line where it names what the document is (``kind``, the
    first kind the document names) and more than that, as a title does: "Acme FY23
    Third Quarter Earnings Conference Call" printed at the body's size. Only a line
    that says what the document is: a first line that does not ("UNITED STATES", a
    date, a page header) names nothing."""
    first = next((line for line in lines if line.text.strip() and not line.rotated), None)
    if first is None or kind is None:
        return None
    text = " ".join(first.text.split())
    if (document_kind(text) != kind or not _is_named_thing(text) or _sentence(text)
            or _only_a_kind(text) or is_contents_title(text) or opens_numbered_section(text)):
        return None
    return text


# A title may ask ("HellaSwag: Can a Machine Really Finish Your Sentence?"): a question
# mark ends no statement.
_STATEMENT_ENDS = tuple(end for end in SENTENCE_ENDS if end not in ("?", "？"))


def _sentence(text: str) -> bool:
    """A line that ends a statement of several words ("Apple Inc." is a name; a title
    may end in a question mark)."""
    return (text.rstrip().endswith(_STATEMENT_ENDS)
            and len(text.split()) >= MIN_SENTENCE_WORDS)


def _only_a_kind(text: str) -> bool:
    """``text`` says what a document is and little else: "FORM 10-Q", "Annual Report
    2022", "Earnings Conference Call"; "Acme Annual Report" names the company too."""
    kind = document_kind(text)
    if kind is None:
        return False
    rest = re.sub(r"\b(?:form|report|release|results|statements?)\b", " ", text,
                  flags=re.IGNORECASE)
    if len(_words(rest)) <= 1 and len(text.split()) <= len(kind.split()) + 2:
        return True
    # A kind of three words or a call's ("Earnings Call"): nothing besides its words.
    kind_words = "|".join(map(re.escape, kind.split()))
    return not _words(re.sub(rf"\b(?:{kind_words})\b", " ", rest, flags=re.IGNORECASE))


def _largest_groups(lines: Sequence[TitleLine], body_size: float) -> list[str]:
    first_page = next((line.page for line in lines if line.text.strip()), None)
    if first_page is None or not body_size:
        return []
    page = [line for line in lines if line.page == first_page and not line.rotated
            and line.size and _is_named_thing(line.text) and not _sentence(line.text)]
    larger = [line for line in page
              if line.size > body_size and sizes_differ(line.size, body_size)]
    if not larger:
        return []
    top = max(line.size for line in larger)
    groups: list[list[TitleLine]] = []
    previous: TitleLine | None = None
    for line in page:
        if abs(line.size - top) > TITLE_SIZE_TOLERANCE * top:
            previous = None
            continue
        height = max(line.bottom - line.top, 1.0)
        if (previous is not None and abs(line.top - previous.bottom) <= MAX_TITLE_LINE_GAP * height
                and not opens_numbered_section(line.text)):
            groups[-1].append(line)
        else:
            groups.append([line])
        previous = line
    return [" ".join(" ".join(line.text.split()) for line in group) for group in groups]


def outline_title(outline: Sequence[tuple]) -> str | None:
    """The outline's one top entry, where the outline has exactly one and it reads like
    a title (a book's outline rooted at its own name); entries are ``(level, title, …)``."""
    roots = [entry[1] for entry in outline if entry[0] == 1]
    if len(roots) != 1 or len(outline) < 2:
        return None
    return roots[0] if _is_named_thing(roots[0]) else None


def document_kind(opening: str) -> str | None:
    """What the document says it is, from its opening: "Form 10-Q", "Annual Report";
    the first it names (a release's "Earnings Release" before the "Form 10-Q" it cites)."""
    text = " ".join(opening[:OPENING_CHARS].split())
    folded = text.casefold()
    found = []
    if ("FORM" in text or "Form" in text) and (match := _FORM.search(text)):
        found.append((match.start(), f"Form {match.group(1).replace(' ', '')}"))
    if _names_any(folded, _REPORT_WORDS) and (report := _titled(_REPORT, text)
                                               or _in_prose(_REPORT, text)):
        found.append(report)
    if match := _CJK_REPORT.search(text):
        found.append((match.start(), match.group(1)))
    if "call" in folded and (call := _call_kind(text)):
        found.append(call)
    return min(found)[1] if found else None


def _titled(pattern: re.Pattern[str], text: str) -> tuple[int, str] | None:
    """Where ``text`` first names a kind as a title does, every word capitalised ("Annual
    Report", "EARNINGS CONFERENCE CALL"), and that kind in title case; prose names no
    kind: a release announcing "a conference call to discuss", a role library's "the
    preparation of quarterly financial statements"."""
    for match in pattern.finditer(text):
        words = match.group(1).split()
        if all(word[0].isupper() for word in words):
            return match.start(), " ".join(word[0] + word[1:].lower() for word in words)
    return None


def _in_prose(pattern: re.Pattern[str], text: str) -> tuple[int, str] | None:
    """A kind the opening paragraph states in prose ("… today reported financial results
    for the quarter", a release's dateline sentence), in title case: past it, prose
    names what the document talks about, not what it is (a role library's "the
    preparation of quarterly financial statements")."""
    match = pattern.search(text, 0, OPENING_PROSE_CHARS)
    return None if match is None else (match.start(), " ".join(
        word[:1].upper() + word[1:].lower() for word in match.group(1).split()))


def _call_kind(text: str) -> tuple[int, str] | None:
    """Where ``text`` first names a call's transcript as a title does (``_titled``)."""
    return _titled(_CALL, text)


def document_period(opening: str) -> str | None:
    """The period the document covers, where its opening says so: the first period
    it states (a filing's own before the comparisons it makes). A Japanese period is
    said as a reader asks for it too (``_cjk_fiscal_year``): "2023年度" for a year "自
    2023年4月1日 至 2024年3月31日", and "2025年3月期 第3四半期（2024年度第3四半期）"."""
    text = " ".join(opening[:OPENING_CHARS].split())
    folded = text.casefold()
    found = [(match.start(), order, match.group(1)) for order, pattern in enumerate(_PERIODS)
             if _names_any(folded, _PERIOD_WORDS[order]) and (match := pattern.search(text))]
    if "至" in text or "まで" in text:
        found += [(start, len(_PERIODS), period) for start, period in _cjk_year_spans(text)[:1]]
    if not found:
        return None
    return period_as_named(min(found)[2])


def period_as_named(printed: str) -> str:
    """A period as printed, with the names readers also give it beside it: a Japanese
    year's 年度 (``_with_cjk_fiscal_year``), a second quarter's half year
    (``_with_cjk_half_year``), an English whole year's FY (``_with_fiscal_year_name``)."""
    period = " ".join(printed.split())
    return _with_fiscal_year_name(_with_cjk_half_year(_with_cjk_fiscal_year(period)))


# A Japanese period from one date to another, as a business report or a securities report
# states its fiscal year: "（自 2023年4月1日 至 2024年3月31日）", "2023年4月1日から
# 2024年3月31日まで".
_CJK_DATE = r"((?:19|20)\d{2})\s*年\s*(\d{1,2})\s*月\s*\d{1,2}\s*日"
_CJK_SPAN = re.compile(rf"(?:自\s*{_CJK_DATE}\s*至\s*{_CJK_DATE}|{_CJK_DATE}\s*から\s*"
                       rf"{_CJK_DATE}\s*まで)")
# A span of this many months is a fiscal year (a year from the 1st to the 31st: 11 months
# and some days by the months' numbers, 12 when it runs 1 April to 1 April).
_YEAR_SPAN_MONTHS = (11, 12)
# "2025年3月期": the fiscal year ending in March 2025; "第3四半期" after it.
_CJK_FISCAL_END = re.compile(r"((?:19|20)\d{2})\s*年\s*(\d{1,2})\s*月期\s*(第\s*[1-4１-４]\s*四半期"
                             r"|上期|下期|上半期|中間期|通期)?")
# A fiscal year that ends in January to March is named 年度 by the year it begins in
# (Japan's fiscal and school year, April to March: "2025年3月期" is "2024年度"); one that
# ends later is named either way, so it is left as printed.
_LAST_FISCAL_END_MONTH = 3


def _cjk_year_spans(text: str) -> list[tuple[int, str]]:
    """Where ``text`` states a fiscal year as a span of dates, and that year as 年度
    (named by the year it begins in: "自 2023年4月1日 至 2024年3月31日" is "2023年度");
    a span of another length (a quarter, nine months) is no year."""
    spans = []
    for match in _CJK_SPAN.finditer(text):
        groups = [g for g in match.groups() if g is not None]
        (y1, m1, y2, m2) = (int(g) for g in groups)
        if (y2 - y1) * 12 + m2 - m1 in _YEAR_SPAN_MONTHS:
            spans.append((match.start(), f"{y1}年度"))
    return spans


def _with_cjk_fiscal_year(period: str) -> str:
    """``period`` and, where it names a fiscal year by the month it ends in ("2025年3月期
    第3四半期"), the same period as 年度 ("（2024年度第3四半期）"): a question asks for
    either."""
    match = _CJK_FISCAL_END.search(period)
    if match is None or "年度" in period:
        return period
    year, month = int(match.group(1)), int(match.group(2))
    if not 1 <= month <= _LAST_FISCAL_END_MONTH:
        return period
    part = "".join((match.group(3) or "").split())
    return f"{period}（{year - 1}年度{part}）"


# An English report's year as it states it: "fiscal year ended December 31, 2022", "year
# ended 1 January 2023", "twelve months ended …", "Fourth Quarter and Full Year 2022".
_YEAR_ENDED = re.compile(rf"^(?:fiscal\s+year|year|twelve\s+months|annual\s+period)\s+ended\s+"
                         rf"({_DATE})$", re.IGNORECASE)
_FULL_YEAR = re.compile(r"\bfull\s+(?:fiscal\s+)?year\s+((?:19|20)\d{2})$", re.IGNORECASE)
_END_DATE = re.compile(rf"(?:({_MONTH})\s+(\d{{1,2}}),?\s+(\d{{4}})|(\d{{1,2}})\s+({_MONTH})\s+"
                       rf"(\d{{4}})|(\d{{4}})-(\d{{2}})-(\d{{2}}))", re.IGNORECASE)
# A 52/53-week fiscal year ends on the weekday nearest a month's end: one that ends in the
# first days of January is the year before's ("fiscal year ended January 1, 2023" is FY2022).
_EARLY_JANUARY_DAYS = 7


def _fiscal_year_of(date: str) -> int | None:
    """The fiscal year a year ending on ``date`` is named by: the year it ends in, but
    the year before for one that ends in the first days of January."""
    match = _END_DATE.fullmatch(date.strip())
    if match is None:
        return None
    if match.group(1):
        month, day, year = match.group(1)[:3].casefold(), int(match.group(2)), int(match.group(3))
    elif match.group(4):
        month, day, year = match.group(5)[:3].casefold(), int(match.group(4)), int(match.group(6))
    else:
        month = "jan" if match.group(8) == "01" else ""
        day, year = int(match.group(9)), int(match.group(7))
    return year - 1 if month == "jan" and day <= _EARLY_JANUARY_DAYS else year


def _with_fiscal_year_name(period: str) -> str:
    """``period`` and, where it is a whole year an English report states by its end date
    or as a full year ("fiscal year ended December 31, 2022", "Fourth Quarter and Full
    Year 2022"), the name readers and analysts give it, beside it ("(FY2022)"): a question
    asks for "FY2022" and a filing never prints it. A quarter's or months' period, named
    by a fiscal calendar the document does not state, is left as printed."""
    if (match := _YEAR_ENDED.match(period)) is not None:
        year = _fiscal_year_of(match.group(1))
    elif (match := _FULL_YEAR.search(period)) is not None:
        year = int(match.group(1))
    else:
        return period
    return period if year is None else f"{period} (FY{year})"


# "2024年度第2四半期": a fiscal year's second quarter as 年度, whose results (a 第2四半期
# 決算) are those of the year's first half, its 上期.
_CJK_SECOND_QUARTER = re.compile(r"^((?:19|20)\d{2})\s*年度\s*第\s*[2２二]\s*四半期$")


def _with_cjk_half_year(period: str) -> str:
    """``period`` and, where it is a fiscal year's second quarter ("2024年度第2四半期"),
    the half year its results cover ("（2024年度上期）"): a question asks for either."""
    match = _CJK_SECOND_QUARTER.match(period)
    return f"{period}（{match.group(1)}年度上期）" if match else period


# Software that prints a web page to PDF: its metadata title is the page's HTML <title>.
_BROWSER = re.compile(r"\b(?:Chromium|Chrome|Skia|Mozilla|Firefox|Gecko|Safari|WebKit|"
                      r"wkhtmltopdf|Edge)\b", re.IGNORECASE)
# How a page's <title> sets the site's name after the page's ("Oklahoma - Wikipedia",
# "Pricing | Acme", "Release notes — Docs").
_SITE_SEPARATOR = re.compile(r"^\s+(?:-|–|—|\||·|::)\s+(?=\S)")
MAX_SITE_NAME_WORDS = 4


def page_title_with_site(metadata_title: str, cover: str, software: Sequence[str]) -> bool:
    """``metadata_title`` is a browser-printed web page's <title>: the name its page
    prints large (``cover``), then a separator and the site's name of at most a few
    words ("Supreme Court of the United States - Wikipedia"). The page's own name is
    the document's; the site's name, the same in every page of the site, names none."""
    if not any(_BROWSER.search(tool) for tool in software):
        return False
    metadata_title, cover = " ".join(metadata_title.split()), " ".join(cover.split())
    if not metadata_title.casefold().startswith(cover.casefold()):
        return False
    tail = metadata_title[len(cover):]
    if not _SITE_SEPARATOR.match(tail):
        return False
    site = _SITE_SEPARATOR.sub("", tail, count=1).strip()
    return 0 < len(site.split()) <= MAX_SITE_NAME_WORDS and not _says_kind_or_period(site)


def _says_kind_or_period(site: str) -> bool:
    """A tail that says what the page is or when ("- Form 10-K", "| Q3 2024") is part of
    its name, not the site's."""
    return document_kind(site) is not None or document_period(site) is not None \
        or any(ch.isdigit() for ch in site)


def _without_addresses(title: str) -> str:
    """``title`` less its e-mail addresses and links (``_ADDRESS_TOKEN``)."""
    return " ".join(_ADDRESS_TOKEN.sub(" ", title).split())


def _squeezed(text: str) -> str:
    return "".join(text.casefold().split())


def _named_by_author(value: str, software: Sequence[str]) -> bool:
    folded = value.casefold().strip()
    return _is_named_thing(value) and not any(
        name and (folded == name.casefold().strip() or name.casefold() in folded)
        for name in software)


def issuer(metadata: Mapping[str, str], text: str, software: Sequence[str] = ()) -> str | None:
    """The organisation that issued the document, where its metadata's author names one
    (a legal form: "Harbour Cranes Inc.", "…株式会社") and the document prints that name,
    with or without the form;
    a converter's or a printer's name ("EDGAR Online, a division of …") is printed in no
    filing, a person's name has no legal form."""
    squeezed: str | None = None  # the whole text squeezed: only for a name to look for
    for key in AUTHOR_KEYS:
        value = " ".join((metadata.get(key) or "").split())
        if not value or not _ORGANISATION.search(value) or not _named_by_author(value, software):
            continue
        # Its name is printed, with or without the legal form ("富士通" for "富士通株式会社").
        name = _without_legal_form(value)
        if len(name) < MIN_ISSUER_CHARS:
            continue
        if squeezed is None:
            squeezed = _squeezed(text)
        if name in squeezed:
            return value
    return None


def _without_legal_form(organisation: str) -> str:
    """An organisation's name, squeezed, without its legal form: "harbourcranes"."""
    return _squeezed(_ORGANISATION.sub(" ", organisation)).strip(".,")


def _with_issuer(name: DocumentName, organisation: str | None) -> DocumentName:
    """``name`` whose title starts with the issuing organisation, where it does not
    name it already."""
    if organisation is None:
        return name
    if name.title is None:
        return replace(name, title=organisation, source="issuer")
    if _without_legal_form(organisation) in _squeezed(name.title):
        return name  # "Harbour Cranes Annual Review" names "Harbour Cranes Inc."
    return replace(name, title=f"{organisation} {name.title}")


def name_document(metadata_title: str | None, metadata: Mapping[str, str], text: str,
                  cover_lines: Sequence[TitleLine] = (), body_size: float = 0.0,
                  outline: Sequence[tuple] = (), require_printed: bool = True
                  ) -> DocumentName:
    """The document's name: its cover's title, its outline's root or its metadata title,
    the first that reads like a title (module docstring), with its kind and period
    (``text``: the document's cleaned text), led by its issuer's name (``issuer``)."""
    software = [metadata[key] for key in SOFTWARE_KEYS if metadata.get(key)]
    name = _name(metadata_title, metadata, text, cover_lines, body_size, outline,
                 require_printed, software)
    if name.title and (bare := _NOTE_MARK_END.sub("", name.title)) != name.title:
        name = replace(name, title=bare)
    return _with_issuer(_with_title_period(name), issuer(metadata, text, software))


# A note's mark after a title's last word: a paper's "… from Crowd Annotations∗" points to
# a footnote on its first page (funding, a preprint's venue), no part of the name.
_NOTE_MARK_END = re.compile(r"(?<=[^\W\d_])\s?[*∗†‡§¶⁎]+$")


def _with_title_period(name: DocumentName) -> DocumentName:
    """``name`` whose period is the one its title states, where the title states one
    ("2024年度第2四半期決算概要"): the title names the period the document covers, where
    the opening's first period may be a section's ("2024年度上期 連結業績概要" on a deck's
    second slide, once its cover's lines are read title first)."""
    period = document_period(name.title) if name.title else None
    return replace(name, period=period) if period and period != name.period else name


def _name(metadata_title: str | None, metadata: Mapping[str, str], text: str,
          cover_lines: Sequence[TitleLine], body_size: float, outline: Sequence[tuple],
          require_printed: bool, software: Sequence[str]) -> DocumentName:
    opening = text[:OPENING_CHARS]
    kind, period = document_kind(opening), document_period(opening)
    score = metadata_title_score(metadata_title, opening, software)
    if title := registrant_title(opening):
        # The filer's legal name: a metadata title that holds it and more is a
        # converter's or a web page's ("10-Q - 10/28/2022 - Acme Corporation").
        return DocumentName(_with_symbol(title, trading_symbol(opening)), "cover", kind, period)
    if title := cover_title(cover_lines, body_size, text):
        # A printed metadata title that holds the cover's words is the fuller name
        # ("2024年度第2四半期決算概要" over a cover's "決算概要").
        if (metadata_title and score >= MIN_TITLE_WORDS_PRINTED
                and _squeezed(title) in _squeezed(metadata_title)
                and not page_title_with_site(metadata_title, title, software)):
            return DocumentName(" ".join(metadata_title.split()), "metadata", kind, period)
        # A filing's cover that prints no "(Exact name …)" caption under its filer's
        # name still lists the filer's trading symbol (its Section 12(b) table).
        return DocumentName(_with_symbol(title, trading_symbol(opening)), "cover", kind,
                            period)
    if title := outline_title(outline):
        return DocumentName(title, "outline", kind, period)
    # A PDF's metadata title is often a converter's (a file name, an accession number):
    # it must be printed too. Other formats' titles are their authors' (an HTML
    # <title>, an office document's properties, a mail's subject): a name suffices,
    # and one that also holds an address or link ("Delivery failure (bob@example.org)",
    # "Re: slides for jane@example.com") is still its author's name for it.
    if metadata_title and (score >= MIN_TITLE_WORDS_PRINTED
                           or (not require_printed and _named_by_author(
                               _without_addresses(metadata_title), software))):
        return DocumentName(" ".join(metadata_title.split()), "metadata", kind, period)
    if title := first_line_title(cover_lines, kind):
        return DocumentName(title, "first line", kind, period)
    return DocumentName(None, "", kind, period)


# Formats with no title of their own besides ``text/*`` (but HTML, whose <title> is its
# own): their documents are named by their files' names where nothing else names them.
_UNTITLED_FORMATS = frozenset({
    "application/json", "application/x-ndjson", "application/xml", "application/yaml",
    "application/x-yaml", "application/toml", "application/javascript", "application/x-sh",
    "application/sql"})


def has_no_title_of_its_own(media_type: str) -> bool:
    """Whether a format neither carries nor prints a title (plain text, logs, CSV, code,
    Markdown, JSON, …): only its file's name names a document of it."""
    media_type = media_type.split(";", 1)[0].strip().lower()
    return (media_type.startswith("text/") and media_type != "text/html"
            ) or media_type in _UNTITLED_FORMATS


def opening_heading_title(first_line: str) -> str | None:
    """A document's first line, set as a heading, where it reads like a title: not a
    numbered section ("1. Overview"), a contents page's title, a sentence or a
    placeholder ("Title")."""
    text = " ".join(first_line.split())
    if (not _is_named_thing(text) or _sentence(text) or is_contents_title(text)
            or opens_numbered_section(text)):
        return None
    return text


def fallback_name(name: DocumentName, opening_heading: str | None, uri: str,
                  media_type: str) -> DocumentName:
    """``name``, or, where it has no title: the document's opening heading
    (``opening_heading_title``; the caller gives it for a document not printed on
    pages), else, for a format with no title of its own (``has_no_title_of_its_own``),
    the file's name from its URI ("kafka0-server.log": the last path segment, whatever
    the file system or mount point)."""
    if name.title:
        return name
    if opening_heading and (title := opening_heading_title(opening_heading)):
        return replace(name, title=title, source="opening heading")
    if not has_no_title_of_its_own(media_type):
        return name
    segment = uri.split("?", 1)[0].split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    segment = " ".join(segment.split())
    return replace(name, title=segment, source="file name") if segment else name
