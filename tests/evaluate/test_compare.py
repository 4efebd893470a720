"""compare's recommendation, tests of noise, examples and charts, on hand-made results."""

from __future__ import annotations

import math
import re

import pytest

from ragbeam.evaluate import svg
from ragbeam.evaluate.compare import (
    EXAMPLE_CHARS,
    excerpt,
    fisher_exact,
    pick_examples,
    recommend,
    sign_test,
)
from ragbeam.evaluate.report import media_label, render_report


def _figures(breaks: int, counted: int, index_tokens: int) -> dict:
    return {"chunks": counted, "parents": 0, "tokens": {"mean": 100.0, "median": 100.0,
                                                         "p5": 10.0, "p95": 120.0},
            "share_at_cap": 0.0, "share_tiny": 0.0, "mid_sentence_breaks": breaks,
            "breaks_counted": counted, "mid_sentence_break_rate": round(breaks / counted, 4),
            "index_tokens": index_tokens, "overlap_redundancy": 0.0}


def _compare(strategies: dict[str, tuple[list[bool], tuple[int, int, int]]],
             retrievers: tuple[str, ...] = ("bm25",)) -> dict:
    """``name → (hits per question, (mid-sentence ends, ends counted, index tokens))``."""
    out = {}
    for name, (hits, (breaks, counted, tokens)) in strategies.items():
        rate = sum(hits) / len(hits) if hits else 0.0
        retrieval = {r: {"hits": sum(hits), "questions": len(hits), "hit_rate": rate,
                         "recall_at_budget": {"200": rate / 2, "600": rate, "2000": rate},
                         "mean_first_answer_rank": 1.0, "mrr": 1.0,
                         "mean_chunks_in_context": 3.0, "mean_context_tokens": 500.0,
                         "per_question": [
            {"id": f"q{i}", "question": f"question {i}?", "hit": h, "top_chunk_id": None,
             "answer_chunk_id": None} for i, h in enumerate(hits)]} for r in retrievers}
        figures = _figures(breaks, counted, tokens)
        out[name] = {"eval": {"figures": {"by_strategy": {name: figures},
                                          "by_strategy_media_type": {
                                              name: {"text/plain": figures}}},
                              "retrieval": retrieval}}
    return {"strategies": out, "retrievers": list(retrievers) if retrievers else [],
            "budget": 600}


def test_sign_and_fisher_tests_match_their_definitions():
    assert sign_test(0, 0) == 1.0
    assert sign_test(6, 0) == pytest.approx(2 / 64)  # 6 of 6 one way, either way
    assert sign_test(5, 1) == pytest.approx(2 * (1 + 6) / 64)
    assert sign_test(1, 5) == sign_test(5, 1)
    # Fisher: 0 of 10 against 5 of 10; the tables as or less likely are 0:5 and 5:0.
    p0 = math.comb(10, 0) * math.comb(10, 5) / math.comb(20, 5)
    assert fisher_exact(0, 10, 5, 10) == pytest.approx(2 * p0)
    assert fisher_exact(3, 10, 3, 10) == pytest.approx(1.0)
    assert fisher_exact(0, 5, 0, 9) == 1.0


def test_recommendation_beyond_noise_names_the_winner_the_margin_and_the_test():
    line = recommend(_compare({
        "recursive": ([True] * 9 + [False], (1, 20, 1000)),
        "fixed": ([True] * 2 + [False] * 8, (15, 20, 1010))}))
    assert line.startswith("recursive: the most answers within 600 tokens, 9 of 10")
    assert "7 more than fixed (2)" in line and "beyond noise" in line
    assert "sign test p = 0.016" in line  # 7 answered only by recursive, 0 by fixed
    assert "1 of 20 of its chunk ends are mid-sentence" in line and "\n" not in line


def test_recommendation_within_noise_says_so():
    line = recommend(_compare({"a": ([True, True, True, False], (2, 10, 500)),
                               "b": ([True, True, False, False], (2, 10, 400))}))
    assert line.startswith("a: the most answers") and "1 more than b" in line
    assert "within noise" in line and "more questions would tell" in line


def test_a_tie_is_broken_by_where_chunks_end_then_by_index_tokens():
    # As many answers: b ends far fewer chunks mid-sentence than a (beyond noise).
    line = recommend(_compare({"a": ([True, False], (18, 20, 400)),
                               "b": ([False, True], (1, 20, 900))}))
    assert line.startswith("b: as many answers within 600 tokens as a (1 of 2")
    assert "the fewest chunk ends mid-sentence (1 of 20, a 18 of 20: beyond noise)" in line
    # Ends alike (within noise): the one indexing fewer tokens.
    line = recommend(_compare({"a": ([True], (2, 20, 900)), "b": ([True], (3, 20, 400)),
                               "c": ([True], (19, 20, 100))}))
    assert line.startswith("b: as many answers within 600 tokens as a and c")
    assert "about as few chunk ends mid-sentence as a" in line and "within noise" in line
    assert "c 19 of 20" in line and "fewest index tokens of them (400)" in line


