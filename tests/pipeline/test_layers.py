"""Each layer keyed by its own inputs: real incremental runs, one per row of the
invalidation table in docs/incremental.md. What each run did is read from its
run.json (documents processed, texts the model embedded) and its tables read back."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from ragbeam.api import load_term_frequencies
from ragbeam.pipeline.config import DEFAULT_TEXT_VECTOR
from ragbeam.transforms.embed.term_table import ALL_CHUNKS_INDEX, count_terms, term_rows

from conftest import TEST_EXTRACT_TIMEOUT
from helpers import copy_samples, read_table, run_cli

# Texts a chunk's embedding costs: two with its text's own vector (the default).
TEXTS_PER_CHUNK = 2 if DEFAULT_TEXT_VECTOR else 1

FILES = ("handbook.md", "faq.txt", "corrupt.pdf")
BASE = ("--chunk-size", "200", "--size-unit", "chars", "--strategy", "recursive",
        "--extract-timeout", TEST_EXTRACT_TIMEOUT)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> pathlib.Path:
    return copy_samples(tmp_path_factory.mktemp("layers") / "corpus", FILES)


def _run(corpus: pathlib.Path, out: pathlib.Path, *extra: str,
         previous: pathlib.Path | None = None) -> dict:
    prev = ("--previous", str(previous)) if previous else ()
    return run_cli(["--input", str(corpus), "--output", str(out), *BASE, *extra, *prev])


def _chunks(out: pathlib.Path) -> dict[str, dict]:
    return {r["chunk_id"]: r for r in read_table(out, "chunks").to_pylist()}


def _statuses(out: pathlib.Path) -> dict[str, str]:
    return {pathlib.Path(d["source_uri"]).name: d["status"]
            for d in read_table(out, "documents").to_pylist()}


def _upserts(out: pathlib.Path) -> set[str]:
    changes = read_table(out, "changes").to_pylist()
    assert not [c for c in changes if c["op"] == "delete"]
    return {c["chunk_id"] for c in changes}


def _encoded(summary: dict) -> int:
    """Chunks the model embedded: texts encoded, two a chunk with the text's own vector
    (--text-vector, a run's default when it embeds)."""
    return (summary.get("embedding") or {}).get("texts_encoded", 0) // TEXTS_PER_CHUNK


def _carried(out: pathlib.Path, summary: dict) -> None:
    """Nothing extracted or chunked again: every document carried as it was."""
    assert summary["documents_processed"] == 0
    assert _statuses(out) == {"handbook.md": "unchanged", "faq.txt": "unchanged",
                              "corrupt.pdf": "error"}


def _without(rows: dict[str, dict], *columns: str) -> dict[str, dict]:
    return {i: {k: v for k, v in r.items() if k not in columns} for i, r in rows.items()}


@pytest.fixture(scope="module")
def plain(corpus, tmp_path_factory) -> pathlib.Path:
    out = tmp_path_factory.mktemp("plain") / "run"
    _run(corpus, out)
    return out


def test_sparse_switched_on_then_off_redoes_only_the_sparse_vectors(corpus, plain, tmp_path,
                                                                     capsys):
    capsys.readouterr()
    on = _run(corpus, tmp_path / "on", "--sparse", previous=plain)
    assert f"terms:     {tmp_path / 'on'}/terms/*.parquet" in capsys.readouterr().out
    _carried(tmp_path / "on", on)
    before, after = _chunks(plain), _chunks(tmp_path / "on")
    assert set(after) == set(before)  # chunk ids kept
    assert all(r["sparse"] and r["sparse"]["indices"] for r in after.values())
    assert _without(after, "sparse") == _without(before, "sparse")
    assert _upserts(tmp_path / "on") == set(after)  # a store gains the sparse vectors
    assert on["layer_work"] == {"dense": "none", "sparse": "redo"}
    # Exactly what a fresh run with --sparse writes, document frequencies too: counted
    # over every chunk, carried ones included.
    _run(corpus, tmp_path / "fresh", "--sparse")
    assert _chunks(tmp_path / "fresh") == after
    terms = read_table(tmp_path / "on", "terms").to_pylist()
    assert terms == read_table(tmp_path / "fresh", "terms").to_pylist()
    assert terms == term_rows(count_terms(after.values()))
    assert {"index": ALL_CHUNKS_INDEX, "chunks": len(after)} in terms

    capsys.readouterr()
    off = _run(corpus, tmp_path / "off", previous=tmp_path / "on")
    assert "terms:" not in capsys.readouterr().out  # said only where it holds something
    _carried(tmp_path / "off", off)
    assert _chunks(tmp_path / "off") == before
    assert _upserts(tmp_path / "off") == set(before)
    assert off["layer_work"] == {"dense": "none", "sparse": "drop"}
    assert read_table(tmp_path / "off", "terms").num_rows == 0
    with pytest.raises(ValueError, match="--sparse"):  # nothing to weigh a query by
        load_term_frequencies(tmp_path / "off")
    assert load_term_frequencies(tmp_path / "on").chunks == len(after)
    # The same options again: nothing to do at all.
    again = _run(corpus, tmp_path / "again", previous=tmp_path / "off")
    _carried(tmp_path / "again", again)
    assert _upserts(tmp_path / "again") == set()


def test_the_embedding_model_redoes_only_the_dense_vectors(corpus, plain, tmp_path):
    n = len(_chunks(plain))
    # Explicit backend and precision: no timed probe of the backends (what ``auto``
    # needs, once per model and machine; tests/transforms/embed/test_precision.py).
    embed = ("--embed-chunks", "--embedding-backend", "torch", "--embedding-precision", "fp32")
    first = _run(corpus, tmp_path / "embed", *embed, previous=plain)
    _carried(tmp_path / "embed", first)
    assert _encoded(first) == n and first["chunks_embedded"] == n
    vectors = _chunks(tmp_path / "embed")
    assert set(vectors) == set(_chunks(plain))
    assert _upserts(tmp_path / "embed") == set(vectors)
    # As a fresh run embeds them.
    _run(corpus, tmp_path / "fresh", *embed)
    fresh = _chunks(tmp_path / "fresh")
    assert _without(fresh, "embedding") == _without(vectors, "embedding")
    assert all(np.allclose(fresh[i]["embedding"], vectors[i]["embedding"], atol=1e-5)
               for i in fresh)

    # Other vectors (bf16): every chunk embedded again, nothing extracted, ids kept.
    other = _run(corpus, tmp_path / "bf16", "--embed-chunks", "--embedding-backend", "torch",
                 "--embedding-precision", "bf16", previous=tmp_path / "embed")
    _carried(tmp_path / "bf16", other)
    assert _encoded(other) == n and other["layer_work"]["dense"] == "redo"
    redone = _chunks(tmp_path / "bf16")
    assert set(redone) == set(vectors)
    # Both vectors of a chunk (the second: --text-vector, the default) are the model's.
    assert (_without(redone, "embedding", "text_embedding")
            == _without(vectors, "embedding", "text_embedding"))
    assert any(redone[i]["embedding"] != vectors[i]["embedding"] for i in redone)
    assert _upserts(tmp_path / "bf16") == set(redone)

    # Speed only (batch size): nothing embedded, nothing to upsert.
    batch = _run(corpus, tmp_path / "batch", "--embed-chunks", "--embedding-backend", "torch",
                 "--embedding-precision", "bf16", "--embedding-batch-size", "3",
                 previous=tmp_path / "bf16")
    _carried(tmp_path / "batch", batch)
    assert _encoded(batch) == 0 and _upserts(tmp_path / "batch") == set()
    assert _chunks(tmp_path / "batch") == redone

    # No vectors any more: dropped, nothing else.
    dropped = _run(corpus, tmp_path / "none", previous=tmp_path / "batch")
    _carried(tmp_path / "none", dropped)
    assert _chunks(tmp_path / "none") == _chunks(plain)
    assert _upserts(tmp_path / "none") == set(redone)


def test_an_edit_under_other_vectors_reuses_no_old_vector(corpus, tmp_path):
    _run(corpus, tmp_path / "fp32", "--embed-chunks", "--embedding-backend", "torch",
         "--embedding-precision", "fp32")
    edited = copy_samples(tmp_path / "edited", FILES)
    handbook = edited / "handbook.md"
    handbook.write_text(handbook.read_text(encoding="utf-8") + "\n\nOne more line.\n",
                        encoding="utf-8")
    summary = run_cli(["--input", str(edited), "--output", str(tmp_path / "bf16"), *BASE,
                       "--embed-chunks", "--embedding-backend", "torch",
                       "--embedding-precision", "bf16",
                       "--accept-foreign-previous", "--previous", str(tmp_path / "fp32")])
    before, after = _chunks(tmp_path / "fp32"), _chunks(tmp_path / "bf16")
    kept = [i for i, r in after.items() if i in before and r["source_uri"].endswith("handbook.md")]
    assert kept  # unchanged chunks of the edited document: same ids, not their fp32 vectors
    assert (summary.get("embeddings") or {}).get("reused", 0) == 0
    assert _encoded(summary) == len(after)
    assert all(after[i]["embedding"] != before[i]["embedding"] for i in kept)


@pytest.mark.parametrize(("option", "redone"), [
    (("--chunk-size", "300"), True),  # chunks: redone from the kept extraction
    (("--no-clean", "dehyphenate"), True),  # extraction
    (("--extract-timeout", "61"), False),  # how long it may take, not what it gives
])
def test_other_options_redo_the_layers_they_key(corpus, plain, tmp_path, option, redone):
    summary = run_cli(["--input", str(corpus), "--output", str(tmp_path / "out"), *BASE,
                       *option, "--previous", str(plain)])
    before, after = set(_chunks(plain)), set(_chunks(tmp_path / "out"))
    if redone:
        assert summary["documents_processed"] == 3  # the broken PDF is retried too
        assert not before & after
        # A chunking change chunks the two good documents again from the previous
        # run's text and spans (tests/pipeline/test_reuse_extraction.py); the broken
        # PDF, and everything under a new extraction key, is extracted again.
        reused = 2 if option[0] == "--chunk-size" else 0
        assert summary["extracted"]["reused"] == reused
        assert summary["extracted"]["ok"] + summary["extracted"]["failed"] == 3 - reused
    else:
        _carried(tmp_path / "out", summary)
        assert before == after
