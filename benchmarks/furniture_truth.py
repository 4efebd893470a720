"""Furniture recall and body retention: tuning and held-out sets, side by side.

    python benchmarks/furniture_truth.py [--corpus ../shared/corpus] [--heldout DIR]
                                         [--dev DIR] [--closing DIR] [--final DIR] [--show]
    python benchmarks/furniture_truth.py --fetch dev --mirror-root DIR   # or --download
    python benchmarks/furniture_truth.py --pdf any.pdf [--pdf other.pdf]   # audit, no truth

Truth sets, always reported separately (docs/cleaning.md says which rules were
written while looking at which set):

* **tuning**: ``shared/corpus/headers_truth.json`` (4 PDFs, 20 pages). The
  cleaning rules were written while looking at these.
* **heldout** (issue 18): ``benchmarks/data/heldout_truth.json``, 12 PDFs, 183
  pages from kreuzberg, haystack and docling test data; since issue 18 its
  failures are known, so it is no longer unseen.
* **dev** (issue 23, "dev held-out"): ``heldout_dev_truth.json``, 10 PDFs, 137
  pages from PyMuPDF's test files: looked at while the rules of issue 23 were
  revised.
* **closing** (issue 23, "closing held-out"): ``heldout_closing_truth.json``, 15
  PDFs, 75 pages from MinerU's demo and test files: truth marked before any
  scoring, scored once with the rules of commit 6a6d9f3; one rule was added
  after seeing its failures, so it is no longer unseen for that rule.
* **final** (issue 23, after the closing set): ``heldout_final_truth.json``, 11
  PDFs, 107 pages from camelot's (ICDAR 2013 government reports, a ship
  classification rule) and pdf.js's test files: truth marked before any
  scoring, scored once with the final rules.
* **issue29-closing** / **issue29-final** (issue 29): ``issue29_*_truth.json``,
  7 PDFs / 111 pages from grobid's and tabula-java's test files, and 5 PDFs /
  78 pages from pdfbox's, Tika's and Unstructured's; truth marked before any
  scoring (``benchmarks/issue29_truth_check.py`` checks it against Tika's lines
  without cleaning). Folders ``$RAGBEAM_ISSUE29_CLOSING_PDFS`` or
  ``../data/issue29-closing-pdfs``, ``$RAGBEAM_ISSUE29_FINAL_PDFS`` or
  ``../data/issue29-final-pdfs``.
* **issue29-r3dev** / **issue29-r3final** (issue 29, third round): 8 PDFs / 91
  pages from CERMINE's and pdf2json's test files, and 8 PDFs / 81 pages from
  science-parse's and pdfcpu's (sources disjoint from each other and from every
  earlier set); truth marked by hand before any scoring, not yet scored.
  Folders ``$RAGBEAM_ISSUE29_R3DEV_PDFS`` or ``../data/issue29-r3dev-pdfs``,
  ``$RAGBEAM_ISSUE29_R3FINAL_PDFS`` or ``../data/issue29-r3final-pdfs``.
* **issue29-r4** (issue 29, fourth round): 7 PDFs / 99 pages from PdfPig's and
  pdf-lib's test files (sources disjoint from every earlier set); truth marked by
  hand before any scoring, not yet scored. Folder ``$RAGBEAM_ISSUE29_R4_PDFS`` or
  ``../data/issue29-r4-pdfs``.
* **issue29-r5** (issue 29, fifth round): 8 PDFs / 88 pages from h2oGPT's,
  scipdf_parser's, smalot/pdfparser's and pikepdf's test files (sources disjoint
  from every earlier set); truth marked by hand before any scoring, not yet scored.
  Folder ``$RAGBEAM_ISSUE29_R5_PDFS`` or ``../data/issue29-r5-pdfs``.
* **issue39-a** / **issue39-b** (issue 39, the page-template model): 8 PDFs / 274
  pages and 8 PDFs / 312 pages of kinds no earlier set has (SEC 10-K filings, theses
  in Chinese and Japanese with chapter-varying and two-sided heads, data sheets whose
  template prints link URIs on every page, NIST publications with their number set
  down the margin, a journal's two-sided layout with a section tab, handbooks), from
  repositories no earlier set used, the two sets sharing none; truth marked by hand
  before any scoring (``issue29_truth_check.py --sets issue39-a,issue39-b`` checks it
  against Tika's lines without cleaning). ``issue39-a`` is development material,
  ``issue39-b`` the closing set, scored once (tuning data since). Folders
  ``$RAGBEAM_ISSUE39_A_PDFS`` or ``../data/issue39-a-pdfs``, ``$RAGBEAM_ISSUE39_B_PDFS`` or
  ``../data/issue39-b-pdfs``.
* **issue39-c** (issue 39, second closing set): 9 PDFs / 298 pages of kinds and from
  repositories no earlier set used (a standard, a court filing, a brokerage statement, an
  earnings release, a Chinese thesis, two data sheets, a handbook, a two-sided book);
  truth marked by hand before any scoring, to be scored once. Folder ``$RAGBEAM_ISSUE39_C_PDFS`` or
  ``../data/issue39-c-pdfs``.
* **issue39-d** (issue 39, third closing set): 12 PDFs / 271 pages of kinds and from
  repositories no earlier set used (a Chinese two-sided guide, a Chinese manual with its
  documented source, a Japanese manual without furniture, a Czech handbook for public
  administrations, a French two-sided book, a Dutch manual with two-sided heads, the
  ECMA-404 standard, a non-profit's annual report, an IRS form's printer's proof, German
  slides, a chip data sheet, an Italian university guide); truth marked by hand from
  Tika's raw lines and the pages before any scoring, to be scored once. Folder
  ``$RAGBEAM_ISSUE39_D_PDFS`` or ``../data/issue39-d-pdfs``.
* **issue39-e** (issue 39, fourth closing set): 10 PDFs / 379 pages of the kinds issue39-d
  lacks, from repositories no earlier set used: text set vertically in the side margin (a
  journal article with OUP's download stamp, an arXiv preprint's identifier stamp), chapter
  tabs at the outer edge (a two-sided Bible portion in Gondi typeset by PTXprint), a Chinese
  thesis whose running head changes with the chapter, a Shenzhen-listed company's annual
  report (Chinese, 174 p.) and a fund's annual report in three page templates (French), a
  Korean thesis, a Japanese manual and two documents without any furniture (a Korean
  report, a Japanese reference: retention checks); truth
  marked by hand from Tika's raw lines and the pages before any scoring, to be scored once.
  Folder ``$RAGBEAM_ISSUE39_E_PDFS`` or ``../data/issue39-e-pdfs``.
* **issue39-f** (issue 39, fifth closing set): 9 PDFs / 361 pages of the kinds the earlier
  sets lack or have few of, from repositories no earlier set used: a Russian interstate
  standard scanned with an OCR text layer whose two-sided running head is spelled a dozen
  ways, a Russian government decree with a registry code in its foot, a two-sided book
  (odd/even heads), two slide decks (Russian, German) with slide numbers and footers, a
  company's CSR report whose chapter tabs Tika cuts into pieces, a Chinese official
  document's '— N —' folios (GB/T 9704), a course workbook and a town's consolidated
  financial statements (German municipal accounts); truth marked by hand from Tika's raw
  lines and the pages before any scoring, to be scored once. Folder
  ``$RAGBEAM_ISSUE39_F_PDFS`` or ``../data/issue39-f-pdfs``.
* **issue39-g** (issue 39, sixth closing set): 8 PDFs / 386 pages of the kinds the earlier
  sets have few of, from repositories no earlier set used: a 10-Q filing whose notes repeat
  the statement's head block on every continuation page, a Chinese LaTeX manual whose
  running head carries the current section and chapter, two data sheets (Cypress, with a
  feedback link in the foot; Philips, with the date and folio Tika fuses and reads first),
  an IETF RFC's running head and foot, a Korean thesis's '- N -' folios, a Chinese thesis
  template's folios and an Italian course guide; truth marked by hand from Tika's raw lines
  and the pages before any scoring, to be scored once. Folder ``$RAGBEAM_ISSUE39_G_PDFS`` or
  ``../data/issue39-g-pdfs``.
* **issue39-h** (issue 39, seventh closing set): 9 PDFs / 386 pages of the kinds issue 39
  names, from repositories no earlier set used: a 10-K filing reprinted from its HTML (the
  statements' and notes' head block repeated on every continuation page, folios where the
  reprint keeps them), a Chinese national standard (a
  distributor's licence stamp on every page, two-sided head and folios), a TI data sheet's
  two-sided template (the foot's folio fused with the current section's name and the
  copyright; '(continued)' heads), a traditional-Chinese thesis's roman and arabic folios, a
  Japanese thesis whose running head carries the chapter and the folio, German slides with a
  navigation button on every slide, a journal paper draft with the DRAFT watermark across the
  side margin and its citation foot, a French internship report and a data sheet without
  furniture (a retention check); truth marked by hand from Tika's raw lines and the pages
  before any scoring, to be scored once. Folder ``$RAGBEAM_ISSUE39_H_PDFS`` or
  ``../data/issue39-h-pdfs``.
* **issue39-i** (issue 39, eighth closing set): 9 PDFs / 374 pages of the kinds issue 39
  names, from repositories no earlier set used: TI's Chinese MSP430F552x data sheet (the
  two-sided template with the folio, the part-number head, the code line, the section name
  fused with the copyright, the English pages' feedback and product-folder lines,
  '(continued)' heads; the addendum's and packaging pages' own heads), an IETF RFC's head and
  foot, a German foundation's annual accounts (two-sided head: the report's name on even
  pages, the section's on odd), a German association's annual report (the chapter's label
  and the spread's folio in one head, which Tika fuses), a Chinese municipal government's
  annual disclosure report ('- N -' folios on the outer side), a U.S. federal agency's
  survey report, a French internship report's roman and arabic folios, a Beamer deck's
  footline and Spanish slides without furniture (a retention check); truth marked by hand
  from Tika's raw lines and the pages before any scoring, to be scored once. Folder
  ``$RAGBEAM_ISSUE39_I_PDFS`` or ``../data/issue39-i-pdfs``.
* **issue39-j** (issue 39, a ninth closing set): 8 PDFs / 389 pages of the kinds issue 39
  names, from repositories no earlier set used: a conference handbook whose two-sided head
  changes with the chapter and the day (ACL 2016), a Japanese bachelor's thesis whose
  two-sided head fuses the chapter or section with the folio, an English thesis chapter's
  two-sided heads (chapter / current section), Turkish course notes (head fused with the
  folio), a Chinese thesis template's head and roman/arabic folios, a journal article with
  its heads in the side margin and a download stamp on every page, an ordinary preprint
  ('N of 14' foot) and a user manual without furniture (a retention check); truth marked by
  hand from Tika's raw lines and the pages before any scoring, to be scored once. Folder
  ``$RAGBEAM_ISSUE39_J_PDFS`` or ``../data/issue39-j-pdfs``.

Each held-out set lists its files with repository, path, commit, SHA-256 and
licence in a manifest (``benchmarks/data/heldout*-pdfs.csv``); the files are
not in the repository. ``--fetch SET`` copies them from local git mirrors
(``--mirror-root DIR`` holding ``<owner>+<name>/repo``) or downloads them at
the listed commits (``--download``), checking every SHA-256. A set is scored
when its folder holds every file as listed (defaults: ``$RAGBEAM_HELDOUT_PDFS``
or ``../data/heldout-pdfs``, ``$RAGBEAM_HELDOUT_DEV_PDFS`` or
``../data/heldout-dev-pdfs``, ``$RAGBEAM_HELDOUT_CLOSING_PDFS`` or
``../data/heldout-closing-pdfs``, ``$RAGBEAM_HELDOUT_FINAL_PDFS`` or
``../data/heldout-final-pdfs``). Truth lines are Tika's lines of each page;
furniture was marked page by page by reading them (and the pages), never by
running the rules.

For every PDF in a truth file: extract with Tika (the pipeline's own code),
clean with the default ``CleanOptions``, then measure

* **furniture recall**: share of the truth's header/footer/page-number line
  occurrences that are gone from the cleaned text of their page. Two readings,
  both printed: ``line`` (the issue's: no longer a line of its own) and
  ``strict`` (no longer anywhere on that page as a whole token sequence, beyond
  what the page's body itself contains; joining a page number into a paragraph
  does not count as removing it);
* **body retention**: share of body words (raw lines that are neither truth
  furniture nor ``other_furniture``; NFKC, case-folded, de-hyphenated; each
  CJK character a word, hyphens between letters ignored, underscores no part of a
  word) still in the cleaned text, counted as a multiset. Text no reader can read is
  neither body kept nor body lost: a run of characters glued to one Tika could not
  decode (U+FFFD, private use) on a page where it reads in no language
  (``readable_lines``), such as a figure's glyph codes in a
  font without a Unicode map.

``--show`` prints every line the cleaner removed, per page, for inspection;
``--pdf`` does that for PDFs outside the truth file (held-out checks by eye).
The functions here are imported by ``tests/transforms/clean/test_furniture_truth.py``.
"""

