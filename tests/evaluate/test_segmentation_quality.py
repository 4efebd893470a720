"""Semantic chunking against recursive splitting on a Choi-style topic set.

The set is built from real documents of ../shared/corpus (see
``segmentation_metrics.py``): passages from different documents joined by
blank lines exactly like the paragraphs inside a passage, so only meaning
marks the true boundaries. Recursive splitting is measured at the chunk size
whose mean chunk length is closest to semantic's, so neither wins by cutting
more often.
"""

from __future__ import annotations

import os
import pathlib

import pytest

from ragbeam.evaluate.segmentation import (
    build_choi_samples,
    corpus_choi_samples,
    heldout_choi_samples,
    pk,
    score,
    window_diff,
)
from ragbeam.transforms.chunk.recursive import split_recursive
from ragbeam.transforms.chunk.semantic import (
    SemanticOptions,
    assemble_semantic,
    embedding_inputs,
    plan_semantic,
)
from ragbeam.transforms.chunk.sizing import CharSizer
from ragbeam.transforms.embed.model import EmbeddingOptions, encode_texts, load_sentence_model

from conftest import REPO

CHARS = CharSizer()
MAX_CHUNK = 3000  # the set's true segments average ~1400 characters
SAMPLES = 20


def test_pk_and_window_diff_by_hand():
    # 20 characters, true boundary at 10; k = 5.
    assert pk(20, [10], [10]) == 0.0
    assert window_diff(20, [10], [10]) == 0.0
    assert pk(20, [10], []) == pytest.approx(5 / 15)  # windows straddling 10 disagree
    assert pk(20, [10], [12]) == pytest.approx(4 / 15)  # off by 2: windows 5, 6, 10, 11
    assert window_diff(20, [10], [5, 10]) > 0.0 == pk(20, [10], [10])


def test_choi_samples_join_passages_like_paragraphs():
    sources = {"a": ["A one.", "A two.", "A three.", "A four."],
               "b": ["B one.", "B two.", "B three."]}
    samples = build_choi_samples(sources, 3, segments_per_sample=4, seed=1)
    assert samples == build_choi_samples(sources, 3, segments_per_sample=4, seed=1)
    for sample in samples:
        assert len(sample.boundaries) == 3
        for boundary in sample.boundaries:
            assert sample.text[boundary - 2:boundary] == "\n\n"  # like any paragraph break
        assert all(x != y for x, y in zip(sample.sources, sample.sources[1:], strict=False))


HELDOUT_DOCS = pathlib.Path(os.environ.get("RAGBEAM_HELDOUT_DIR",
                                           REPO.parent / "data" / "heldout-16")) / "docs"


@pytest.fixture(scope="module", params=["tuning", "heldout"])
def choi_samples(request, corpus_dir):
    """The tuning set (shared corpus: the thresholds were chosen on it) always; the
    held-out set (evaluate/heldout/MANIFEST.csv, fetched, not committed) when present."""
    if request.param == "tuning":
        return corpus_choi_samples(str(corpus_dir), n_samples=SAMPLES, seed=0)
    if not HELDOUT_DOCS.is_dir():
        pytest.skip(f"held-out documents not fetched into {HELDOUT_DOCS} "
                    "(evaluate/heldout/MANIFEST.csv); the tuning set still runs")
    return heldout_choi_samples(str(HELDOUT_DOCS), n_samples=SAMPLES, seed=0)


def _semantic_spans(samples, options: SemanticOptions) -> list[list[tuple[int, int]]]:
    model = load_sentence_model(EmbeddingOptions())
    low, high = options.limits(type("Size", (), {"size": MAX_CHUNK})())
    out = []
    for sample in samples:
        plan = plan_semantic(sample.text, [], high, low, CHARS)
        vectors = encode_texts(model, embedding_inputs(sample.text, plan, options.window))
        out.append(assemble_semantic(sample.text, plan, vectors, options, low, high, CHARS))
    return out


def test_semantic_beats_recursive_at_the_same_mean_chunk_size(choi_samples):
    for sample in choi_samples:
        assert sample.text.count("\n\n") > len(sample.boundaries)  # paragraphs inside passages
    semantic = score(choi_samples, _semantic_spans(choi_samples, SemanticOptions()))
    recursive = min(
        (score(choi_samples, [split_recursive(s.text, size, CHARS).spans for s in choi_samples])
         for size in range(1000, 4001, 100)),
        key=lambda r: abs(r.mean_chunk_chars - semantic.mean_chunk_chars),
    )
    print(f"\nsemantic Pk {semantic.pk:.3f} WD {semantic.window_diff:.3f} "
          f"mean {semantic.mean_chunk_chars:.0f} chars; recursive Pk {recursive.pk:.3f} "
          f"WD {recursive.window_diff:.3f} mean {recursive.mean_chunk_chars:.0f} chars")
    assert abs(recursive.mean_chunk_chars - semantic.mean_chunk_chars) < 0.1 * \
        semantic.mean_chunk_chars
    assert semantic.pk <= 0.25
    assert semantic.pk <= 0.6 * recursive.pk
    assert semantic.window_diff < recursive.window_diff
