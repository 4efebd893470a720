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
from ragbeam.transforms.clean.contents import is_contents_title
from ragbeam.transforms.clean.headings import is_identifier, opens_numbered_section
from ragbeam.transforms.clean.layout import sizes_differ
from ragbeam.transforms.embed.text import KIND_KEY, PERIOD_KEY, TITLE_SOURCE_KEY, document_label

# Where the title, the kind and the period are looked for: the document's opening.
OPENING_CHARS = 6000
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
    source: str = ""  # "cover", "outline", "first line", "metadata", "issuer" or ""
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
    if text.casefold().strip(" .-_") in _PLACEHOLDERS:
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
    return title if title and _is_named_thing(title) else None


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


def _sentence(text: str) -> bool:
    """A line that ends a sentence of several words ("Apple Inc." is a name)."""
    return (text.rstrip().endswith(tuple(SENTENCE_ENDS))
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
    if _names_any(folded, _REPORT_WORDS) and (match := _REPORT.search(text)):
        found.append((match.start(), " ".join(word[:1].upper() + word[1:].lower()
                                              for word in match.group(1).split())))
    if match := _CJK_REPORT.search(text):
        found.append((match.start(), match.group(1)))
    if "call" in folded and (call := _call_kind(text)):
        found.append(call)
    return min(found)[1] if found else None


def _call_kind(text: str) -> tuple[int, str] | None:
    """Where ``text`` first names a call's transcript as a title does ("Earnings Call",
    "EARNINGS CONFERENCE CALL"), and that kind; the prose of a release that announces
    its call ("a conference call to discuss") names no kind."""
    for match in _CALL.finditer(text):
        words = match.group(1).split()
        if all(word[0].isupper() for word in words):
            return match.start(), " ".join(word[0] + word[1:].lower() for word in words)
    return None


def document_period(opening: str) -> str | None:
    """The period the document covers, where its opening says so: the first period
    it states (a filing's own before the comparisons it makes)."""
    text = " ".join(opening[:OPENING_CHARS].split())
    folded = text.casefold()
    found = [(match.start(), order, match.group(1)) for order, pattern in enumerate(_PERIODS)
             if _names_any(folded, _PERIOD_WORDS[order]) and (match := pattern.search(text))]
    return " ".join(min(found)[2].split()) if found else None


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
    return _with_issuer(_name(metadata_title, metadata, text, cover_lines, body_size,
                              outline, require_printed, software),
                        issuer(metadata, text, software))


def _name(metadata_title: str | None, metadata: Mapping[str, str], text: str,
          cover_lines: Sequence[TitleLine], body_size: float, outline: Sequence[tuple],
          require_printed: bool, software: Sequence[str]) -> DocumentName:
    opening = text[:OPENING_CHARS]
    kind, period = document_kind(opening), document_period(opening)
    score = metadata_title_score(metadata_title, opening, software)
    if title := cover_title(cover_lines, body_size, text):
        # A printed metadata title that holds the cover's words is the fuller name
        # ("2024年度第2四半期決算概要" over a cover's "決算概要").
        if (metadata_title and score >= MIN_TITLE_WORDS_PRINTED
                and _squeezed(title) in _squeezed(metadata_title)):
            return DocumentName(" ".join(metadata_title.split()), "metadata", kind, period)
        return DocumentName(title, "cover", kind, period)
    if title := outline_title(outline):
        return DocumentName(title, "outline", kind, period)
    # A PDF's metadata title is often a converter's (a file name, an accession number):
    # it must be printed too. Other formats' titles are their authors' (an HTML
    # <title>, an office document's properties, a mail's subject): a name suffices.
    if metadata_title and (score >= MIN_TITLE_WORDS_PRINTED
                           or (not require_printed and _named_by_author(metadata_title,
                                                                        software))):
        return DocumentName(" ".join(metadata_title.split()), "metadata", kind, period)
    if title := first_line_title(cover_lines, kind):
        return DocumentName(title, "first line", kind, period)
    return DocumentName(None, "", kind, period)
