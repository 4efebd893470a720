"""Paragraphs whole across page and column breaks (issue 41), on PDFs made here and read
by real Tika and PDFium: a page with a full-width abstract over two columns, where a
paragraph runs from the left column into the right one and from the right column onto
the next page, each time into a line that starts with a capital."""

from __future__ import annotations

import textwrap

from made_pdfs import serialise

import ragbeam
from ragbeam.transforms.clean.linejoin import LineBox, wraps_by_position

ABSTRACT = (
    "Abstract. This note studies how harbour authorities plan the upkeep of their "
    "quays, cranes and locks, and how the plans change when traffic grows faster than "
    "the budget for maintenance that the port receives every year from its owners. It "
    "follows one port through a season of works: the inspection that found the old "
    "piles rotten, the design of the new quay, the order of the works on the berths "
    "and the locks, and what the divers reported. It closes with what the port would "
    "do differently, and with the costs of each part of the works, which came in "
    "lower than the engineers had feared when they drew up their first estimates.")
# One paragraph that fills the left column, runs on at the top of the right column, and
# from the bottom of the right column onto page 2; each break falls before a capital.
LEFT = (
    "The northern quay was rebuilt in the spring after the inspectors found that the "
    "old timber piles had rotted below the waterline. The engineers who drew up the new "
    "design chose concrete piles and steel fenders, and they asked the harbour master "
    "for a plan of the berths that the ships of the coming season would need while the "
    "works went on. The plan that came back was meant to expedite the delivery of bespoke")
RIGHT = (
    "Crane parts and the steel for the fenders, so that the works could finish before "
    "the autumn storms. Each crane was greased and its brakes were tested by the crews "
    "who run them every day, and the locks were drained one after another so that the "
    "divers could look at their gates. The divers wrote down every crack they saw and "
    "every bolt that had worked loose, and their notes went to the engineers of the "
    "port, who chose the gates that had to be")
NEXT_PAGE = (
    "Replaced first and which could wait for another year. The work took most of the "
    "summer and cost less than the engineers had feared at the start.")
SIZE, PITCH = 10, 12
CHAR = 0.6 * SIZE  # Courier: every glyph is 0.6 em wide



def _lines(x: float, top: float, text: str, width: int) -> list[bytes]:
    """``text`` wrapped at ``width`` characters, one line per ``Td``, from ``top`` (points
    from the page's top) down at the page's pitch."""
    return [b"BT /F1 %d Tf %.1f %.1f Td (%s) Tj ET" % (SIZE, x, 792 - top - PITCH * i,
                                                       line.encode())
            for i, line in enumerate(textwrap.wrap(text, width))]


def two_column_report() -> bytes:
    """Page 1: a full-width abstract (wrapped at 88 characters) over two columns (at 42);
    page 2: the paragraph's end in the left column. Page numbers at the foot of both."""
    first = [*_lines(50, 72, ABSTRACT, 88), *_lines(50, 200, LEFT, 42),
             *_lines(320, 200, RIGHT, 42), b"BT /F1 10 Tf 300 40 Td (1) Tj ET"]
    second = [*_lines(50, 72, NEXT_PAGE, 42), b"BT /F1 10 Tf 300 40 Td (2) Tj ET"]
    objects = {3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>"}
    kids = []
    for stream in (b"\n".join(first), b"\n".join(second)):
        number = max(objects) + 1
        objects[number] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                           b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>"
                           % (number + 1))
        objects[number + 1] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
        kids.append(number)
    return serialise(objects, kids)


def test_a_paragraph_runs_on_across_a_column_and_a_page_break(tmp_path):
    """The column's lines are shorter than the abstract's, so a page's typical line
    length (the rule before) called them short and cut the paragraph at both breaks;
    by position each break is a wrap, and the page number between the pages goes."""
    path = tmp_path / "report.pdf"
    path.write_bytes(two_column_report())
    text = ragbeam.chunk_file(path, size=2000).text
    paragraphs = text.split("\n\n")
    whole = " ".join(textwrap.wrap(LEFT, 42) + textwrap.wrap(RIGHT, 42)
                     + textwrap.wrap(NEXT_PAGE, 42))
    assert whole in paragraphs, paragraphs
    assert "delivery of bespoke Crane parts" in text  # where the rule before cut it
    assert "had to be Replaced first" in text
    assert " 2 " not in whole and "\n2\n" not in text  # the page numbers are gone