from __future__ import annotations

import argparse
import bisect
import csv
import hashlib
import inspect
import itertools
import json
import os
import pathlib
import re
import sys
from collections import Counter
from dataclasses import dataclass

from lxml import etree

from ragbeam.transforms.charsets import CJK_CLASS

REPO = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
HELDOUT_TRUTH = REPO / "benchmarks" / "data" / "heldout_truth.json"
HELDOUT_MANIFEST = REPO / "benchmarks" / "data" / "heldout-pdfs.csv"
DEFAULT_HELDOUT = pathlib.Path(os.environ.get("RAGBEAM_HELDOUT_PDFS",
                                              REPO.parent / "data" / "heldout-pdfs"))
DATA = REPO / "benchmarks" / "data"


@dataclass(frozen=True)
class HeldoutSet:
    """A held-out truth file, the manifest of its PDFs and where they are expected."""

    name: str
    title: str
    truth: pathlib.Path
    manifest: pathlib.Path
    folder: pathlib.Path
    # scored only when ``--sets`` names it: a default run must not show the cleaner's
    # output on a set before its one scoring
    on_request: bool = False


def _folder(variable: str, default: str) -> pathlib.Path:
    return pathlib.Path(os.environ.get(variable, REPO.parent / "data" / default))


def _issue29_set(key: str, title: str) -> HeldoutSet:
    """An issue-29 set: ``issue29_<key>_truth.json``, ``issue29-<key>-pdfs.csv``, PDFs in
    ``$RAGBEAM_ISSUE29_<KEY>_PDFS`` or ``../data/issue29-<key>-pdfs``."""
    return _issue_set(29, key, title)


