from __future__ import annotations

import textwrap

import apache_beam as beam
import pytest
from apache_beam.metrics.metric import MetricsFilter

from ragbeam.pipeline.cli import main
from ragbeam.pipeline.config import MatchOptions, RunConfig
from ragbeam.pipeline.settings import load_settings, run_config
from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.dofn import ChunkDocument
from ragbeam.transforms.route.dofn import RouteDocument
from ragbeam.transforms.route.router import RouteOptions, check_route_options, route_document
from ragbeam.transforms.route.table import (
    RoutingConfigError,
    default_table,
    table_from_mapping,
)
from ragbeam.transforms.types import BlockKind, Document, SourceFile, TextSpan


def make_doc(text: str, uri: str = "/data/notes.txt", media_type: str = "text/plain",
             spans: tuple[TextSpan, ...] = ()) -> Document:
    return Document(SourceFile(uri, "d", len(text)), "h", media_type, text, spans)


PROSE = "The station was built in 1985. It sits on the north shore of the lake. " * 20
FAQ = "\n\n".join(f"Q: Question number {i}?\nA: The answer to it is short." for i in range(5))
LOG = "\n".join(f"2024-01-02 03:04:{i:02d},100 INFO step {i} done" for i in range(20))


def headed(n: int) -> Document:
    parts, spans, cursor = [], [], 0
    for i in range(n):
        for kind, text in ((BlockKind.HEADING, f"Section {i}"), (BlockKind.PARAGRAPH, PROSE)):
            if parts:
                parts.append("\n\n")
                cursor += 2
            spans.append(TextSpan(cursor, cursor + len(text), kind, level=1))
            parts.append(text)
            cursor += len(text)
    return make_doc("".join(parts), "/data/guide.html", "text/html", tuple(spans))


@pytest.mark.parametrize(("doc", "strategy", "reason"), [
    (make_doc("def f():\n    return 1\n", "/src/tool.py", "text/x-python"), "code",
     "rule 'code': media type text/x-python"),
    (make_doc("a,b\n1,2\n", "/data/t.csv"), "table", "rule 'tabular': extension .csv"),
    (make_doc(LOG, "/var/log/app.log"), "log", "rule 'logs': extension .log"),
    (make_doc(FAQ, "/docs/faq.md"), "faq", "content: 5 question-answer pairs"),
    (make_doc(LOG, "/data/output.txt"), "log", "content: 100% of lines start with a timestamp"),
    (headed(3), "structure", "content: 3 headings"),
    (make_doc(PROSE), "recursive", "content: no Q/A pairs, timestamps, tables or headings"),
    (make_doc("scanned text run together without any stops " * 60), "sliding",
     "OCR-like"),
])
def test_default_table_routes_by_type_then_content(doc, strategy, reason):
    decision = route_document(doc, RouteOptions())
    assert decision.strategy == strategy
    assert reason in decision.reason


def test_tables_holding_most_of_the_text_route_to_table():
    text = "Name | Age\n" + "\n".join(f"P{i} | {i}" for i in range(50))
    doc = make_doc(text, spans=(TextSpan(0, len(text), BlockKind.TABLE),))
    assert route_document(doc, RouteOptions()).strategy == "table"


def test_long_prose_goes_to_semantic_only_when_enabled_and_registered():
    long_prose = make_doc(PROSE * 20)
    default = route_document(long_prose, RouteOptions())
    assert default.strategy == "recursive" and "semantic not enabled" in default.reason
    unregistered = table_from_mapping({"detection": {"long_prose": {
        "enabled": True, "strategy": "no_such_strategy"}}}, default_table())
    decision = route_document(long_prose, RouteOptions(table=unregistered))
    assert decision.strategy == "recursive" and "not registered" in decision.reason
    enabled = table_from_mapping({"detection": {"long_prose": {
        "enabled": True, "strategy": "sliding"}}}, default_table())
    decision = route_document(long_prose, RouteOptions(table=enabled))
    assert decision.strategy == "sliding" and decision.basis == "content:long_prose"


def test_forced_strategy_wins_over_every_rule():
    doc = make_doc(LOG, "/var/log/app.log")
    decision = route_document(doc, RouteOptions(forced_strategy="fixed"))
    assert (decision.strategy, decision.reason, decision.basis) == (
        "fixed", "forced by --strategy", "forced")


def test_config_file_overrides_rules_params_and_detection(tmp_path):
    config = tmp_path / "ragbeam.yaml"
    config.write_text(textwrap.dedent("""\
        routing:
          rules:
            - name: handbooks
              strategy: parent_child
              paths: ["*/handbook/*"]
              params: {parent_size: 3000}
            - name: everything else
              strategy: auto
              paths: ["*"]
          strategies:
            parent_child: {size: 300}
            sliding: {overlap_ratio: 0.5}
          detection:
            structure_min_headings: 10
        """))
    # Through the one config loader ``ragbeam run --config`` uses.
    table = run_config(load_settings({"input": ["x"], "output": "o"}, str(config))).route.table
    handbook = route_document(make_doc(PROSE, "/x/handbook/a.pdf"), RouteOptions(table=table))
    assert handbook.strategy == "parent_child"
    assert handbook.params == {"size": 300, "parent_size": 3000}
    assert handbook.reason == "rule 'handbooks': path matches */handbook/*"
    # Three headings no longer make a document "structured".
    assert route_document(headed(3), RouteOptions(table=table)).strategy == "recursive"
    # Untouched keys keep their defaults.
    assert table.detection.faq_min_pairs == default_table().detection.faq_min_pairs
    check_route_options(RouteOptions(table=table), ChunkOptions())