def test_a_line_set_apart_or_spread_out_is_no_wrap():
    """Geometry alone: a justified column's lines wrap; a line followed by one set well
    below it (a heading's space), a table row of spread-out cells and a line before code
    do not; a line outside any column is unknown (None)."""
    body = "word " * 11
    rows = [LineBox(1, 50, 100 + PITCH * i, 50 + 55 * CHAR, 110 + PITCH * i)
            for i in range(6)]
    texts = [body.strip() + " x"] * 6
    assert wraps_by_position(rows, texts)[:5] == [True] * 5
    lowered = rows[3]._replace(top=rows[3].top + 2 * PITCH, bottom=rows[3].bottom + 2 * PITCH)
    apart = [*rows[:3], lowered, *rows[4:]]
    assert wraps_by_position(apart, texts)[2] is False
    spread = [*texts[:3], "Total 12 34 56", *texts[4:]]
    assert wraps_by_position(rows, spread)[2:4] == [False, False]
    code = [*texts[:3], "\\end{proof}", *texts[4:]]
    assert wraps_by_position(rows, code)[2] is False
    alone = [LineBox(1, 200, 600, 260, 610)]
    assert wraps_by_position([*rows, *alone], [*texts, "a caption"])[-1] is None


def test_a_page_without_a_line_long_enough_to_measure_is_unknown():
    """A scan's OCR text placed as short words (the corpus's scanned PDF) or a page of
    labels: no line to measure a character by, so no wrap is known (and nothing fails)."""
    words = [LineBox(1, 50 + 40 * i, 100, 80 + 40 * i, 110) for i in range(4)]
    assert wraps_by_position(words, ["Docling", "bundles", "PDF", "parsing"]) == [None] * 4
    assert wraps_by_position([None, None], ["a", "b"]) == [None, None]


def test_an_apache_licence_keeps_each_numbered_clause_whole(corpus_dir):
    """The licence's clauses hang under their numbers ("   8. Limitation of Liability. In
    no event …" / "      whether in tort …"): the first line of each clause wraps onto
    the next although that one is indented further, so no chunk is a clause's first line
    ("8. Limitation of Liability. In no event and under no legal theory," was one, 16
    tokens), and no chunk ends at a line break inside a sentence."""
    licence = corpus_dir / "LICENSES" / "apache__tika__LICENSE.txt"
    result = ragbeam.chunk_file(licence)
    assert ("8. Limitation of Liability. In no event and under no legal theory, whether in "
            "tort (including negligence)") in result.text
    assert not any(chunk.text.endswith("no legal theory,") for chunk in result.chunks)
    assert all(chunk.size >= 20 for chunk in result.chunks[:-1])
    for chunk, following in zip(result.chunks, result.chunks[1:], strict=False):
        between = result.text[chunk.end:following.start]
        assert not (between.count("\n") == 1 and following.text[0].islower()), chunk.text


def test_hyphen_joins_follow_the_document_s_own_words():
    """A compound broken at its own hyphen keeps it ("state-" / "of-the-art": a typesetter
    breaks such a word at its hyphens); a break the document writes as two words or with
    its hyphen elsewhere keeps the hyphen; a closed-up form elsewhere wins by count."""
    from ragbeam.transforms.clean.hyphenation import (
        HyphenBreak,
        classify_hyphen_break,
        hyphen_lexicon,
    )

    lexicon = hyphen_lexicon(["an administrator level account", "for the administrator level",
                              "a subject of the study", "results are state-", "of-the-art",
                              "an administrator-", "level role", "the manip-", "ulation",
                              "the sub-", "ject-matter"])  # the document's lines, breaks too
    assert classify_hyphen_break("results are state-", "of-the-art", lexicon) is HyphenBreak.KEEP
    assert classify_hyphen_break("an administrator-", "level role", lexicon) is HyphenBreak.KEEP
    assert classify_hyphen_break("the manip-", "ulation", lexicon) is HyphenBreak.JOIN
    assert classify_hyphen_break("the sub-", "ject-matter", lexicon) is HyphenBreak.JOIN
    closed = hyphen_lexicon(["the database", "the database", "a data base", "the data-", "base"])
    assert classify_hyphen_break("the data-", "base", closed) is HyphenBreak.JOIN


