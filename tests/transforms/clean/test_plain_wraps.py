"""Plain text as written: hard-wrapped text joined into paragraphs, the rest left alone."""

from __future__ import annotations

import re
import textwrap
from itertools import pairwise

import pytest

import ragbeam
from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.clean.linejoin import (
    LineBreak,
    classify_line_break,
    plain_wrap_breaks,
    url_continues,
)
from ragbeam.transforms.types import Block, BlockKind, ExtractedDocument, SourceFile

from conftest import require_corpus
from helpers import lines_of

SRC = SourceFile(uri="/x.txt", doc_id="d", size_bytes=1)

PROSE = (
    "It is a truth universally acknowledged, that a single man in possession of a good "
    "fortune, must be in want of a wife. However little known the feelings or views of "
    "such a man may be on his first entering a neighbourhood, this truth is so well fixed "
    "in the minds of the surrounding families, that he is considered the rightful property "
    "of some one or other of their daughters.")


def _clean(text: str, media_type: str = "text/plain") -> str:
    doc = ExtractedDocument(source=SRC, content_hash="h", media_type=media_type,
                            raw_text=text, blocks=(Block(BlockKind.PARAGRAPH, text,
                                                         raw_start=0, raw_end=len(text)),),
                            metadata={}, lines=lines_of(media_type))
    return clean_document(doc, CleanOptions()).text


def _breaks(text: str) -> list[bool]:
    lines = text.split("\n")
    texts = [line.strip() for line in lines]
    follows = [bool(a.strip() and b.strip()) for a, b in pairwise(lines)]
    return plain_wrap_breaks([len(line.rstrip()) for line in lines], texts, [*follows, False])


@pytest.mark.parametrize("width", [60, 72, 78])
def test_gutenberg_style_paragraphs_are_joined_at_any_steady_width(width):
    wrapped = "\n\n".join(textwrap.fill(PROSE, width) for _ in range(3))
    assert _clean(wrapped) == "\n\n".join([PROSE] * 3)


def test_rfc_style_indented_wrapped_text_is_joined_and_its_indented_figure_kept():
    body = textwrap.fill(PROSE, 72, initial_indent="   ", subsequent_indent="   ")
    figure = "       +--------+     +--------+\n       | client | --> | server |\n" \
             "       +--------+     +--------+"
    text = f"{body}\n\n{figure}\n\n{body}"
    cleaned = _clean(text)
    assert cleaned.split("\n\n")[0] == PROSE
    assert "+--------+ +--------+\n| client | --> | server |" in cleaned


def test_a_url_cut_by_the_wrap_is_rejoined_without_a_space():
    text = (textwrap.fill(PROSE, 70) + " (h\nttps://www.example.org/teams/watford/tab/leagueT\n"
            "ables/1987/). " + textwrap.fill(PROSE, 70))
    cleaned = _clean(text)
    assert "(https://www.example.org/teams/watford/tab/leagueTables/1987/)." in cleaned


def test_url_continuation_rules():
    assert url_continues('table" (h', "ttps://www.11v11.com/teams/")
    assert url_continues("(https://ww", "w.11v11.com/teams/")
    assert url_continues("www.independent.co.uk/sport/diary-of-a-foot", "balling-490141.html).")
    assert not url_continues("see https://example.org/", "for the details")
    assert not url_continues("(https://example.org/a/).", "11v11. AFS Enterprises")
    assert not url_continues("an ordinary line of text", "ends here.")
    # A cut URL is joined directly, also in PDFs, but never onto a list item.
    assert classify_line_break("(https://ww", "w.example.org/) said", same_block=True,
                               full_width=False) is LineBreak.JOINED
    assert classify_line_break("https://example.org/a-", "1. Next item", same_block=True,
                               full_width=True) is LineBreak.LINE


def test_hyphenated_words_are_rejoined_in_wrapped_plain_text():
    text = 3 * (
        "The committee examined the proposal in considerable detail and found the manip-\n"
        "ulation of the figures to be extensive, which the chairman reported at length to\n"
        "the members who had gathered in the hall to hear the outcome of that long inquiry.\n")
    assert "manipulation of the figures" in _clean(text)


SONNET = """\
Shall I compare thee to a summer's day?
Thou art more lovely and more temperate:
Rough winds do shake the darling buds of May,
And summer's lease hath all too short a date;
Sometime too hot the eye of heaven shines,
And often is his gold complexion dimm'd;
And every fair from fair sometime declin'd,
By chance or nature's changing course untrimm'd;"""

