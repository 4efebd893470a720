"""``--embedding-backend auto`` / ``--embedding-precision auto``: the fastest accurate
way to compute the model's vectors on this machine, found by a short timed probe.

Why a timed probe and not CPU flags: whether bf16 (or ONNX Runtime, or OpenVINO) is
faster than fp32 torch depends on the processor, not only on its feature flags: bf16
on a CPU with AVX-512 BF16 but no AMX was measured 1.3–1.5x *slower* than fp32 on one
machine and 2x faster on another (docs/running-at-scale.md). So ``auto`` times every
candidate on the machine that resolves it and takes the fastest one that is accurate:

* **Candidates**: fp32 torch always (the baseline, and the answer whenever nothing
  else is clearly faster); bf16 torch and bf16 OpenVINO only where the CPU has native
  bf16 (emulated bf16 is always slower than fp32, not worth timing); fp32 ONNX Runtime
  and fp32 OpenVINO where their extras are installed. An explicit backend or precision
  narrows the set to the combinations that keep it.
* **Timing**: the candidates encode chunk-sized texts (``timed_texts``: the probe
  texts joined into 16 texts of 250–1,000 characters, as chunks are, not the short
  probes alone: on short texts ONNX Runtime measured 1.24x fp32 torch on a machine
  where it was slower than fp32 torch on real chunks) in interleaved rounds (the
  order rotates each round, so a burst of load on a shared machine hits all alike),
  each round timed by the wall clock and by the process's CPU time (all threads).
  A candidate's score is the median over rounds of its time divided by the
  baseline's in the same round, the larger of the two ratios: it must be faster in
  both, so a runtime whose idle threads spin (CPU another process lacks) or that
  only wins on a busy machine's clock does not win. It wins only if it is at least
  ``MIN_SPEEDUP`` faster: ties and noise leave fp32 torch, and a choice does not flip
  between runs on a noisy machine.
* **Accuracy guard**, fastest candidate first until one passes: it encodes the whole
  shipped probe set (``probe_texts.txt``: short and long, prose, code, tables,
  numbers, German, French, Chinese) and qualifies only if each vector's cosine to the
  baseline's is at least ``MIN_COSINE`` *and* retrieval over the probe set agrees:
  every probe's nearest neighbours are the baseline's (``retrieval_agreement``).
* **Cache**: the verdict is kept on disk (``$RAGBEAM_CACHE_DIR`` or
  ``$XDG_CACHE_HOME/ragbeam``, ``embedding-choice.json``) under the CPU model and
  flags, the releases that compute a vector, the model, the threads and what was
  requested; a cache hit loads no candidate and times nothing.

The resolved backend and precision (never ``auto``) are what ``EmbeddingOptions``
carries into the config fingerprint, run.json and the Parquet metadata, so vectors of
two ways of computing can never be mixed in one output or store without a full
re-embed. Resolved once, by whoever builds the run's config (the launcher): remote
workers receive e.g. ``openvino``/``bf16``, never ``auto``, so every worker computes
the same way and a run's output is deterministic.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import pathlib
import platform
import statistics
from collections.abc import Callable, Sequence

import numpy as np

from ragbeam.transforms.embed.exported import cache_root

AUTO = "auto"
# Cosine of a candidate's vector to fp32 torch's twin, worst probe: 0.9995 is the
# issue's bar (all-MiniLM-L6-v2 under torch bf16 measured ≥ 0.9998 on this probe set).
MIN_COSINE = 0.9995
# Retrieval over the probe set (each probe a query against all others): the share of
# probes whose top-RETRIEVAL_K neighbours are the baseline's, as a set.
RETRIEVAL_K = 3
MIN_RETRIEVAL_AGREEMENT = 0.95
# A candidate replaces fp32 torch only when at least this much faster (median ratio
# ≤ 1 / MIN_SPEEDUP): fp32 torch wins ties and noise.
MIN_SPEEDUP = 1.10
PROBE_ROUNDS = 5
TIMED_TEXTS = 16  # chunk-sized texts made of the probe texts, encoded each round
# Their lengths in characters, shortest to longest: the shared corpus's chunks
# average 400 characters (112 tokens), larger --chunk-size settings reach the window.
TIMED_CHARS = (250, 1000)
# CPU features under which bf16 matrix products run natively (x86: AVX-512 BF16,
# AMX; Arm: the BF16 extension). Without them bf16 is emulated: slower than fp32.
NATIVE_BF16_FLAGS = ("avx512_bf16", "amx_bf16", "bf16")
PROBE_FILE = pathlib.Path(__file__).with_name("probe_texts.txt")
CHOICE_VERSION = 3  # bump when the probe, the candidates or the rule change
BASELINE = ("torch", "fp32")

log = logging.getLogger(__name__)

Candidate = tuple[str, str]  # (backend, precision)


@dataclasses.dataclass(frozen=True)
class PrecisionChoice:
    """What ``auto`` became and why (written to run.json and the Parquet metadata).
    ``rates``: texts per second of each candidate timed (best round), by
    ``"backend/precision"``; empty when nothing was timed."""

    precision: str
    reason: str
    min_cosine: float | None = None
    backend: str = "torch"
    requested: Candidate = (AUTO, AUTO)
    rates: tuple[tuple[str, float], ...] = ()
    cached: bool = False

    def record(self) -> dict[str, object]:
        return {"requested": self.requested[1], "requested_backend": self.requested[0],
                "precision": self.precision, "backend": self.backend, "reason": self.reason,
                "min_cosine": self.min_cosine, "threshold": MIN_COSINE,
                "rates_per_s": dict(self.rates), "min_speedup": MIN_SPEEDUP,
                "cached": self.cached}


Accuracy = Callable[[Candidate], tuple[float, float]]  # → (worst cosine, retrieval)
# One timed round of a candidate: seconds, or (wall seconds, CPU seconds).
Timing = float | tuple[float, float]


def _cpuinfo() -> str:
    try:
        return pathlib.Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _cpu_fields(cpuinfo: str, keys: Sequence[str]) -> list[str]:
    found = []
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in keys:
            found.append(value.strip())
    return found


def cpu_bf16_features(cpuinfo: str | None = None) -> tuple[str, ...]:
    """The native-bf16 features this CPU announces (Linux ``/proc/cpuinfo`` flags)."""
    cpuinfo = _cpuinfo() if cpuinfo is None else cpuinfo
    flags: set[str] = set()
    for value in _cpu_fields(cpuinfo, ("flags", "Features")):
        flags.update(value.split())
    return tuple(flag for flag in NATIVE_BF16_FLAGS if flag in flags)


def cpu_identity(cpuinfo: str | None = None) -> tuple[str, str]:
    """The CPU model's name and a hash of its feature flags: two machines of one kind
    share a verdict, another kind (or a VM exposing other flags) measures again."""
    cpuinfo = _cpuinfo() if cpuinfo is None else cpuinfo
    names = _cpu_fields(cpuinfo, ("model name", "Model", "CPU part"))
    flags = sorted(set(" ".join(_cpu_fields(cpuinfo, ("flags", "Features"))).split()))
    name = names[0] if names else platform.processor() or platform.machine()
    return name, hashlib.sha256(" ".join(flags).encode()).hexdigest()[:16]


def probe_texts() -> list[str]:
    """The shipped probe set: one text a line, blank lines and ``#`` comments skipped."""
    lines = PROBE_FILE.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


