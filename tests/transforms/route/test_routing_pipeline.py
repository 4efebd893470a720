"""A real DirectRunner run: each file routed by the default table, a config file
and content, chunked by its strategy, read back from Parquet."""

from __future__ import annotations

import textwrap

import pytest

from ragbeam.transforms.embed.text import dense_text_for

from helpers import read_table, run_cli

PROSE = "The handbook explains every step. Each step has one purpose. " * 30
HTML = ("<html><head><title>Guide</title></head><body>"
        + "".join(f"<h1>Part {i}</h1><h2>Install</h2><p>{PROSE}</p><h2>Use</h2><p>{PROSE}</p>"
                  for i in range(2))
        + "</body></html>")
FAQ = "\n\n".join(f"Q: How do I do thing {i}?\nA: You do it with care. Then check it."
                  for i in range(6))
LOG = "\n".join(
    f"2024-01-02 03:04:{i:02d},100 INFO step {i} done" if i % 7 else
    f"2024-01-02 03:04:{i:02d},100 ERROR failed\njava.io.IOException: reset\n\tat A.b(A.java:{i})"
    for i in range(60))
CODE = "\n\n".join(f"def function_{i}(x):\n    '''Return x times {i}.'''\n    return x * {i}\n"
                   for i in range(20))
CSV = "city,country,population\n" + "\n".join(f"City{i},Land{i % 5},{i * 1000}"
                                              for i in range(80))
CONFIG = """\
routing:
  rules:
    - name: handbooks
      strategy: parent_child
      paths: ["*/handbook/*"]
      params: {parent_size: 900}
"""


@pytest.fixture(scope="module")
def routed_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("routing")
    inputs = root / "in"
    (inputs / "handbook").mkdir(parents=True)
    for name, text in {"guide.html": HTML, "faq.md": FAQ, "app.log": LOG, "tool.py": CODE,
                       "cities.csv": CSV, "handbook/manual.txt": PROSE * 3}.items():
        (inputs / name).write_text(text, encoding="utf-8")
    config = root / "ragbeam.yaml"
    config.write_text(textwrap.dedent(CONFIG))
    out = root / "out"
    run_cli(["--input", str(inputs), "--output", str(out), "--config", str(config),
             "--chunk-size", "300", "--size-unit", "chars", "--embed-text"])
    documents = {r["source_uri"].split("/in/")[1]: r
                 for r in read_table(out, "documents").to_pylist()}
    chunks = read_table(out, "chunks").to_pylist()
    return documents, chunks


def test_every_file_gets_its_strategy_and_reason(routed_run):
    documents, _ = routed_run
    strategies = {name: doc["strategy"] for name, doc in documents.items()}
    assert strategies == {"guide.html": "structure", "faq.md": "faq", "app.log": "log",
                          "tool.py": "code", "cities.csv": "table",
                          "handbook/manual.txt": "parent_child"}
    reasons = {name: dict(doc["metadata"])["route_reason"] for name, doc in documents.items()}
    assert reasons["handbook/manual.txt"] == "rule 'handbooks': path matches */handbook/*"
    assert reasons["app.log"] == "rule 'logs': extension .log"
    assert "question-answer pairs" in reasons["faq.md"]


def test_chunks_are_exact_capped_and_carry_embed_text(routed_run):
    documents, chunks = routed_run
    texts = {doc["doc_id"]: doc["text"] for doc in documents.values()}
    for chunk in chunks:
        assert texts[chunk["doc_id"]][chunk["char_start"]:chunk["char_end"]] == chunk["text"]
        cap = 900 if chunk["level"] == "parent" else 300
        assert chunk["char_count"] <= cap
        assert chunk["embed_text"] == dense_text_for(chunk["context"], chunk["text"],
                                                     chunk["heading_path"])
        assert chunk["embed_text"].endswith(chunk["text"])


def test_strategy_specific_fields_survive_the_writer(routed_run):
    _, chunks = routed_run
    by_strategy: dict[str, list[dict]] = {}
    for chunk in chunks:
        by_strategy.setdefault(chunk["strategy"], []).append(chunk)
    ids = {c["chunk_id"]: c for c in chunks}
    children = [c for c in by_strategy["parent_child"] if c["level"] == "child"]
    assert children and all(ids[c["parent_id"]]["level"] == "parent" for c in children)
    assert all(dict(c["metadata"]).get("first_timestamp") for c in by_strategy["log"])
    assert any(c["heading_path"][:1] == ["Part 1"] for c in by_strategy["structure"])
    later_groups = [c for c in by_strategy["table"] if c["chunk_index"] > 0]
    assert later_groups
    assert all(c["context"].endswith("city | country | population")
               or c["context"].endswith("city,country,population") for c in later_groups)
    assert all("def function_" in c["text"] and "return x" in c["text"]
               for c in by_strategy["code"])
