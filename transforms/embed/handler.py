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

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from apache_beam.ml.inference.base import ModelHandler, PredictionResult

from ragbeam.transforms.embed.model import (
    EmbeddingOptions,
    encode_texts,
    load_sentence_model,
    model_identity,
)

# RunInference hands over up to this many forward passes at once, so
# sentence-transformers can sort them by length and pad little.
PASSES_PER_BATCH = 8


class SentenceEmbeddingHandler(ModelHandler[str, PredictionResult, Any]):
    def __init__(self, options: EmbeddingOptions) -> None:
        super().__init__(min_batch_size=1,
                         max_batch_size=options.batch_size * PASSES_PER_BATCH)
        self._options = options

    def load_model(self) -> Any:
        return load_sentence_model(self._options)

    def run_inference(self, batch: Sequence[str], model: Any,
                      inference_args: dict[str, Any] | None = None
                      ) -> Iterable[PredictionResult]:
        vectors: np.ndarray = encode_texts(model, list(batch), self._options.batch_size)
        model_id = model_identity(self._options.model)
        return [PredictionResult(text, vector, model_id)
                for text, vector in zip(batch, vectors, strict=True)]

    def get_num_bytes(self, batch: Sequence[str]) -> int:
        return sum(len(text.encode("utf-8")) for text in batch)

    def get_metrics_namespace(self) -> str:
        return "ragbeam.embed"