def min_cosine(reference: np.ndarray, candidate: np.ndarray) -> float:
    """Worst cosine between rows of two matrices of unit vectors (row i with row i)."""
    return float(np.min(np.sum(reference * candidate, axis=1)))


def retrieval_agreement(reference: np.ndarray, candidate: np.ndarray,
                        k: int = RETRIEVAL_K) -> float:
    """Each row a query against all other rows: the share of queries whose top-``k``
    neighbours under ``candidate`` are the same set as under ``reference``. A cosine
    bar alone can pass vectors whose small errors reorder close neighbours, which is
    what a retriever returns."""
    def top(vectors: np.ndarray) -> list[frozenset[int]]:
        scores = vectors @ vectors.T
        np.fill_diagonal(scores, -np.inf)
        return [frozenset(np.argsort(-row, kind="stable")[:k].tolist()) for row in scores]

    pairs = zip(top(reference), top(candidate), strict=True)
    return float(np.mean([a == b for a, b in pairs])) if len(reference) > k else 1.0


def label(candidate: Candidate) -> str:
    return "/".join(candidate)


def candidates(backend: str, precision: str, installed: Sequence[str],
               bf16_features: Sequence[str]) -> list[Candidate]:
    """What ``auto`` may choose from, baseline first: ``backend``/``precision`` as
    requested (``auto`` or one value), ``installed``: the exported backends whose
    runtimes are importable here."""
    backends = ["torch", *installed] if backend == AUTO else [backend]
    precisions = ["fp32", "bf16"] if precision == AUTO else [precision]
    found = []
    for b in backends:
        for p in precisions:
            if p == "bf16" and (b == "onnx" or (precision == AUTO and not bf16_features)):
                continue  # onnxruntime runs fp32 only; emulated bf16 is never faster
            found.append((b, p))
    found.sort(key=lambda c: (c != BASELINE, c[1] != "fp32"))  # baseline, then fp32
    return found


