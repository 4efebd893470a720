"""benchmarks/dense_two_vectors.py (issue 38, diagnostics): a chunk's dense score is the
best cosine over its two vectors, a margin handicaps one of them, and one vector ranks
as ``DenseRetriever`` does (synthetic unit vectors)."""

from __future__ import annotations

import pathlib
import sys

import numpy as np

BENCHMARKS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from dense_two_vectors import max_sim, ranking_of  # noqa: E402


def _unit(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


# three chunks: their text vectors and their "label > heading + text" vectors
TEXT = np.stack([_unit(1, 0, 0), _unit(0, 1, 0), _unit(0, 0, 1)])
DENSE = np.stack([_unit(1, 0, 1), _unit(0, 1, 1), _unit(0, 0.2, 1)])


def test_each_chunk_takes_its_closer_vector():
    q = _unit(0, 1, 0)  # a question that names no document: the text vector of chunk 1
    scores = max_sim(q, [TEXT, DENSE])
    assert np.allclose(scores, [0.0, 1.0, max(0.0, float(DENSE[2] @ q))])
    assert ranking_of(scores)[0] == 1
    q = _unit(0, 0.2, 1)  # a question close to chunk 2's header
    assert ranking_of(max_sim(q, [TEXT, DENSE]))[0] == 2


def test_a_margin_handicaps_the_text_vector_only():
    q = _unit(1, 0, 0.9)
    plain = max_sim(q, [TEXT, DENSE])
    handicapped = max_sim(q, [TEXT, DENSE], [0.5, 0.0])
    assert np.allclose(handicapped, np.maximum(TEXT @ q - 0.5, DENSE @ q))
    assert np.all(handicapped <= plain)


def test_one_vector_ranks_as_the_dense_retriever():
    q = _unit(0.3, 0.3, 1)
    assert ranking_of(max_sim(q, [DENSE])) == [int(i) for i in np.argsort(-(DENSE @ q),
                                                                          kind="stable")]
    tie = np.array([0.5, 0.7, 0.5], dtype=np.float32)
    assert ranking_of(tie) == [1, 0, 2]  # ties keep the lower index first