def _issue_set(issue: int, key: str, title: str) -> HeldoutSet:
    """A set made for an issue: ``issue<N>_<key>_truth.json``, ``issue<N>-<key>-pdfs.csv``,
    PDFs in ``$RAGBEAM_ISSUE<N>_<KEY>_PDFS`` or ``../data/issue<N>-<key>-pdfs``; scored only
    when named."""
    return HeldoutSet(f"issue{issue}-{key}", title, DATA / f"issue{issue}_{key}_truth.json",
                      DATA / f"issue{issue}-{key}-pdfs.csv",
                      _folder(f"RAGBEAM_ISSUE{issue}_{key.upper()}_PDFS",
                              f"issue{issue}-{key}-pdfs"), on_request=True)


HELDOUT_SETS = {
    "heldout": HeldoutSet("heldout", "held-out of issue 18 (kreuzberg, haystack, docling)",
                          HELDOUT_TRUTH, HELDOUT_MANIFEST, DEFAULT_HELDOUT),
    "dev": HeldoutSet("dev", "dev held-out of issue 23 (PyMuPDF test files)",
                      DATA / "heldout_dev_truth.json", DATA / "heldout-dev-pdfs.csv",
                      _folder("RAGBEAM_HELDOUT_DEV_PDFS", "heldout-dev-pdfs")),
    "closing": HeldoutSet("closing", "closing held-out of issue 23 (MinerU demo/test files)",
                          DATA / "heldout_closing_truth.json", DATA / "heldout-closing-pdfs.csv",
                          _folder("RAGBEAM_HELDOUT_CLOSING_PDFS", "heldout-closing-pdfs")),
    "final": HeldoutSet("final", "final held-out of issue 23 (camelot, pdf.js test files)",
                        DATA / "heldout_final_truth.json", DATA / "heldout-final-pdfs.csv",
                        _folder("RAGBEAM_HELDOUT_FINAL_PDFS", "heldout-final-pdfs")),
    **{f"issue29-{key}": _issue29_set(key, title) for key, title in (
        ("closing", "closing held-out of issue 29 (grobid, tabula-java test files)"),
        ("final", "final held-out of issue 29 (pdfbox, tika, Unstructured test files)"),
        ("r3dev", "third-round dev held-out of issue 29 (CERMINE, pdf2json test files)"),
        ("r3final", "third-round final held-out of issue 29 (science-parse, pdfcpu test files)"),
        ("r4", "fourth-round held-out of issue 29 (PdfPig, pdf-lib test files)"),
        ("r5", "fifth-round held-out of issue 29 (h2oGPT, scipdf_parser, pdfparser, pikepdf "
               "test files)"),
    )},
    **{f"issue39-{key}": _issue_set(39, key, title) for key, title in (
        ("a", "development held-out of issue 39 (10-K filing, Chinese and Japanese theses, TI "
              "data sheet and journal, NIST SP 800-185, a two-sided book)"),
        ("b", "closing held-out of issue 39 (10-K filing with a statement head, Chinese "
              "thesis and manual, Japanese guide, NXP and Vishay data sheets, NIST SP 800-207)"),
        ("c", "second closing held-out of issue 39 (OWASP ASVS 5.0 standard, a court filing with "
              "its CM/ECF stamp, a brokerage statement, an earnings release, a Chinese thesis, "
              "Avago and ON Semiconductor data sheets, a graduate handbook, a two-sided book)"),
        ("d", "third closing held-out of issue 39 (ElegantBook and SJTUThesis guides in Chinese, "
              "a Japanese manual, a Czech handbook, a French two-sided book, a Dutch manual, "
              "ECMA-404, an annual report, an IRS form's printer's proof, German slides, the "
              "PSEC4A data sheet, an Italian university guide)"),
        ("e", "fourth closing held-out of issue 39 (an OUP article and an arXiv preprint with "
              "margin stamps, a Gondi Bible portion with chapter tabs, a Chinese thesis, a listed "
              "company's Chinese annual report, a French fund's annual report, a Korean thesis "
              "and report, Japanese manuals)"),
        ("f", "fifth closing held-out of issue 39 (GOST 7.1-2003 and a government decree in "
              "Russian, the Legrand Orange Book, Russian and German slide decks, NTT DATA's CSR "
              "report, a GB/T 9704 Chinese official document, a LaTeX workbook, Rödermark's "
              "municipal accounts)"),
        ("g", "sixth closing held-out of issue 39 (Airbnb's 10-Q, ThuThesis's Chinese user "
              "guide, Cypress and Philips data sheets, RFC 4180, a Korean thesis, a Chinese "
              "thesis template's example, an Italian course guide)"),
        ("h", "seventh closing held-out of issue 39 (GigaCloud's 10-K reprint, the GB/T 7714-2015 "
              "standard, TI's ADC12D1600RF data sheet, a Taiwanese and a Japanese thesis, German "
              "tool slides, a JOSS paper draft, a French internship report, an IMU data sheet "
              "without furniture)"),
        ("i", "eighth closing held-out of issue 39 (TI's Chinese MSP430F552x data sheet, IETF "
              "RFC 9002, Technologiestiftung Berlin's annual accounts, Wikimedia Deutschland's "
              "annual report 2016, Huai'an's government disclosure report, a USFWS survey "
              "report, a French internship report, a Beamer deck, Spanish slides without "
              "furniture)"),
        ("j", "ninth closing held-out of issue 39 (the ACL 2016 conference handbook, a Japanese "
              "and a Chinese thesis, an English thesis chapter, Turkish course notes, an Emerald "
              "journal article, an ecology preprint, a user manual without furniture)"),
    )},
}