@pytest.mark.parametrize(("routing", "message"), [
    ({"rulez": []}, r"^routing\.rulez: unknown key"),
    ({"rules": [{"name": "x"}]}, r"^routing\.rules\[0\]\.strategy: required"),
    ({"rules": [{"strategy": "auto", "paths": ["*"], "params": {"size": 3}}]},
     r"^routing\.rules\[0\]\.params: .*takes no params"),
    ({"rules": "code"}, r"^routing\.rules: .*valid list"),
    ({"rules": [{"strategy": "code", "extensions": 3}]}, r"^routing\.rules\[0\]\.extensions"),
    ({"detection": {"faq_min_pairs": "many"}}, r"^routing\.detection\.faq_min_pairs"),
    # Strings are not booleans or numbers: "false" must not switch a feature on.
    ({"detection": {"long_prose": {"enabled": "false"}}},
     r"^routing\.detection\.long_prose\.enabled: .*valid boolean"),
    ({"detection": {"long_prose": {"min_chars": "700"}}},
     r"^routing\.detection\.long_prose\.min_chars: .*valid integer"),
    ({"rules": [{"strategy": "fixed", "paths": ["*"], "params": {"size": [1]}}]},
     r"^routing\.rules\[0\]\.params\.size"),
])
def test_malformed_routing_tables_are_rejected(routing, message):
    with pytest.raises(RoutingConfigError, match=message):
        table_from_mapping(routing, default_table())


@pytest.mark.parametrize(("routing", "message"), [
    ({"rules": [{"strategy": "semantik", "paths": ["*"]}]}, "unknown chunking strategy"),
    ({"strategies": {"table": {"header_row": 2}}}, "no parameter"),
    ({"rules": [{"strategy": "fixed", "paths": ["*"], "params": {"overlap": 5000}}]},
     r"routing\.rules\[0\].*overlap"),
    ({"rules": [{"strategy": "fixed", "paths": ["*"], "params": {"size": "200"}}]},
     r"routing\.rules\[0\].*params\.size: expected an integer"),
])
def test_unusable_strategies_fail_before_the_run(routing, message):
    table = table_from_mapping(routing, default_table())
    with pytest.raises(ValueError, match=message):
        check_route_options(RouteOptions(table=table), ChunkOptions())


def test_cli_reports_a_bad_config_as_a_usage_error(tmp_path, capsys):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("hello")
    config = tmp_path / "bad.yaml"
    config.write_text("routing:\n  rules:\n    - strategy: nope\n      paths: ['*']\n")
    code = main(["run", "--input", str(tmp_path / "in"), "--output", str(tmp_path / "out"),
                 "--config", str(config)])
    assert code == 2
    assert "unknown chunking strategy 'nope'" in capsys.readouterr().err


def test_routing_table_is_part_of_the_config_hash():
    base = RunConfig(match=MatchOptions(inputs=("x",)), output="o")
    changed = RunConfig(match=MatchOptions(inputs=("x",)), output="o", route=RouteOptions(
        table=table_from_mapping({"strategies": {"sliding": {"overlap_ratio": 0.5}}},
                                 default_table())))
    assert base.config_hash != changed.config_hash
    assert base.config_hash == RunConfig(match=MatchOptions(inputs=("x",)), output="o").config_hash


def test_route_and_chunk_stages_count_per_strategy_as_beam_metrics():
    docs = [make_doc(LOG, "/var/log/a.log"), make_doc(FAQ, "/d/faq.md"), make_doc(PROSE)]
    pipeline = beam.Pipeline(runner="DirectRunner")
    routed = (pipeline | beam.Create(docs) | beam.ParDo(RouteDocument(RouteOptions()))
              .with_outputs("failures", main="ok"))
    _ = routed.ok | beam.ParDo(ChunkDocument(
        ChunkOptions(unit="chars", size=200), "cfg")).with_outputs(
        "failures", "documents", main="chunks")
    result = pipeline.run()
    result.wait_until_finish()
    counters = {(m.key.metric.namespace, m.key.metric.name): m.committed
                for m in result.metrics().query(MetricsFilter())["counters"]}
    assert counters[("ragbeam.route", "log")] == 1
    assert counters[("ragbeam.route", "faq")] == 1
    assert counters[("ragbeam.route", "recursive")] == 1
    assert counters[("ragbeam.route_basis", "rule:logs")] == 1
    assert counters[("ragbeam.route_basis", "content:qa_pairs")] == 1
    assert counters[("ragbeam.chunks", "faq")] == 5  # one chunk per question-answer pair
    assert counters[("ragbeam.chunks", "log")] >= 2



def test_config_rules_go_before_the_defaults_unless_defaults_are_dropped():
    extra = {"rules": [{"name": "notes", "strategy": "fixed", "extensions": [".txt"]}]}
    table = table_from_mapping(extra, default_table())
    assert [r.name for r in table.rules] == ["notes", "logs", "code", "tabular"]
    log = make_doc(LOG, "/var/log/app.log")
    assert route_document(log, RouteOptions(table=table)).strategy == "log"
    only = table_from_mapping({**extra, "default_rules": False}, default_table())
    assert [r.name for r in only.rules] == ["notes"]
    assert route_document(log, RouteOptions(table=only)).strategy == "log"  # by content now
    assert route_document(log, RouteOptions(table=only)).basis == "content:timestamps"