CODE = """\
def transfer(source, target, amount):
    if amount <= 0:
        raise ValueError("amount must be positive")
    with source.lock, target.lock:
        source.balance -= amount
        target.balance += amount
    log.info("moved %s from %s to %s", amount, source, target)
    return source.balance, target.balance"""

LIST = """\
Things to bring on the trip:
- a waterproof jacket and a warm hat for the evenings
- walking boots that are already worn in
- a map of the area, a compass and a whistle
- enough water for the whole day and some food
- a first aid kit, sun cream and insect repellent
- a phone with a charged battery and a spare one
- money for the bus back if the weather turns"""

TABLE = """\
Region        Q1      Q2      Q3      Q4
North      1,204   1,310   1,287   1,402
South        984   1,022   1,101   1,145
East       1,450   1,398   1,502   1,610
West         770     812     845     901
Central    1,120   1,175   1,160   1,230
Islands      210     225     240     260
Total      5,738   5,942   6,135   6,548"""

LOG = "\n".join(f"2024-03-0{d} 10:0{m}:00 INFO worker-{m} processed batch {d * 10 + m} of the "
                f"nightly import with {m * 7} records and no errors" for d in range(1, 4)
                for m in range(4))


@pytest.mark.parametrize("text", [SONNET, CODE, LIST, TABLE],
                         ids=["poetry", "code", "list", "table"])
def test_text_that_is_not_hard_wrapped_keeps_every_line(text):
    assert not any(_breaks(text))
    assert _clean(text).count("\n") == text.count("\n")


def test_a_log_keeps_every_line_even_at_a_steady_width():
    assert any(_breaks(LOG))  # its lines do look wrapped: the timestamps say otherwise
    assert _clean(LOG).count("\n") == LOG.count("\n")


def test_one_paragraph_per_line_is_not_wrapped():
    text = "\n".join([PROSE, PROSE[:120] + ".", PROSE[40:] , PROSE[:200] + "."] * 3)
    assert not any(_breaks(text))


def test_short_lines_inside_a_wrapped_text_are_kept():
    # An infobox above wrapped prose: its lines are far from the margin.
    infobox = "Personal information\nFull name Iwan Wyn Roberts\nPlace of birth Bangor, Wales"
    prose = f"{PROSE} {PROSE}"
    assert _clean(infobox + "\n" + textwrap.fill(prose, 88)) == infobox + "\n" + prose


def test_markdown_and_other_media_types_are_not_rejoined():
    wrapped = textwrap.fill(PROSE, 60)
    assert _clean(wrapped, media_type="text/x-python") == wrapped
    assert _clean(wrapped, media_type="text/plain") == PROSE


def test_switching_line_joining_off_keeps_plain_text_lines():
    wrapped = textwrap.fill(PROSE, 60)
    doc = ExtractedDocument(source=SRC, content_hash="h", media_type="text/plain",
                            raw_text=wrapped, blocks=(Block(BlockKind.PARAGRAPH, wrapped),),
                            metadata={}, lines=lines_of("text/plain"))
    assert clean_document(doc, CleanOptions(join_lines=False)).text == wrapped


MID_SENTENCE = re.compile(r"[A-Za-z,]\n[a-z]")


def test_end_to_end_a_wrapped_text_file_is_chunked_as_paragraphs(tmp_path):
    # Real Tika, default cleaning and chunking: a Gutenberg-like file and a poem.
    book = tmp_path / "book.txt"
    book.write_text("\n\n".join(textwrap.fill(PROSE, 70) for _ in range(6)) + "\n",
                    encoding="utf-8")
    poem = tmp_path / "poem.txt"
    poem.write_text(SONNET + "\n", encoding="utf-8")
    chunked = ragbeam.chunk_file(book)
    assert chunked.text.split("\n\n")[0] == PROSE
    assert not any(MID_SENTENCE.search(chunk.text) for chunk in chunked.chunks)
    assert ragbeam.chunk_file(poem).text == SONNET


def test_end_to_end_shared_corpus_wiki_text_loses_its_hard_wraps():
    path = require_corpus() / "txt" / "norwich-city.txt"
    chunks = ragbeam.chunk_file(path).chunks
    mid = sum(1 for chunk in chunks if MID_SENTENCE.search(chunk.text))
    assert mid <= 0.2 * len(chunks)  # 102 of 136 before (docs/cleaning.md)
    text = "".join(chunk.text for chunk in chunks)
    # A print's link targets go (clean/links.py: wrapped inside their URI, they mark the
    # text as a print); the citation's words are joined over the wraps they left.
    assert '"Roberts halts United revival". The Guardian. p. 28.' in text
    assert "https://" not in text