_CJK = CJK_CLASS
# A word: letters and digits; an underscore is none (a run of them is a form's blank,
# a leader with no words that cleaning replaces by a space, ``clean/leaders.py``).
_TOKEN = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")
# The hyphens cleaning re-joins a word across a line break with (``hyphenation.HYPHENS``,
# after NFKC; the non-breaking hyphen U+2011 a LaTeX standard sets is U+2010 after it):
# a word broken with one of them is one raw word, as the cleaned text has it.
# Within a line only "-" joins (a compound cleaning keeps with U+2010 splits on both
# sides alike).
_BROKEN_WORD = re.compile(r"([^\W\d_])[-\u2010\u2011\u00ad]\n([^\W\d_])")
_INNER_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")


@dataclass
class FileScore:
    path: str
    truth_lines: int
    removed_line: int  # no longer a line of its own
    removed_strict: int  # no longer anywhere on its page beyond the body's own
    removed_gone: int  # issue 29's reading: its text is gone from the document
    body_words: int
    body_words_kept: int
    removed_lines: list[tuple[int, str]]  # (page, line) the cleaner removed

    @property
    def recall_line(self) -> float:
        return self.removed_line / self.truth_lines if self.truth_lines else 1.0

    @property
    def recall_strict(self) -> float:
        return self.removed_strict / self.truth_lines if self.truth_lines else 1.0

    @property
    def recall_gone(self) -> float:
        return self.removed_gone / self.truth_lines if self.truth_lines else 1.0

    @property
    def retention(self) -> float:
        return self.body_words_kept / self.body_words if self.body_words else 1.0


