"""The embedding column users read: its type and metadata read back with pyarrow,
queried with DuckDB's array functions, chunks over the model's window counted and
avoided with ``--size-unit model``, vectors of the chunk text, and the indexed text
without repeated headings."""

from __future__ import annotations

import json
import logging
import pathlib

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragbeam.schemas.chunks import EMBEDDING_METADATA_KEY, embedding_metadata_of
from ragbeam.transforms.embed.model import (
    DEFAULT_MODEL,
    EmbeddingOptions,
    load_model_tokenizer,
    resolve_precision,
)
from ragbeam.transforms.embed.text import chunk_sparse_text

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import copy_samples, read_table, run_cli

# English with headings, and Chinese: 1,000 characters of Chinese are ~1,000 model
# tokens, four times MiniLM's 256-token window.
FILES = ("handbook.md", "faq.txt", "站点简介.txt")
WINDOW_WARNING = "longer than the model's 256-token window"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> pathlib.Path:
    folder = copy_samples(tmp_path_factory.mktemp("embedding_inputs"), FILES)
    zh = (SAMPLES / "站点简介.txt").read_text(encoding="utf-8")
    (folder / "站点简介.txt").write_text(zh * 4, encoding="utf-8")
    return folder


def _run(corpus: pathlib.Path, out: pathlib.Path, *extra: str) -> dict:
    return run_cli(["--input", str(corpus), "--output", str(out), "--embed-chunks",
                    "--extract-timeout", TEST_EXTRACT_TIMEOUT, *extra])


@pytest.fixture(scope="module")
def default_run(corpus, tmp_path_factory) -> tuple[pathlib.Path, dict, str]:
    out = tmp_path_factory.mktemp("embedding_default") / "out"
    # 1,000-character chunks (ragbeam's default before 0.2): some exceed the model's window.
    logger_output = _capture_ragbeam_warnings(
        lambda: _run(corpus, out, "--size-unit", "chars", "--chunk-size", "1000"))
    return out, json.loads((out / "run.json").read_text()), logger_output


def _capture_ragbeam_warnings(action) -> str:
    records: list[str] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: records.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("ragbeam")
    logger.addHandler(handler)
    try:
        action()
    finally:
        logger.removeHandler(handler)
    return "\n".join(records)


def test_the_column_is_a_typed_vector_with_its_provenance(default_run):
    out, summary, _ = default_run
    schema = pq.read_schema(next((out / "chunks").glob("*.parquet")))
    field = schema.field("embedding")
    assert field.type == pa.list_(pa.float32(), 384) and not field.nullable
    record = embedding_metadata_of(schema)
    assert record == {k: v for k, v in summary["embedding"].items()
                      if k not in ("chunks_over_window", "texts_encoded")}
    assert record["model"].startswith(DEFAULT_MODEL) and record["revision"]
    assert (record["dimension"], record["normalized"], record["precision"]) == (
        384, True, resolve_precision(EmbeddingOptions()).precision)
    chunks = read_table(out, "chunks")
    assert chunks.column("embedding").null_count == 0


def test_duckdb_array_functions_work_on_the_column(default_run):
    out, _, _ = default_run
    chunks = read_table(out, "chunks").select(["chunk_id", "text", "embedding"])
    con = duckdb.connect()
    # Over Arrow the column is FLOAT[384]: no cast.
    assert con.sql("select typeof(embedding) from chunks limit 1").fetchall() == [("FLOAT[384]",)]
    nearest = con.sql("""
        select q.chunk_id, c.chunk_id,
               array_cosine_similarity(c.embedding, q.embedding) as similarity
        from chunks q, chunks c
        qualify row_number() over (partition by q.chunk_id order by similarity desc) = 1
    """).fetchall()
    # Each chunk is its own nearest neighbour (or one with the same text: a repeated line).
    text_of = {r["chunk_id"]: r["text"] for r in chunks.to_pylist()}
    assert nearest and all((q == c or text_of[q] == text_of[c])
                           and s == pytest.approx(1.0, abs=1e-5) for q, c, s in nearest)
    # Parquet itself has no fixed-size list: DuckDB's own reader sees FLOAT[]; the
    # dimension for the cast is in the file's metadata.
    files = str(out / "chunks" / "*.parquet")
    ((record,),) = con.sql(f"select decode(value) from parquet_kv_metadata('{files}') "
                           f"where key = '{EMBEDDING_METADATA_KEY}' limit 1").fetchall()
    dimension = json.loads(record)["dimension"]
    norms = con.sql(f"select array_inner_product(embedding::FLOAT[{dimension}], "
                    f"embedding::FLOAT[{dimension}]) from read_parquet('{files}')").fetchall()
    assert norms and all(n == pytest.approx(1.0, abs=1e-4) for (n,) in norms)


