"""The onnx / openvino backends: the model exported once to ONNX, cached, run elsewhere.

The tests that run a backend need its extra (``pip install -e '.[onnx]'`` or
``'.[openvino]'``) and are skipped without it; the cache and error-message
tests run everywhere.
"""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

from ragbeam.transforms.embed import exported
from ragbeam.transforms.embed.model import (
    RUNTIME_PACKAGES,
    EmbeddingOptions,
    encode_texts,
    load_sentence_model,
)

TEXTS = [
    "Curling stones glide over pebbled ice.",
    "递归分块按分隔符优先级逐级降级。",
    "Short.",
    "A compiler parses source code into a syntax tree, checks the types of every "
    "expression, and lowers the tree step by step into machine instructions that the "
    "processor can run, keeping debug information for each line along the way.",
    "The stone slides.",
    "Rain.",
    "Tables keep their header row in every chunk so that a retrieved piece still says "
    "what its columns mean.",
]


def missing(backend: str) -> list[str]:
    return [name for name in RUNTIME_PACKAGES[backend] if importlib.util.find_spec(name) is None]


def needs(backend: str):
    absent = missing(backend)
    return pytest.mark.skipif(
        bool(absent), reason=f"backend {backend!r} needs {', '.join(absent)}: "
                             f"pip install -e '.[{backend}]'")


@pytest.fixture(scope="module")
def torch_model():
    return load_sentence_model(EmbeddingOptions(precision="fp32", backend="torch"))


@pytest.fixture
def cache(tmp_path, monkeypatch) -> pathlib.Path:
    monkeypatch.setenv("RAGBEAM_CACHE_DIR", str(tmp_path))
    return tmp_path / "embed"


@pytest.mark.parametrize("backend", [
    pytest.param("onnx", marks=needs("onnx")),
    pytest.param("openvino", marks=needs("openvino")),
])
def test_backend_agrees_with_torch_fp32_at_every_batch_shape(backend, torch_model, cache):
    reference = encode_texts(torch_model, TEXTS)
    model = load_sentence_model(EmbeddingOptions(backend=backend, precision="fp32"))
    # Batch sizes 1, 3 and all: other batch and padding shapes than at export time.
    for batch_size in (1, 3, len(TEXTS)):
        vectors = encode_texts(model, TEXTS, batch_size)
        assert vectors.shape == reference.shape and vectors.dtype == np.float32
        assert np.min(np.sum(vectors * reference, axis=1)) > 0.9999, batch_size
    assert encode_texts(model, []).shape == (0, reference.shape[1])
    # Exported once, into one folder keyed by the model, with nothing left beside it.
    assert [p.name for p in cache.iterdir()] == [exported.export_key(torch_model)]


@needs("openvino")
def test_openvino_bf16_stays_close_to_fp32(torch_model, cache):
    reference = encode_texts(torch_model, TEXTS)
    vectors = encode_texts(load_sentence_model(
        EmbeddingOptions(backend="openvino", precision="bf16")), TEXTS)
    assert np.min(np.sum(vectors * reference, axis=1)) > 0.999


@needs("onnx")
def test_second_load_reuses_the_cached_export(torch_model, cache, monkeypatch):
    load_sentence_model(EmbeddingOptions(backend="onnx"))

    def no_second_export(*_args):
        raise AssertionError("exported again")

    monkeypatch.setattr(exported, "export_onnx", no_second_export)
    model = load_sentence_model(EmbeddingOptions(backend="onnx"))
    assert encode_texts(model, TEXTS[:2]).shape == (2, 384)


def test_a_worker_that_loses_the_export_race_uses_the_winners_file(torch_model, cache,
                                                                   monkeypatch):
    key = exported.export_key(torch_model)

    def export_while_another_worker_finishes_first(_model, path):
        path.write_bytes(b"mine")
        winner = cache / key
        winner.mkdir()
        (winner / "model.onnx").write_bytes(b"winner")

    monkeypatch.setattr(exported, "export_onnx", export_while_another_worker_finishes_first)
    path = exported.exported_onnx_path(torch_model)
    assert path == cache / key / "model.onnx" and path.read_bytes() == b"winner"
    assert [p.name for p in cache.iterdir()] == [key]  # the loser's scratch folder is gone


def test_a_failed_export_leaves_nothing_behind(torch_model, cache, monkeypatch):
    def broken_export(_model, path):
        path.write_bytes(b"half")
        raise RuntimeError("exporter broke")

    monkeypatch.setattr(exported, "export_onnx", broken_export)
    with pytest.raises(RuntimeError, match="exporter broke"):
        exported.exported_onnx_path(torch_model)
    assert list(cache.iterdir()) == []


def test_export_key_follows_the_weights(torch_model):
    import torch

    key = exported.export_key(torch_model)
    assert exported.export_key(torch_model) == key
    weight = next(iter(torch_model.parameters()))
    with torch.no_grad():
        weight[0, 0] += 1.0
        try:
            assert exported.export_key(torch_model) != key
        finally:
            weight[0, 0] -= 1.0


@pytest.mark.parametrize("backend", ["onnx", "openvino"])
def test_a_missing_runtime_says_which_extra_to_install(backend, monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == RUNTIME_PACKAGES[backend][0]
                        else real_find_spec(name, *a))
    with pytest.raises(RuntimeError, match=rf"pip install 'ragbeam\[{backend}\]'"):
        load_sentence_model(EmbeddingOptions(backend=backend))


def test_bf16_is_for_torch_and_openvino_only():
    EmbeddingOptions(backend="openvino", precision="bf16")
    with pytest.raises(ValueError, match="torch or openvino"):
        EmbeddingOptions(backend="onnx", precision="bf16")