def raw_page_lines(xhtml: str) -> list[list[str]]:
    """The truth file's definition of lines: per page div, text nodes joined, split,
    stripped; a page's annotations (link URIs, comments: ``<div class="annotation">``)
    left out, as extraction leaves them out of the text (``extract/xhtml.py``)."""
    parser = etree.XMLParser(recover=True, huge_tree=True, resolve_entities=False,
                             no_network=True)
    root = etree.fromstring(xhtml.encode("utf-8"), parser=parser)
    for note in root.xpath("//*[local-name()='div'][@class='annotation']"):
        note.getparent().remove(note)  # its tail is the page's text: none after a page
    pages = root.xpath("//*[local-name()='div'][@class='page']")
    return [[line.strip() for line in "".join(page.itertext()).split("\n") if line.strip()]
            for page in pages]


# A page's lines holding undecodable characters read in no language when under this
# share of their words are function words of any language ``garbage.FUNCTION_WORDS``
# lists. Measured on every page of the held-out sets with 40 such words: a figure's
# shifted glyph codes 0.005 and 0.012; real text, 0.047 at least (a German product
# sheet whose spaces Tika could not decode), 0.17-0.43 the rest (Italian with
# undecodable apostrophes, data sheets' units, prose).
UNREADABLE_FUNCTION_SHARE = 0.02


def _words_of(text: str) -> list[str]:
    """The scorer's words (``_TOKEN``, case-folded) with undecodable characters as spaces."""
    from ragbeam.transforms.clean.residue import BINARY_CHAR

    return _TOKEN.findall(BINARY_CHAR.sub(" ", text).casefold())


def readable_lines(lines: list[str]) -> list[str]:
    """A page's body lines less what no reader can read. A font without a Unicode map
    hands over glyph codes, not text: a figure's ``7KLQN\ufffdWKH`` is ``Think the``
    shifted by the font's glyph order, its spaces undecodable (U+FFFD, private use:
    ``residue.BINARY_CHAR``). Such text is no word a reader wrote or could look up, so
    it counts neither as body kept nor as body lost. It is told by language, never by
    the cleaner's rules: the page's lines holding undecodable characters, read
    together, hold at least ``garbage.MIN_WORDS`` words of three characters or more but
    almost no function word (``UNREADABLE_FUNCTION_SHARE``), while the rest of the page
    reads in a language (``garbage.text_language``; a page in a language without a
    list is never judged). Then each run of non-space characters holding an
    undecodable character is left out of those lines; what a space sets off stays.
    Real text with undecodable spaces or apostrophes (``LG\ufffdElectronics``,
    ``d\ufffdinvestimento``) reads in its language and counts whole."""
    from ragbeam.transforms.clean.residue import BINARY_CHAR
    from ragbeam.transforms.garbage import FUNCTION_WORDS, MIN_WORDS, text_language

    marked = {i for i, line in enumerate(lines)
              if not line.isascii() and BINARY_CHAR.search(line)}
    if not marked:
        return lines
    words = _words_of(" ".join(lines[i] for i in sorted(marked)))
    if sum(len(word) >= 3 for word in words) < MIN_WORDS:
        return lines
    function_words = frozenset().union(*FUNCTION_WORDS.values())
    if sum(word in function_words for word in words) >= \
            UNREADABLE_FUNCTION_SHARE * len(words):
        return lines
    others = _words_of(" ".join(line for i, line in enumerate(lines) if i not in marked))
    if text_language(others) is None:
        return lines
    out = list(lines)
    for i in marked:
        out[i] = " ".join(run for run in lines[i].split() if not BINARY_CHAR.search(run))
    return out


def tokens(text: str) -> list[str]:
    """Words in order: NFKC, case-folded, de-hyphenated, each CJK character a word."""
    from ragbeam.transforms.clean.document import CleanOptions, clean_line_text

    text = _BROKEN_WORD.sub(lambda m: m[1] + m[2] if m[2].islower() else m[0], text)
    normalized = "\n".join(clean_line_text(line, CleanOptions()) for line in text.split("\n"))
    # Hyphens between letters do not split words, so "open-source" kept as a
    # compound and "opensource" re-joined count the same.
    return _TOKEN.findall(_INNER_HYPHEN.sub("", normalized.casefold()))


def words(text: str) -> Counter[str]:
    return Counter(tokens(text))


def _token_pattern(line: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(line)}(?!\w)")