def test_chunks_over_the_window_are_counted_and_warned_about_once(default_run):
    out, summary, warnings = default_run
    tokenizer = load_model_tokenizer(DEFAULT_MODEL)
    rows = read_table(out, "chunks").to_pylist()
    from ragbeam.transforms.embed.text import chunk_embedding_text

    lengths = tokenizer.count([chunk_embedding_text(r) for r in rows], special_tokens=True)
    over = sum(n > 256 for n in lengths)
    assert over > 0 and summary["embedding"]["chunks_over_window"] == over
    assert warnings.count(WINDOW_WARNING) == 1 and f"{over} chunks" in warnings


def test_size_unit_model_keeps_every_chunk_in_the_window(corpus, tmp_path):
    out = tmp_path / "out"
    warnings = _capture_ragbeam_warnings(
        lambda: _run(corpus, out, "--size-unit", "model", "--chunk-size", "200"))
    summary = json.loads((out / "run.json").read_text())
    assert summary["embedding"]["chunks_over_window"] == 0 and WINDOW_WARNING not in warnings
    assert summary["config"]["chunk"]["unit"] == "model"
    tokenizer = load_model_tokenizer(DEFAULT_MODEL)
    rows = read_table(out, "chunks").to_pylist()
    assert max(tokenizer.count([r["text"] for r in rows])) <= 200


def test_indexed_text_never_repeats_the_heading_its_text_starts_with(corpus, tmp_path):
    out = tmp_path / "out"
    run_cli(["--input", str(corpus / "handbook.md"), "--output", str(out),
             "--strategy", "structure", "--embed-text", "--chunk-size", "400",
             "--extract-timeout", TEST_EXTRACT_TIMEOUT])
    rows = read_table(out, "chunks").to_pylist()
    starts_with_heading = [r for r in rows if r["heading_path"]
                           and r["text"].splitlines()[0].strip() == r["heading_path"][-1]]
    assert starts_with_heading, "structure chunks start at their heading"
    for r in rows:
        for indexed in (r["embed_text"], chunk_sparse_text(r)):  # dense, and BM25's
            header = indexed[:-len(r["text"])]
            assert indexed.endswith(r["text"])
            first_line = r["text"].splitlines()[0].strip()
            assert first_line not in header.split(" > ") and first_line not in header.splitlines()


def test_each_vector_embeds_the_label_and_nearest_heading_not_the_whole_path(default_run):
    """The dense model sees the document label, the nearest heading and the text
    (``transforms/embed/text.py``: measured on the retrieval benchmark); run.json says
    so."""
    import numpy as np

    from ragbeam.evaluate.retrieval import EmbeddingCache
    from ragbeam.transforms.embed.text import DENSE_TEXT, chunk_embedding_text, embed_text_for

    out, summary, _ = default_run
    assert summary["embedding"]["text"] == DENSE_TEXT
    rows = [r for r in read_table(out, "chunks").to_pylist()
            if chunk_embedding_text(r) != embed_text_for(r["context"] or "", r["text"])][:20]
    assert rows, "the handbook's deeper sections have a path longer than one heading"
    cache = EmbeddingCache()
    stored = np.array([r["embedding"] for r in rows], dtype=np.float32)
    of_short = (stored * cache.encode([chunk_embedding_text(r) for r in rows])).sum(axis=1)
    of_path = (stored * cache.encode([embed_text_for(r["context"], r["text"])
                                      for r in rows])).sum(axis=1)
    assert (of_short > 0.98).all() and (of_short > of_path).all()