def timed_texts(texts: list[str], count: int = TIMED_TEXTS,
                chars: tuple[int, int] = TIMED_CHARS) -> list[str]:
    """What the rounds time: ``count`` chunk-sized texts, the probe texts joined in
    file order (from the start again when used up) into lengths spread evenly over
    ``chars``. A chunk is embedded with its neighbours' kind of text, so a mixed text
    (prose, code, a table row) is as real as a pure one; what matters for the speed is
    the length."""
    low, high = chars
    targets = [low + (high - low) * i // max(1, count - 1) for i in range(count)]
    made, at = [], 0
    for target in targets:
        parts: list[str] = []
        while sum(map(len, parts)) + len(parts) < target:
            parts.append(texts[at % len(texts)])
            at += 1
        made.append(" ".join(parts)[:target])
    return made


def _both(timed: Timing) -> tuple[float, float]:
    return (timed, timed) if isinstance(timed, (int, float)) else timed


def decide(seconds: dict[Candidate, Sequence[Timing]], baseline: Candidate,
           accuracy: Accuracy) -> tuple[Candidate, str, float]:
    """The fastest accurate candidate: the median over rounds of its time over the
    baseline's in the same round (wall and CPU: the larger ratio), at least
    ``MIN_SPEEDUP`` faster, accuracy guard
    passed (checked fastest first, so only the winner and the ones it beat pay for
    it); else the baseline. Returns the choice, why, and its worst cosine."""
    def ratio(timed: Timing, base: Timing) -> float:  # the larger of wall and CPU
        pairs = zip(_both(timed), _both(base), strict=True)
        return max(t / b if b > 0 else 1.0 for t, b in pairs)

    base = seconds[baseline]
    ratios = {c: statistics.median(ratio(t, b) for t, b in zip(s, base, strict=True))
              for c, s in seconds.items() if c != baseline}
    speeds = "; ".join(f"{label(c)} {1 / r:.2f}x" for c, r in
                       sorted(ratios.items(), key=lambda item: item[1])) or "no other candidate"
    rejected = []
    for candidate, ratio in sorted(ratios.items(), key=lambda item: item[1]):
        if ratio > 1.0 / MIN_SPEEDUP:
            break
        cosine, retrieval = accuracy(candidate)
        if cosine >= MIN_COSINE and retrieval >= MIN_RETRIEVAL_AGREEMENT:
            inaccurate = f"; inaccurate: {', '.join(rejected)}" if rejected else ""
            return (candidate, f"fastest accurate (cosine {cosine:.5f}, retrieval "
                               f"{retrieval:.2f}), against {label(baseline)}: "
                               f"{speeds}{inaccurate}", cosine)
        rejected.append(f"{label(candidate)} (cosine {cosine:.5f}, retrieval {retrieval:.2f})")
    inaccurate = f"; inaccurate: {', '.join(rejected)}" if rejected else ""
    return (baseline, f"nothing accurate is {MIN_SPEEDUP:.2f}x faster than "
                      f"{label(baseline)} ({speeds}{inaccurate})", 1.0)


def _cache_path() -> pathlib.Path:
    return cache_root() / "embedding-choice.json"


def choice_key(identity: object, threads: int, options: Sequence[Candidate]) -> str:
    """The cache key of a verdict: the model and the releases (``identity``), the CPU
    model and flags, threads, the candidates, the probe set and the rule."""
    parts = [CHOICE_VERSION, identity, cpu_identity(), threads, list(options),
             MIN_COSINE, MIN_SPEEDUP, PROBE_FILE.read_bytes()]
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]


def _read_cache() -> dict[str, dict]:
    try:
        return json.loads(_cache_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _write_cache(key: str, verdict: dict) -> None:
    path = _cache_path()
    try:
        cache = _read_cache()
        cache[key] = verdict
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(cache, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)  # atomic: two runs starting together each write a whole file
    except OSError as exc:  # a read-only home: measure again next time, nothing breaks
        log.info("embedding auto: cannot cache the verdict: %s", exc)


def choose_embedding(identity: object, requested: Candidate, options: Sequence[Candidate],
                     threads: int,
                     probe: Callable[[list[Candidate]],
                                     tuple[dict[Candidate, list[Timing]], Accuracy]]
                     ) -> PrecisionChoice:
    """``auto`` → one of ``options`` (baseline first) for this machine. ``probe``
    loads the candidates it is given and returns their timed rounds and an accuracy
    check (called only when no verdict is cached under ``identity``, this CPU,
    ``threads`` and ``options``)."""
    baseline = options[0]
    if len(options) == 1:
        why = ("this CPU has no native bf16 (AVX-512 BF16, AMX, Arm BF16) and no other "
               "backend is installed" if requested[1] == AUTO else "the only candidate")
        return PrecisionChoice(baseline[1], why, backend=baseline[0], requested=requested)
    key = choice_key(identity, threads, options)
    verdict = _read_cache().get(key)
    cached = verdict is not None
    if verdict is None:
        try:
            seconds, accuracy = probe(list(options))
            chosen, reason, cosine = decide(seconds, baseline, accuracy)
        except Exception as exc:  # a backend that fails to load…: the baseline is safe
            return PrecisionChoice(baseline[1], f"the probe failed: {type(exc).__name__}: "
                                   f"{exc}", backend=baseline[0], requested=requested)
        timed = len(timed_texts(probe_texts()))
        rates = {label(c): round(timed / min(_both(t)[0] for t in s), 2)
                 for c, s in seconds.items()}
        verdict = {"backend": chosen[0], "precision": chosen[1], "reason": reason,
                   "min_cosine": round(cosine, 6), "rates": rates, "threads": threads,
                   "cpu": cpu_identity()[0]}
        _write_cache(key, verdict)
    return PrecisionChoice(verdict["precision"], verdict["reason"],
                           min_cosine=verdict["min_cosine"], backend=verdict["backend"],
                           requested=requested, rates=tuple(sorted(verdict["rates"].items())),
                           cached=cached)