def score_document(path: str, raw_pages: list[list[str]], doc, truth: dict,
                   extracted=None) -> FileScore:
    """Score one cleaned ``Document`` against its truth entry (``extracted``: the
    ``ExtractedDocument`` it was cleaned from, which places each truth line in the
    raw text for the ``gone`` reading; without it that reading is the ``strict`` one)."""
    from ragbeam.transforms.clean.document import CleanOptions, clean_line_text

    def norm(line: str) -> str:
        return clean_line_text(line, CleanOptions())

    per_page: list[list[str]] = truth["per_page"]
    other = truth.get("other_furniture") or [[] for _ in per_page]
    cleaned_pages: dict[int, list[str]] = {}
    for span in doc.spans:
        cleaned_pages.setdefault(span.page or 0, []).append(doc.text[span.start:span.end])
    cleaned_lines_of = {p: Counter(line for piece in pieces
                                   for line in "\n".join(pieces).split("\n"))
                        for p, pieces in cleaned_pages.items()}
    placed = _raw_lines_by_page(extracted) if extracted is not None else {}
    kept_spans = _KeptSpans(doc)
    truth_total = removed_line = removed_strict = removed_gone = 0
    body_text: list[str] = []
    for index, furniture in enumerate(per_page):
        page = index + 1
        raw = raw_pages[index] if index < len(raw_pages) else []
        excluded = Counter(furniture) + Counter(other[index] if index < len(other) else [])
        body_lines = []
        for line in raw:
            if excluded[line] > 0:
                excluded[line] -= 1
            else:
                body_lines.append(line)
        body_text.append("\n".join(readable_lines(body_lines)))
        body_norm = [norm(line) for line in (Counter(raw) - Counter(furniture)).elements()]
        cleaned_page = "\n".join(cleaned_pages.get(page, []))
        cleaned_lines = cleaned_lines_of.get(page, Counter())
        for line, count in Counter(furniture).items():
            target = norm(line)
            truth_total += count
            left_as_line = max(0, cleaned_lines[target] - body_norm.count(target))
            removed_line += count - min(count, left_as_line)
            pattern = _token_pattern(target)
            in_body = sum(len(pattern.findall(b)) for b in body_norm)
            left_anywhere = max(0, len(pattern.findall(cleaned_page)) - in_body)
            strict = count - min(count, left_anywhere)
            removed_strict += strict
            # Gone: the raw line itself is in no span of the cleaned document (not
            # glued into a paragraph, not kept in a table), and no copy of its text
            # is left on the page beyond the body's own (an OCR copy, say). Of the
            # page's raw lines with this text, the body's copies count as kept first.
            ranges = placed.get((page, line.strip()), [])
            if ranges:
                still = sum(1 for start, end in ranges if kept_spans.holds(start, end, line))
                left_in_text = max(0, still - max(0, len(ranges) - count))
                removed_gone += min(strict, count - min(count, left_in_text))
            else:  # not among the run's lines of the page (an OCR'd page): text only
                removed_gone += strict
    body_words = words("\n".join(body_text))
    cleaned = tokens(doc.text)
    kept = Counter(cleaned)
    # A space the cleaner put back where Tika ran two words together (``restore_spaces``:
    # ``iswritten`` → ``is written``) splits one raw word in two: the two, joined, are the
    # raw word kept, not lost.
    split = Counter(a + b for a, b in itertools.pairwise(cleaned))
    kept_total = sum(min(n, kept[w] + split[w]) for w, n in body_words.items())
    return FileScore(path, truth_total, removed_line, removed_strict, removed_gone,
                     sum(body_words.values()), kept_total, removed_lines(raw_pages, doc))


def _raw_lines_by_page(extracted) -> dict[tuple[int, str], list[tuple[int, int]]]:
    """``(page, line text) → [(raw_start, raw_end), …]`` of the extraction's lines."""
    from ragbeam.transforms.extract.layout import tika_page_lines

    out: dict[tuple[int, str], list[tuple[int, int]]] = {}
    for page, lines in tika_page_lines(extracted.raw_text, extracted.blocks).items():
        for line in lines:
            out.setdefault((page, line.text), []).append((line.raw_start, line.raw_end))
    return out


class _KeptSpans:
    """The cleaned document's spans by raw range: does one that overlaps a raw line's
    range hold that line's words in a row? A table's span covers the raw range from its
    first row to its last, so a head Tika emitted between two rows and removed lies
    inside it; its words do not (a row's cells are words in a row, ``|`` no word)."""

    def __init__(self, doc) -> None:
        self.spans = sorted((s.raw_start, s.raw_end, s.start, s.end)
                            for s in doc.spans if s.raw_start >= 0)
        self.starts = [span[0] for span in self.spans]
        self.reach = list(itertools.accumulate((span[1] for span in self.spans), max))
        self.text = doc.text
        self.words: dict[int, str] = {}

    def holds(self, start: int, end: int, line: str) -> bool:
        wanted = f" {' '.join(tokens(line))} "
        k = bisect.bisect_left(self.starts, end) - 1
        while k >= 0 and self.reach[k] > start:  # spans before k end by reach[k]
            _, raw_end, text_start, text_end = self.spans[k]
            if raw_end > start:
                if not wanted.strip():
                    return True  # no word to look for: overlapping is all it can show
                if k not in self.words:
                    self.words[k] = f" {' '.join(tokens(self.text[text_start:text_end]))} "
                if wanted in self.words[k]:
                    return True
            k -= 1
        return False


def removed_lines(raw_pages: list[list[str]], doc) -> list[tuple[int, str]]:
    """Raw lines of each page that no longer occur in the cleaned text of that page."""
    from ragbeam.transforms.clean.document import CleanOptions, clean_line_text

    out: list[tuple[int, str]] = []
    for index, raw in enumerate(raw_pages):
        page = index + 1
        kept = "\n".join(doc.text[s.start:s.end] for s in doc.spans if s.page == page)
        for line in raw:
            norm = clean_line_text(line, CleanOptions())
            if norm and norm not in kept and norm.rstrip("-") not in kept:
                out.append((page, line))
    return out


