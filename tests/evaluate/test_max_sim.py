"""Max-sim dense scoring (a run made with ``--text-vector``): each chunk scores the
closer of its two vectors, in ``DenseRetriever`` and ``HybridRetriever`` alike."""

from __future__ import annotations

import numpy as np

from ragbeam.evaluate.retrieval import (
    DenseRetriever,
    EmbeddingCache,
    make_retriever,
    max_sim,
    ranking_of,
)


def _cache(vectors: dict[tuple[str, str], list[float]]) -> EmbeddingCache:
    """A cache holding these unit vectors (no model is loaded: every text is known)."""
    cache = EmbeddingCache()
    for (text, role), vector in vectors.items():
        v = np.asarray(vector, dtype=np.float32)
        cache._vectors[cache._key(text, role)] = v / np.linalg.norm(v)
    return cache


def test_max_sim_is_the_larger_cosine_of_each_row():
    a = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    b = np.array([[0.0, 1.0], [1.0, 0.0]], dtype=np.float32)
    q = np.array([0.6, 0.8], dtype=np.float32)
    assert np.allclose(max_sim(q, [a, b]), [0.8, 0.8])
    assert np.allclose(max_sim(q, [a]), a @ q)
    assert np.allclose(max_sim(q, [a, b], [0.0, 0.5]), [0.6, 0.8])
    assert ranking_of(np.array([0.1, 0.3, 0.3])) == [1, 2, 0]


def test_a_chunk_whose_text_is_closer_than_its_header_wins_with_two_vectors():
    # Chunk 0's header pulls its first vector away from the query; its text is close.
    cache = _cache({("h0 + t0", "passage"): [0.0, 1.0], ("t0", "passage"): [1.0, 0.1],
                    ("h1 + t1", "passage"): [0.7, 0.7], ("t1", "passage"): [0.6, 0.8],
                    ("q", "query"): [1.0, 0.0]})
    one = DenseRetriever(["h0 + t0", "h1 + t1"], cache)
    two = DenseRetriever(["h0 + t0", "h1 + t1"], cache, ["t0", "t1"])
    assert one.rank("q") == [1, 0]
    assert two.rank("q") == [0, 1]
    hybrid = make_retriever("hybrid", ["alpha", "beta"], cache, ["h0 + t0", "h1 + t1"],
                            ["t0", "t1"])
    assert hybrid.rank("q")[0] == 0  # BM25 matches nothing: the dense ranking decides
