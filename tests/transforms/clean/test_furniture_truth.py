"""Cleaning measured on real PDFs: the acceptance thresholds of issue 3, and pages.

The figures come from ``benchmarks/furniture_truth.py`` (same code), which
prints them per file.
"""

from __future__ import annotations

import bisect
import importlib.util
import json
import pathlib
import sys
from types import SimpleNamespace

import pytest

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.recursive import split_recursive
from ragbeam.transforms.clean.document import CleanOptions, clean_document

from conftest import REPO, require_corpus

MIN_FURNITURE_RECALL = 0.98
MIN_BODY_RETENTION = 0.995


def _load_scorer():
    spec = importlib.util.spec_from_file_location(
        "furniture_truth", REPO / "benchmarks" / "furniture_truth.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


scorer = _load_scorer()


@pytest.fixture(scope="module")
def corpus() -> pathlib.Path:
    return require_corpus()


@pytest.fixture(scope="module")
def scores(corpus):
    return scorer.score_corpus(corpus)


def test_furniture_recall_and_body_retention_meet_the_thresholds(scores):
    totals = scorer.totals(scores)
    assert totals["recall_line"] >= MIN_FURNITURE_RECALL, totals
    assert totals["recall_strict"] >= MIN_FURNITURE_RECALL, totals
    assert totals["retention"] >= MIN_BODY_RETENTION, totals
    for score in scores:  # no file may be sacrificed for the average
        assert score.retention >= MIN_BODY_RETENTION, score


def test_truth_lines_leave_out_page_annotations_as_extraction_does():
    """Link URIs and comments Tika writes after a page's text are metadata, never text
    (``extract/xhtml.py``): counted as body, every link-rich PDF would lose them."""
    xhtml = ('<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="page">'
             '<p>Body line one\nBody line two</p><div class="annotation">'
             '<a href="https://x.example/a">https://x.example/a</a></div></div>'
             '<div class="page"><p>Page two</p></div></body></html>')
    assert scorer.raw_page_lines(xhtml) == [["Body line one", "Body line two"], ["Page two"]]


def test_a_word_broken_with_any_hyphen_cleaning_rejoins_is_one_body_word():
    """Cleaning re-joins "require‑" + "ments" with a non-breaking hyphen (U+2011, which
    NFKC makes U+2010) as with "-": the scorer counts the raw word as the one word the
    cleaned text has, not as two words lost."""
    for hyphen in ("-", "\u2010", "\u2011"):
        assert scorer.tokens(f"security require{hyphen}\nments apply") == \
            scorer.tokens("security requirements apply")


def _cleaned(text: str, page: int = 1):
    """A cleaned document of one span on ``page``, as ``score_document`` reads it."""
    return SimpleNamespace(text=text, spans=[SimpleNamespace(
        page=page, start=0, end=len(text), raw_start=-1, raw_end=-1)])


def _shift(text: str) -> str:
    """Text as a font without a Unicode map hands it over: glyph codes in the standard
    glyph order (each character 29 below its own), the space undecodable."""
    return "".join("\ufffd" if c == " " else chr(ord(c) - 29) for c in text)


def test_glyph_codes_tika_could_not_decode_are_neither_body_kept_nor_lost():
    """A figure's text in a font without a Unicode map comes as glyph codes (``Think the``
    as ``7KLQN\ufffdWKH``): no reader can read it, so removing it costs no body word. It
    is told by language: real text with undecodable spaces still counts whole."""
    figure = [_shift("Act Think Now I need to find the keychain in the drawer next"),
              _shift("Obs You open the drawer and see a watch and a keychain there"),
              _shift("Act take keychain from drawer then put it in the safe now"),
              _shift("Obs You put the keychain in the safe and close its door"),
              _shift("Task put two keychains in the safe before you leave the room")]
    assert _shift("Think the") == "7KLQN\ufffdWKH"
    prose = ["We show that the agent can find what it needs and act on it in",
             "the room, as the figure shows for one of the tasks of the set."]
    raw = [[*prose, *figure], ["where \ufffd\ufffd is the rate and x = \ufffd (1)"]]
    assert scorer.readable_lines(raw[0]) == [*prose, "", "", "", "", ""]
    assert scorer.readable_lines(raw[1]) == raw[1]  # too few words to tell: all count
    truth = {"per_page": [[], []]}
    score = scorer.score_document("f.pdf", raw, _cleaned("\n".join(prose)), truth)
    assert score.retention < 1.0  # the formula's page is missing from the cleaned text
    only_figure_lost = scorer.score_document("f.pdf", raw[:1], _cleaned("\n".join(prose)),
                                             {"per_page": [[]]})
    assert only_figure_lost.retention == 1.0 and only_figure_lost.body_words == 29
    spaced = [line.replace(" ", "\ufffd") for line in prose] * 2
    assert scorer.readable_lines([*prose, *spaced]) == [*prose, *spaced]  # in a language


def test_a_forms_blank_is_no_body_word():
    """A run of underscores is a blank to fill in, which cleaning replaces by a space
    (``clean/leaders.py``): no word, on either side of the count."""
    assert scorer.tokens("Contract No.___________ made this _______day of") == \
        scorer.tokens("Contract No. made this day of")
    assert scorer.tokens("snake_case") == ["snake", "case"]


def test_a_head_removed_between_table_rows_is_gone_though_the_tables_span_covers_it():
    """The ``gone`` reading: a table's span covers the raw range from its first row to
    its last; a head Tika emitted between two rows lies inside it, but only a line whose
    words the span holds in a row is kept (a row's cells are its words, ``|`` no word)."""
    text = "Cu | 3.88 | 3.68\nAl | 1.02 | 2.40"
    doc = SimpleNamespace(text=text, spans=[SimpleNamespace(raw_start=100, raw_end=260,
                                                            start=0, end=len(text))])
    kept = scorer._KeptSpans(doc)
    assert kept.holds(100, 116, "Cu 3.88 3.68")
    assert not kept.holds(120, 180, "448 H. Ashuri / Journal of Alloys 617 (2014)")
    assert not kept.holds(300, 320, "Cu 3.88 3.68")  # no span there


def test_turning_furniture_removal_off_is_measured_as_a_loss(corpus):
    """The scorer can fail: without the step, recall collapses."""
    scores = scorer.score_corpus(corpus, CleanOptions(remove_furniture=False))
    assert scorer.totals(scores)["recall_strict"] < 0.2


# The arXiv identifier that runs up the margin of the DPR paper's first page, as
# Tika emits it (rotated text: one or two glyphs a line).
DPR_STAMP = ["ar", "X", "iv", ":2", "00", "4.", "04", "90", "6v", "3", "[", "cs", ".C", "L", "]",
             "3", "0", "Se", "p", "20", "20"]


@pytest.mark.parametrize(("name", "stamp"), [("pdf/zh-poems.pdf", []),
                                             ("pdf/dpr-multi-column.pdf", DPR_STAMP),
                                             ("pdf/warn-report-table.pdf", [])])
def test_pdfs_without_running_furniture_lose_no_words(corpus, name, stamp):
    xhtml, extracted = scorer.extract(corpus / name)
    doc = clean_document(extracted, CleanOptions())
    raw_lines = [line for page in scorer.raw_page_lines(xhtml) for line in page]
    raw_words = scorer.words("\n".join(raw_lines)) - scorer.words("\n".join(stamp))
    kept = scorer.words(doc.text)
    lost = raw_words - kept
    assert sum(lost.values()) / sum(raw_words.values()) < 1 - MIN_BODY_RETENTION, lost
    assert json.loads(doc.metadata["clean_furniture_lines"]) == [[1, line] for line in stamp]
    assert "ar X iv" not in doc.text


def _page_tokens(xhtml: str) -> list[str]:
    return [" ".join(scorer.tokens("\n".join(lines))) for lines in scorer.raw_page_lines(xhtml)]


@pytest.mark.parametrize("name", ["pdf/llncsdoc.pdf", "pdf/langchain-primer-icaens2023.pdf"])
def test_chunk_pages_are_the_pages_their_text_was_printed_on(corpus, name):
    xhtml, extracted = scorer.extract(corpus / name)
    doc = clean_document(extracted, CleanOptions())
    pages = _page_tokens(xhtml)
    options = ChunkOptions(unit="chars", size=300)
    spans = split_recursive(doc.text, options.size, options.sizer(), 0).spans
    span_starts = [span.start for span in doc.spans]
    crossing = 0
    for start, end in spans:
        first, last = doc.pages_of(start, end)
        if len(scorer.tokens(doc.text[start:end])) < 6 or last is None:
            continue  # too short to place, or the PDF outline Tika appends after the pages
        # The chunk's first and last words, as far as they come from one source line.
        first_line = doc.spans[bisect.bisect_right(span_starts, start) - 1]
        last_line = doc.spans[bisect.bisect_right(span_starts, end - 1) - 1]
        head = " ".join(scorer.tokens(doc.text[start:min(end, first_line.end)])[:3])
        tail = " ".join(scorer.tokens(doc.text[max(start, last_line.start):end])[-3:])
        assert head in pages[first - 1], (first, doc.text[start:end][:80])
        assert tail in pages[last - 1], (last, doc.text[start:end][-80:])
        crossing += last > first
    assert len({doc.pages_of(s, e)[0] for s, e in spans}) >= 6
    assert crossing >= 1  # paragraphs joined across a page break map to both pages


def test_raw_offsets_of_chunks_point_at_their_source_lines(corpus):
    _xhtml, extracted = scorer.extract(corpus / "pdf/llncsdoc.pdf")
    doc = clean_document(extracted, CleanOptions())
    for span in doc.spans[:200]:
        raw = extracted.raw_text[span.raw_start:span.raw_end]
        assert scorer.tokens(doc.text[span.start:span.end])[:1] == scorer.tokens(raw)[:1]


def test_pdf_sections_become_heading_paths(corpus):
    from ragbeam.transforms.chunk.base import HeadingIndex

    _xhtml, extracted = scorer.extract(corpus / "pdf/llncsdoc.pdf")
    doc = clean_document(extracted, CleanOptions())
    assert int(doc.metadata["clean_headings_detected"]) >= 15
    offset = doc.text.index("The llncs class is an extension of the standard")
    assert HeadingIndex(doc).path_at(offset) == (
        "2 Working with the llncs Document Class", "2.1 General Information")