def extract(path: pathlib.Path):
    """(xhtml, ExtractedDocument) through the pipeline's own extraction code."""
    import hashlib

    from ragbeam.transforms.extract.backends import EmbeddedTika
    from ragbeam.transforms.extract.document import build_extracted_document
    from ragbeam.transforms.types import FetchedFile, SourceFile

    data = path.read_bytes()
    xhtml, metadata = EmbeddedTika().extract(data, path.name)
    fetched = FetchedFile(SourceFile(str(path), "doc", len(data)), data,
                          hashlib.sha256(data).hexdigest())
    return xhtml, build_extracted_document(fetched, xhtml, metadata)


# How the scored documents are extracted: as a user's run does (the pipeline's
# guarded single-file path with default ExtractOptions, so OCR ``auto``), unless
# ``--ocr`` says otherwise. Truth lines stay Tika's lines without OCR (``extract``),
# the definition the truth was marked against.
OCR_MODE = "auto"
# --cache DIR: extractions kept between runs (keyed by the file's bytes, the OCR mode
# and the extraction code), for a development loop over cleaning rules only.
CACHE: pathlib.Path | None = None


# The extraction time limit of a scoring run: the run's limit is wall-clock, and a
# measurement must not fail because the machine is busy (a 19-page PDF hit the default
# 60 s in CI at load 40); the extracted document does not depend on it.
SCORING_EXTRACT_TIMEOUT_S = 900.0


def extract_as_run(path: pathlib.Path, ocr: str | None = None):
    """The ``ExtractedDocument`` a default run makes of ``path`` (``ocr``: the mode)."""
    from ragbeam.pipeline.config import ExtractOptions
    from ragbeam.transforms.extract.single_file import read_local_file

    options = ExtractOptions(ocr=ocr or OCR_MODE, timeout_s=SCORING_EXTRACT_TIMEOUT_S)
    return options.file_extractor().extract(read_local_file(path))


def _extracted(path: pathlib.Path, ocr: str | None):
    """(raw page lines without OCR, the run's ``ExtractedDocument``), cached with ``CACHE``."""
    import pickle

    key = None
    if CACHE is not None:
        import iscc_tika

        import ragbeam

        digest = hashlib.sha256(path.read_bytes())
        digest.update(f"{ocr or OCR_MODE} {getattr(iscc_tika, '__version__', '')}".encode())
        package = pathlib.Path(ragbeam.__file__).parent
        for source in sorted((package / "transforms" / "extract").glob("*.py")):
            digest.update(source.read_bytes())
        digest.update(inspect.getsource(raw_page_lines).encode())
        key = CACHE / f"{digest.hexdigest()}.pickle"
        if key.is_file():
            return pickle.loads(key.read_bytes())
    xhtml, _ = extract(path)
    result = (raw_page_lines(xhtml), extract_as_run(path, ocr))
    if key is not None:
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_bytes(pickle.dumps(result))
    return result


def score_truth(truth_file: pathlib.Path, folder: pathlib.Path, options=None,
                ocr: str | None = None) -> list[FileScore]:
    """Score every PDF a truth file lists (paths relative to ``folder``), each extracted
    as a run extracts it (OCR ``ocr``, default ``OCR_MODE``)."""
    from ragbeam.transforms.clean.document import CleanOptions, clean_document

    truth = json.loads(truth_file.read_text(encoding="utf-8"))
    scores = []
    for rel, entry in sorted(truth.items()):
        raw_pages, extracted = _extracted(folder / rel, ocr)
        # Furniture rules are measured: a repository's cover sheet, removed on purpose
        # (clean/cover.py, tested on its own), would count as lost body words.
        doc = clean_document(extracted, options or CleanOptions(remove_cover_page=False))
        scores.append(score_document(rel, raw_pages, doc, entry, extracted))
    return scores


def score_corpus(corpus: pathlib.Path, options=None) -> list[FileScore]:
    """The tuning set: the shared corpus's ``headers_truth.json``."""
    return score_truth(corpus / "headers_truth.json", corpus, options)


