"""``--embedding-precision auto``: bf16 where the CPU does bf16 natively and the
model's vectors stay within an accuracy guard of fp32, else fp32.

Why a guard and not a flag alone: bf16 keeps 8 bits of mantissa, so how far its
vectors drift from fp32 depends on the model (its depth, its activations), not
only on the CPU. The guard encodes a fixed, shipped probe set (``probe_texts.txt``:
short and long, prose, code, tables, numbers, German, French, Chinese) both ways
and takes bf16 only if every probe's cosine to its fp32 twin is at least
``MIN_COSINE``. The verdict depends on the model's files, the torch release and
the CPU's bf16 features, and is cached on disk under those keys, so it costs the
two encodes once per machine and model, not once per run.

The resolved precision (never ``auto``) is what ``EmbeddingOptions`` carries into
the config fingerprint, run.json and the Parquet metadata: vectors of two
precisions can never be mixed in one output or store without a full re-embed.

Resolved once, by whoever builds the run's config (the launcher): remote workers
receive ``bf16`` or ``fp32``, never ``auto``, so every worker computes the same way.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import pathlib
from collections.abc import Callable

import numpy as np

from ragbeam.transforms.embed.exported import cache_root

AUTO = "auto"
# Cosine of a bf16 vector to its fp32 twin, worst probe: 0.9995 is the bar
# (all-MiniLM-L6-v2 under torch bf16 measured ≥ 0.9998 on this probe set).
MIN_COSINE = 0.9995
# CPU features under which bf16 matrix products run natively (x86: AVX-512 BF16,
# AMX; Arm: the BF16 extension). Without them torch emulates bf16: slower than fp32.
NATIVE_BF16_FLAGS = ("avx512_bf16", "amx_bf16", "bf16")
PROBE_FILE = pathlib.Path(__file__).with_name("probe_texts.txt")
GUARD_VERSION = 1  # bump when the probe set or the rule changes: old verdicts are ignored

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class PrecisionChoice:
    """What ``auto`` became and why (written to run.json and the Parquet metadata)."""

    precision: str
    reason: str
    min_cosine: float | None = None

    def record(self) -> dict[str, object]:
        return {"requested": AUTO, "precision": self.precision, "reason": self.reason,
                "min_cosine": self.min_cosine, "threshold": MIN_COSINE}


def cpu_bf16_features(cpuinfo: str | None = None) -> tuple[str, ...]:
    """The native-bf16 features this CPU announces (Linux ``/proc/cpuinfo`` flags)."""
    if cpuinfo is None:
        try:
            cpuinfo = pathlib.Path("/proc/cpuinfo").read_text(encoding="utf-8",
                                                              errors="replace")
        except OSError:
            return ()
    flags: set[str] = set()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            flags.update(value.split())
    return tuple(flag for flag in NATIVE_BF16_FLAGS if flag in flags)


def probe_texts() -> list[str]:
    """The shipped probe set: one text a line, blank lines and ``#`` comments skipped."""
    lines = PROBE_FILE.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


def min_cosine(reference: np.ndarray, candidate: np.ndarray) -> float:
    """Worst cosine between rows of two matrices of unit vectors (row i with row i)."""
    return float(np.min(np.sum(reference * candidate, axis=1)))


def _cache_path() -> pathlib.Path:
    return cache_root() / "precision-guard.json"


def guard_key(identity: object, features: tuple[str, ...]) -> str:
    """The cache key of a verdict: model files, backend, releases, CPU features, probes."""
    parts = [GUARD_VERSION, identity, features, PROBE_FILE.read_bytes()]
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
        log.info("embedding precision guard: cannot cache the verdict: %s", exc)


def choose_precision(identity: object, measure: Callable[[list[str]], float]
                     ) -> PrecisionChoice:
    """``auto`` → ``bf16`` or ``fp32`` for this machine. ``identity`` names the model,
    its revision, backend and the releases that compute a vector; ``measure(texts)``
    returns the worst cosine of bf16 vectors to fp32 ones on ``texts`` (called only
    when no verdict is cached for this identity and CPU)."""
    features = cpu_bf16_features()
    if not features:
        return PrecisionChoice("fp32", "this CPU has no native bf16 (AVX-512 BF16, AMX, "
                                       "Arm BF16): emulated bf16 is slower than fp32")
    key = guard_key(identity, features)
    verdict = _read_cache().get(key)
    if verdict is None:
        try:
            verdict = {"min_cosine": round(measure(probe_texts()), 6)}
        except Exception as exc:  # bf16 unsupported by this torch build…: fp32 is always safe
            return PrecisionChoice("fp32", f"the bf16 probe failed: {type(exc).__name__}: {exc}")
        _write_cache(key, verdict)
    cosine = float(verdict["min_cosine"])
    where = f"CPU {'+'.join(features)}; worst probe cosine to fp32 {cosine:.5f}"
    if cosine >= MIN_COSINE:
        return PrecisionChoice("bf16", f"{where} ≥ {MIN_COSINE}", cosine)
    return PrecisionChoice("fp32", f"{where} < {MIN_COSINE}: bf16 drifts too far for "
                                   "this model", cosine)
