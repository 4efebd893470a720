"""``ragbeam compare`` / ``eval`` / ``viz`` end to end: real pipeline runs over samples/."""

from __future__ import annotations

import json
import pathlib

import pytest

from ragbeam.cli import main
from ragbeam.evaluate.compare import format_compare
from ragbeam.evaluate.run_data import load_run

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_compare_runs_each_strategy_and_writes_json_and_report(samples_compare):
    compare = json.loads((samples_compare / "compare.json").read_text())
    assert list(compare["strategies"]) == ["recursive", "fixed", "parent_child"]
    assert compare["retrievers"] == ["bm25", "dense"] and compare["budget"] == 600
    for name, entry in compare["strategies"].items():
        run = load_run(entry["output"])
        # Each run really used that strategy for every document, everything else equal.
        assert {c.strategy for c in run.chunks} == {name}
        assert entry["run"]["files_matched"] == compare["strategies"]["recursive"]["run"][
            "files_matched"]
        for retriever in ("bm25", "dense"):
            r = entry["eval"]["retrieval"][retriever]
            assert r["questions"] == 4 and 0 <= r["hits"] <= 4
            assert set(r["recall_at_budget"]) >= {"200", "600", "2000"}
            # More budget never loses a hit: contexts grow as prefixes of one ranking.
            curve = [r["recall_at_budget"][b] for b in sorted(r["recall_at_budget"], key=int)]
            assert curve == sorted(curve)
            assert r["mean_context_tokens"] <= 600
    figures = {n: e["eval"]["figures"]["by_strategy"][n]
               for n, e in compare["strategies"].items()}
    # Fixed windows end mid-sentence far more often than the separator ladder.
    assert figures["fixed"]["mid_sentence_break_rate"] > figures["recursive"][
        "mid_sentence_break_rate"]
    assert figures["parent_child"]["parents"] > 0 and figures["recursive"]["parents"] == 0
    html = (samples_compare / "report.html").read_text()
    assert html.count('class="chart histogram"') == 3 and "http" not in html.split("<body>")[0]
    # The printed side-by-side table: a header plus one row per strategy, then the
    # recommendation, one line read off these runs.
    table = format_compare(compare).splitlines()
    assert "bm25 hits" in table[1] and "dense hits" in table[1]
    assert [line.split()[0] for line in table[3:6]] == ["recursive", "fixed", "parent_child"]
    assert table[6:] == ["recommendation: " + compare["recommendation"]]
    assert compare["recommendation"].split(":")[0] in compare["strategies"]
    assert "600 tokens" in compare["recommendation"]
    # Examples side by side: each strategy's chunk for the same question and passage.
    kinds = [e["kind"] for e in compare["examples"]]
    assert kinds == ["question", "question", "passage"]
    for example in compare["examples"]:
        assert list(example["by_strategy"]) == list(compare["strategies"])
        for name, shown in example["by_strategy"].items():
            run = load_run(compare["strategies"][name]["output"])
            chunk = next(c for c in run.chunks if c.chunk_id == shown["chunk"]["chunk_id"])
            assert shown["chunk"]["text"] == chunk.text or "characters" in shown["chunk"]["text"]


def test_parent_child_context_is_made_of_parents(samples_compare):
    compare = json.loads((samples_compare / "compare.json").read_text())
    run = load_run(compare["strategies"]["parent_child"]["output"])
    parents = {c.chunk_id: c for c in run.chunks if c.level == "parent"}
    children = [c for c in run.chunks if c.level == "child"]
    assert children and all(c.parent_id in parents for c in children)
    tokens = [p["context_tokens"] for p in
              compare["strategies"]["parent_child"]["eval"]["retrieval"]["bm25"]["per_question"]]
    parent_sizes = {p.token_count for p in parents.values()}
    # Every non-empty context is charged whole parents, not the children's tokens.
    for t in tokens:
        assert t == 0 or any(t >= s for s in parent_sizes)


def test_eval_reads_a_run_and_writes_eval_json(samples_compare, sample_questions, capsys):
    output = samples_compare / "recursive"
    assert main(["eval", "--output", str(output), "--questions", str(sample_questions)]) == 0
    printed = capsys.readouterr().out
    assert "mid-sent" in printed and "bm25" in printed
    result = json.loads((output / "eval.json").read_text())
    compare = json.loads((samples_compare / "compare.json").read_text())
    # The same run, questions and budget give the same figures through either command.
    assert result["retrieval"]["bm25"] == compare["strategies"]["recursive"]["eval"][
        "retrieval"]["bm25"]
    by_media = result["figures"]["by_strategy_media_type"]["recursive"]
    assert {"application/pdf", "text/html"} <= set(by_media)


def test_eval_without_questions_gives_label_free_figures_only(samples_compare):
    output = samples_compare / "fixed"
    assert main(["eval", "--output", str(output)]) == 0
    result = json.loads((output / "eval.json").read_text())
    assert "retrieval" not in result and result["figures"]["by_strategy"]["fixed"]["chunks"] > 0


def test_unknown_strategy_is_a_usage_error_before_any_run(tmp_path, capsys):
    code = main(["compare", "--input", str(REPO / "samples"), "--work", str(tmp_path / "w"),
                 "--strategies", "recursive,no_such_strategy"])
    assert code == 2
    err = capsys.readouterr().err
    assert "no_such_strategy" in err and "registered:" in err and "recursive" in err
    assert not (tmp_path / "w").exists()


@pytest.mark.parametrize("argv", [
    ["eval", "--output", "/nonexistent/run"],
    ["viz", "--output", "/nonexistent/run", "--doc", "x", "--html", "/tmp/x.html"],
])
def test_missing_run_is_a_usage_error(argv, capsys):
    assert main(argv) == 2
    assert "no finished run" in capsys.readouterr().err


def test_viz_picks_a_document_by_path_suffix(samples_compare, tmp_path):
    html = tmp_path / "handbook.html"
    output = samples_compare / "parent_child"
    assert main(["viz", "--output", str(output), "--doc", "handbook.md",
                 "--html", str(html)]) == 0
    children = [c for c in load_run(str(output)).chunks
                if c.source_uri.endswith("handbook.md") and c.level == "child"]
    assert html.read_text().count('class="cut"') == len(children)
    assert main(["viz", "--output", str(output), "--doc", "nope.md",
                 "--html", str(html)]) == 2