def manifest_rows(manifest: pathlib.Path) -> list[dict[str, str]]:
    with open(manifest, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def heldout_files_present(folder: pathlib.Path, manifest: pathlib.Path = HELDOUT_MANIFEST
                          ) -> bool:
    """Are all PDFs of ``manifest`` in ``folder``, byte for byte as it says?"""
    for row in manifest_rows(manifest):
        path = folder / row["file"]
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != row["sha256"]:
            return False
    return True


def score_heldout(folder: pathlib.Path, options=None,
                  truth: pathlib.Path = HELDOUT_TRUTH, ocr: str | None = None) -> list[FileScore]:
    return score_truth(truth, folder, options, ocr)


def fetch(heldout: HeldoutSet, folder: pathlib.Path, mirror_root: pathlib.Path | None) -> int:
    """Copy a set's PDFs into ``folder`` from git mirrors or GitHub, checking each SHA-256."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    import large_docs  # one fetcher for every benchmark corpus

    folder.mkdir(parents=True, exist_ok=True)
    bad = 0
    for row in manifest_rows(heldout.manifest):
        source = {**row, "source_path": row["path"]}
        data = (large_docs._from_mirror(mirror_root, source) if mirror_root
                else large_docs._downloaded(source))
        if hashlib.sha256(data).hexdigest() != row["sha256"]:
            print(f"SHA-256 mismatch: {row['file']}", file=sys.stderr)
            bad += 1
            continue
        (folder / row["file"]).write_bytes(data)
    print(f"{heldout.name}: files in {folder}, {bad} mismatches")
    return 1 if bad else 0


def totals(scores: list[FileScore]) -> dict[str, float]:
    truth = sum(s.truth_lines for s in scores)
    body = sum(s.body_words for s in scores)
    return {
        "recall_line": sum(s.removed_line for s in scores) / truth,
        "recall_strict": sum(s.removed_strict for s in scores) / truth,
        "recall_gone": sum(s.removed_gone for s in scores) / truth,
        "retention": sum(s.body_words_kept for s in scores) / body,
    }


def audit(paths: list[pathlib.Path]) -> int:
    """Print the furniture lines cleaning removes from each PDF, with their pages."""
    from ragbeam.transforms.clean.document import CleanOptions, clean_document

    for path in paths:
        raw_pages, extracted = _extracted(path, None)
        doc = clean_document(extracted, CleanOptions())
        removed = json.loads(doc.metadata["clean_furniture_lines"])
        print(f"{path}: {len(raw_pages)} pages, {len(removed)} furniture lines "
              f"removed, {doc.metadata['clean_leaders_removed']} leaders, "
              f"{doc.metadata['clean_hyphenations_joined']} hyphenations")
        for page, line in removed:
            print(f"    p{page}: {line}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    for heldout in HELDOUT_SETS.values():
        parser.add_argument(f"--{heldout.name}", type=pathlib.Path, default=heldout.folder,
                            metavar="DIR", help=f"folder with the PDFs of {heldout.manifest.name}")
    # the issue sets (issue29-*, issue39-*) are scored only when named: a default run
    # must not show the cleaner's output on them before their one scoring
    parser.add_argument("--sets", default="tuning," + ",".join(
                            name for name, heldout in HELDOUT_SETS.items()
                            if not heldout.on_request),
                        help="comma-separated sets to score (default: all present, "
                             "except issue29-* and issue39-*, which must be named)")
    parser.add_argument("--show", action="store_true", help="print every removed line")
    parser.add_argument("--ocr", choices=("auto", "off", "only"), default="auto",
                        help="OCR mode of the extraction scored (default: auto, a run's)")
    parser.add_argument("--cache", type=pathlib.Path,
                        help="keep extractions here between runs (cleaning-rule work only)")
    parser.add_argument("--pdf", type=pathlib.Path, action="append", default=[],
                        help="list what cleaning removes from this PDF (no truth needed)")
    parser.add_argument("--fetch", choices=list(HELDOUT_SETS),
                        help="copy this set's PDFs into its folder, then exit")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--mirror-root", type=pathlib.Path,
                        help="with --fetch: local git mirrors DIR/<owner>+<name>/repo")
    source.add_argument("--download", action="store_true",
                        help="with --fetch: from raw.githubusercontent.com at the listed commits")
    args = parser.parse_args(argv)
    global OCR_MODE, CACHE
    OCR_MODE, CACHE = args.ocr, args.cache
    if args.pdf:
        return audit(args.pdf)
    if args.fetch:
        if not args.mirror_root and not args.download:
            parser.error("--fetch needs --mirror-root DIR or --download")
        folder = getattr(args, args.fetch.replace("-", "_"))  # argparse's dest for "--a-b"
        return fetch(HELDOUT_SETS[args.fetch], folder, args.mirror_root)
    wanted = args.sets.split(",")
    sets = []
    if "tuning" in wanted:
        sets.append(("tuning (shared/corpus/headers_truth.json)", score_corpus(args.corpus)))
    for heldout in HELDOUT_SETS.values():
        if heldout.name not in wanted:
            continue
        folder = getattr(args, heldout.name.replace("-", "_"))
        if heldout_files_present(folder, heldout.manifest):
            sets.append((f"{heldout.title}: {heldout.truth.name}, {folder}",
                         score_heldout(folder, truth=heldout.truth)))
        else:
            print(f"{heldout.name}: PDFs not found (or not as {heldout.manifest.name} says) "
                  f"in {folder}: not scored\n")
    for title, scores in sets:
        print(title)
        print_scores(scores, args.show)
        print()
    return 0


def worst_first(scores: list[FileScore]) -> list[FileScore]:
    """Documents ordered by their lowest figure (gone recall or retention), lowest first."""
    return sorted(scores, key=lambda s: (min(s.recall_gone, s.retention), s.path))


def print_scores(scores: list[FileScore], show: bool = False) -> None:
    width = max(42, *(min(len(s.path), 60) for s in scores))
    print(f"{'file':{width}} {'truth':>5} {'recall(gone)':>12} {'recall(line)':>12} "
          f"{'recall(strict)':>14} {'body words':>10} {'retention':>9}")
    for s in worst_first(scores):
        print(f"{s.path[:60]:{width}} {s.truth_lines:5d} {s.recall_gone:12.4f} "
              f"{s.recall_line:12.4f} {s.recall_strict:14.4f} {s.body_words:10d} "
              f"{s.retention:9.4f}")
        if show:
            for page, line in s.removed_lines:
                print(f"    removed p{page}: {line}")
    t = totals(scores)
    print(f"{'OVERALL':{width}} {sum(s.truth_lines for s in scores):5d} {t['recall_gone']:12.4f} "
          f"{t['recall_line']:12.4f} {t['recall_strict']:14.4f} "
          f"{sum(s.body_words for s in scores):10d} {t['retention']:9.4f}")
    worst = min(s.retention for s in scores)
    print(f"{'':{width}} documents losing more than 1 % of their body words: "
          f"{sum(s.retention < 0.99 for s in scores)} (worst retention {worst:.4f})")


if __name__ == "__main__":
    sys.path.insert(0, str(REPO.parent))
    sys.exit(main())
