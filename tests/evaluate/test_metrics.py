"""Label-free figures: sentence-end rule, overlap redundancy, sizes against the cap."""

from __future__ import annotations

import pytest

from ragbeam.evaluate.metrics import (
    chunk_figures,
    distribution,
    ends_mid_sentence,
    furniture_removed,
    overlap_duplicate_tokens,
)
from ragbeam.evaluate.run_data import ChunkRecord


def chunk(doc_text: str, start: int, end: int, tokens: int | None = None, level: str = "chunk",
          doc_id: str = "d", index: int = 0, parent_id: str | None = None) -> ChunkRecord:
    text = doc_text[start:end]
    return ChunkRecord(chunk_id=f"{doc_id}-{level}-{start}-{end}", doc_id=doc_id,
                    parent_id=parent_id, chunk_index=index, level=level, strategy="s",
                    text=text, context="", char_start=start, char_end=end, page_start=None,
                    page_end=None, heading_path=(), token_count=len(text) if tokens is None
                    else tokens, char_count=len(text), source_uri=f"/x/{doc_id}.txt",
                    media_type="text/plain")


@pytest.mark.parametrize(("doc", "end", "mid"), [
    ("One sentence. Another one.", len("One sentence."), False),  # full stop then space
    ("One sentence. Another one.", len("One sen"), True),  # inside a word
    ("One sentence. Another one.", len("One sentence. Another"), True),  # between words
    ("A heading\n\nBody text.", len("A heading"), False),  # paragraph break
    ("a hard-wrapped\nsentence.", len("a hard-wrapped"), True),  # a line end is no end
    ("Version 3.2 is out.", len("Version 3."), True),  # decimal point, not a sentence end
    ("他说：“好。”然后走了。", len("他说：“好。”"), False),  # CJK end with closing quote
    ("第一句。第二句", len("第一"), True),
    ("Ends at the end", len("Ends at the end"), False),  # end of document
    ("Question? Answer.", len("Question?"), False),
])
def test_mid_sentence_break_rule(doc, end, mid):
    assert ends_mid_sentence(doc, end) is mid


def test_overlap_redundancy_counts_only_characters_seen_before():
    doc = "x" * 100
    no_overlap = [chunk(doc, 0, 50), chunk(doc, 50, 100)]
    assert overlap_duplicate_tokens(no_overlap) == 0
    # 20 of the second chunk's 50 characters were already in the first: 40% of its tokens.
    overlapping = [chunk(doc, 0, 50, tokens=10), chunk(doc, 30, 80, tokens=10)]
    assert overlap_duplicate_tokens(overlapping) == pytest.approx(4.0)
    # Order of rows does not matter; a chunk inside another is all duplicate.
    nested = [chunk(doc, 10, 20, tokens=5), chunk(doc, 0, 100, tokens=50)]
    assert overlap_duplicate_tokens(nested) == pytest.approx(5.0)


def test_figures_cap_tiny_and_parents_not_indexed():
    doc = ("word " * 400).strip()
    rows = [chunk(doc, 0, 100), chunk(doc, 100, 105), chunk(doc, 105, 204),
            chunk(doc, 0, 204, level="parent")]
    f = chunk_figures(rows, {"d": doc}, cap=100, unit="chars")
    assert f["chunks"] == 3 and f["parents"] == 1
    assert f["share_at_cap"] == pytest.approx(2 / 3, abs=1e-4)  # 100 and 99 chars are at a 100 cap
    assert f["share_tiny"] == pytest.approx(1 / 3, abs=1e-4)  # 5 chars < 10% of the cap
    assert f["index_tokens"] == 100 + 5 + 99  # parents are not indexed
    assert f["overlap_redundancy"] == 0
    assert f["parent_tokens"]["mean"] == 204  # what a retrieved child costs


def test_distribution_percentiles():
    d = distribution(range(1, 101))
    assert d["median"] == 50.5 and d["p5"] == pytest.approx(5.95, abs=0.1)
    assert d["p95"] == pytest.approx(95.05, abs=0.1) and d["max"] == 100


def test_furniture_counter_read_from_cleaner_metadata():
    assert furniture_removed({"clean_furniture_lines_removed": "7", "title": "x",
                              "clean_leaders_removed": "3"}) == 7
