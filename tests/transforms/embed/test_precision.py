"""--embedding-precision auto: the CPU check, the accuracy guard and its cache."""

from __future__ import annotations

import numpy as np
import pytest

from ragbeam.transforms.embed import precision
from ragbeam.transforms.embed.model import EmbeddingOptions, encode_texts, load_sentence_model
from ragbeam.transforms.embed.precision import (
    MIN_COSINE,
    choose_precision,
    cpu_bf16_features,
    min_cosine,
    probe_texts,
)


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGBEAM_CACHE_DIR", str(tmp_path / "ragbeam"))
    return tmp_path


def test_cpu_features_from_cpuinfo_flags():
    x86 = "processor\t: 0\nflags\t\t: fpu sse2 avx512f avx512_bf16 amx_bf16 amx_tile\n"
    arm = "processor\t: 0\nFeatures\t: fp asimd bf16 i8mm\n"
    old = "processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f\n"
    assert cpu_bf16_features(x86) == ("avx512_bf16", "amx_bf16")
    assert cpu_bf16_features(arm) == ("bf16",)
    assert cpu_bf16_features(old) == ()


def test_no_native_bf16_means_fp32_without_measuring(cache_home, monkeypatch):
    monkeypatch.setattr(precision, "cpu_bf16_features", lambda: ())
    calls = []
    choice = choose_precision("model-a", lambda texts: calls.append(texts) or 1.0)
    assert choice.precision == "fp32" and "no native bf16" in choice.reason and not calls


def test_guard_decides_and_its_verdict_is_cached(cache_home, monkeypatch):
    monkeypatch.setattr(precision, "cpu_bf16_features", lambda: ("amx_bf16",))
    calls = []

    def measure(cosine):
        return lambda texts: calls.append(len(texts)) or cosine

    assert choose_precision("model-a", measure(0.99991)).precision == "bf16"
    assert choose_precision("model-a", measure(0.5)).precision == "bf16"  # cached verdict
    drifting = choose_precision("model-b", measure(MIN_COSINE - 1e-4))
    assert drifting.precision == "fp32" and "drifts" in drifting.reason
    assert calls == [len(probe_texts())] * 2  # once per model, not once per call
    assert (cache_home / "ragbeam" / "precision-guard.json").exists()


def test_a_failing_probe_falls_back_to_fp32(cache_home, monkeypatch):
    monkeypatch.setattr(precision, "cpu_bf16_features", lambda: ("avx512_bf16",))

    def broken(texts):
        raise RuntimeError("bf16 not compiled in")

    choice = choose_precision("model-c", broken)
    assert choice.precision == "fp32" and "probe failed" in choice.reason


def test_minilm_bf16_passes_the_guard_on_the_shipped_probes():
    """The real model: bf16 (native or emulated) stays within the guard of fp32."""
    texts = probe_texts()
    assert len(texts) >= 30 and any("本公司" in t for t in texts)
    fp32 = encode_texts(load_sentence_model(EmbeddingOptions(precision="fp32")), texts)
    bf16 = encode_texts(load_sentence_model(EmbeddingOptions(precision="bf16")), texts)
    assert min_cosine(fp32, bf16) >= MIN_COSINE
    assert min_cosine(fp32, fp32) == pytest.approx(1.0, abs=1e-5)
    assert min_cosine(fp32, np.roll(fp32, 1, axis=0)) < 0.9