def test_a_real_paper_keeps_state_of_the_art_broken_at_its_hyphen(corpus_dir):
    text = ragbeam.chunk_file(corpus_dir / "pdf" / "dpr-multi-column.pdf").text
    assert "stateof-the-art" not in text and "state-of-the-art results on multiple" in text


WORDS = ("Transport", "layer", "and", "network", "layer", "of", "the", "test", "system",
         "topology")


def _one_line_pdf(stream: bytes, font: bytes = b"Helvetica") -> bytes:
    objects = {3: b"<< /Type /Font /Subtype /Type1 /BaseFont /" + font + b" >>",
               4: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                  b"<< /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
               5: b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"}
    return serialise(objects, [4])


def test_words_a_pdf_sets_apart_without_space_glyphs_get_their_spaces(tmp_path):
    """A line that places each word after a gap of 0.12 em and sets no space glyph:
    Tika (PDFBox) finds some of the gaps and runs the other words together ("layerand
    network"), PDFium finds none; the gaps measured against the line's own letters put
    every space back. The same words with spaces set, and a heading set letter-spaced,
    come out as they are."""
    placed = b"[" + b" -120 ".join(b"(%s)" % word.encode() for word in WORDS) + b"] TJ"
    path = tmp_path / "placed.pdf"
    path.write_bytes(_one_line_pdf(b"BT /F1 11 Tf 72 700 Td " + placed + b" ET"))
    assert ragbeam.chunk_file(path).text == " ".join(WORDS)
    spaced = tmp_path / "spaced.pdf"
    spaced.write_bytes(_one_line_pdf(b"BT /F1 11 Tf 72 700 Td (%s) Tj ET"
                                     % " ".join(WORDS).encode()))
    assert ragbeam.chunk_file(spaced).text == " ".join(WORDS)
    letter_spaced = tmp_path / "letter-spaced.pdf"  # long words: measured glyph by glyph
    letter_spaced.write_bytes(_one_line_pdf(
        b"BT /F1 14 Tf 1.5 Tc 72 700 Td (INTERNATIONALISATION OF HARBOURS) Tj ET\n"
        b"BT /F1 11 Tf 0 Tc 72 670 Td (The hearing is open to every resident.) Tj ET"))
    text = ragbeam.chunk_file(letter_spaced).text
    assert text.startswith("INTERNATIONALISATION OF HARBOURS\n"), text


def test_one_pair_run_together_is_found_by_the_document_s_own_words(tmp_path):
    """An ISO standard's "Transport layer andnetwork layer": a page that places every word
    without a space glyph, one gap squeezed below what PDFBox reads as a space.
    "andnetwork" occurs once and is two words the document uses often side by side, so
    that line is measured, and its gap put back."""
    def placed(words: str, gap: int = 300) -> bytes:
        return b"[" + (b" -%d " % gap).join(b"(%s)" % w.encode() for w in words.split()) + b"]"

    body = b"\n".join(b"BT /F1 11 Tf 72 %d Td %s TJ ET"
                      % (700 - 14 * i, placed("The network layer and the network card and the "
                                             "network stack."))
                      for i in range(5))
    squeezed = (b"BT /F1 11 Tf 72 600 Td [(Transport) -300 (layer) -300 (and) -120 (network) "
                b"-300 (layer.)] TJ ET")
    path = tmp_path / "iso.pdf"
    path.write_bytes(_one_line_pdf(body + b"\n" + squeezed))
    text = ragbeam.chunk_file(path).text
    assert "Transport layer and network layer." in text, text


def test_ends_near_counts_as_the_scan_over_all_ends():
    """``wraps_by_position`` (``_line_passes.c``) counts a page's line ends near a column's
    edge by bisection; it must count what testing every end counts, floats at the
    boundary included."""
    import random

    from ragbeam.transforms.clean._line_passes import ends_near as _ends_near

    rng = random.Random(7)
    for _ in range(300):
        ends = sorted(rng.choice([rng.uniform(0, 600), round(rng.uniform(0, 600), 1),
                                  300.0 + rng.choice([-2.4, 2.4, 2.4000000000000004, 0.0])])
                      for _ in range(rng.randrange(0, 40)))
        edge = rng.choice([300.0, rng.uniform(0, 600), *(ends[:1] or [0.0])])
        slack = rng.choice([2.4, 0.0, rng.uniform(0, 20), float("inf")])
        assert _ends_near(ends, edge, slack) == sum(abs(end - edge) <= slack for end in ends)