def test_without_questions_the_recommendation_is_by_shape_and_asks_for_questions():
    line = recommend(_compare({"a": ([], (9, 10, 100)), "b": ([], (0, 10, 100))},
                              retrievers=()))
    assert line.startswith("b, by chunk shape alone (no questions)")
    assert "pass --questions" in line


def test_an_excerpt_keeps_the_answer_near_its_top_and_says_what_it_left_out():
    text = "word " * 600 + "The bunk house has\ntwelve beds." + " more" * 600
    shown, mark = excerpt(text, "the bunk house has twelve beds")
    assert shown[mark[0]:mark[1]] == "The bunk house has\ntwelve beds"
    assert shown.startswith("[… ") and shown.endswith("characters after]")
    assert 200 < mark[0] < 320 and len(shown) < EXAMPLE_CHARS + 80
    short = "A short chunk with no answer."
    assert excerpt(short, "missing words") == (short, None)


def test_examples_put_each_strategys_answer_chunk_side_by_side():
    compare = _compare({"a": ([True, False], (1, 10, 100)), "b": ([True, True], (1, 10, 100))})
    for name, chunk_id in (("a", "A1"), ("b", "B1")):
        pq = compare["strategies"][name]["eval"]["retrieval"]["bm25"]["per_question"]
        pq[1]["top_chunk_id"] = chunk_id
        pq[1]["answer_chunk_id"] = chunk_id if name == "b" else None
    shown = {n: {f"{n.upper()}1": {"chunk_id": f"{n.upper()}1", "chunk_index": 3,
                                    "level": "chunk", "source": "faq.txt", "tokens": 40,
                                    "heading": "", "char_start": 0, "char_end": 30,
                                    "text": "Beds: the bunk house has twelve beds.",
                                    "role": ""}} for n in ("a", "b")}
    examples = pick_examples(compare, shown, None, {"q1": "twelve beds", "q0": None})
    assert examples[0]["id"] == "q1"  # the strategies disagree on it: shown first
    row = examples[0]["by_strategy"]
    assert row["a"]["hit"] is False and row["a"]["chunk"]["role"] == "top"
    assert row["b"]["hit"] is True and row["b"]["chunk"]["role"] == "answer"
    text, (start, end) = row["b"]["chunk"]["text"], row["b"]["chunk"]["mark"]
    assert text[start:end] == "twelve beds"
    html = render_report({**compare, "inputs": ["x"], "examples": examples,
                          "recommendation": recommend(compare)})
    assert html.count('class="example"') == 2 * len(examples)
    assert "<mark>twelve beds</mark>" in html and 'class="badge miss"' in html


def test_lines_that_coincide_stay_told_apart_and_say_so():
    points = [(200, 0.5), (400, 1.0)]
    chart = svg.line_chart({"a": points, "b": points, "c": [(200, 0.25), (400, 1.0)]}, "t")
    dashes = re.findall(r'<polyline[^>]*stroke="([^"]+)"[^>]*?(?:stroke-dasharray="([^"]+)")?',
                        chart)
    assert len(set(dashes)) == 3  # colour and dash differ for every line
    assert {m for m in re.findall(r"<(circle|polygon) class=\"point\"", chart)} == {
        "circle", "polygon"}
    labels = re.findall(r'<text class="end-label"[^>]*data-series="([^"]+)"', chart)
    assert labels == ["a b", "c"]  # a and b are one curve: labelled together
    assert ">a</tspan> = <tspan" in chart


def test_histograms_beside_each_other_share_one_scale():
    bins = [0, 50, 100, 150]
    one = svg.histogram([10, 0, 0], bins, "one", "#000", y_max=0.5, cap=120)
    two = svg.histogram([1, 1, 2], bins, "two", "#000", y_max=0.5)
    ticks = [re.findall(r'class="tick"[^>]*text-anchor="end">([^<]+)<', c) for c in (one, two)]
    assert ticks[0][:5] == ticks[1][:5] == ["0%", "12%", "25%", "38%", "50%"]
    assert "cap 120" in one
    heights = [float(h) for h in re.findall(r'class="bar"[^>]*height="([\d.]+)"', one)]
    assert heights[0] == pytest.approx(svg.HEIGHT - svg.MARGIN_TOP - svg.MARGIN_BOTTOM)


def test_media_types_get_short_chart_labels():
    assert media_label("application/vnd.openxmlformats-officedocument.wordprocessingml"
                       ".document") == "docx"
    assert media_label("text/plain") == "txt" and media_label("text/x-weird") == "x-weird"
