"""Questions, hit definition, and retrieval with the real BM25 library and embedding model."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ragbeam.evaluate.budget import ContextUnit, FilledContext
from ragbeam.evaluate.evaluation import (
    Question,
    evaluate_retrieval,
    is_hit,
    load_questions,
    normalize,
    resolve_answer_doc,
)
from ragbeam.evaluate.retrieval import (
    BM25Retriever,
    DenseRetriever,
    EmbeddingCache,
    HybridRetriever,
    reciprocal_rank_fusion,
)
from ragbeam.evaluate.run_data import ChunkRecord, DocumentRecord, RunData
from ragbeam.evaluate.token_level import SpanScore, locate_excerpt, score_spans
from ragbeam.transforms.embed.lexical import guess_language, tokenize

DOCS = {
    "boats": "Boats may only be taken out between sunrise and one hour before sunset.",
    "freezer": "Samples for nutrient analysis go to the freezer within two hours.",
    "wifi": "The main building has Wi-Fi. Coverage on the lake is poor.",
    "zh": "显存优化：现有系统浪费了 60% - 80% 的显存。",
}


def tiny_run() -> RunData:
    chunks, documents = [], []
    for i, (name, text) in enumerate(DOCS.items()):
        doc_id = f"id-{name}"
        documents.append(DocumentRecord(doc_id, f"/data/root/{name}.txt", "ok", "text/plain", None,
                                     "recursive", len(text), 1, None))
        chunks.append(ChunkRecord(f"c{i}", doc_id, None, 0, "chunk", "recursive", text, "", 0,
                               len(text), None, None, (), len(text) // 4, len(text),
                               f"/data/root/{name}.txt", "text/plain"))
    return RunData("/tmp/none", chunks, documents, {"config": {"chunk": {"size": 100}}},
                   {c.doc_id: c.text for c in chunks})


def test_questions_file_validation(tmp_path):
    good = tmp_path / "q.jsonl"
    good.write_text(json.dumps({"question": "q?", "answer_doc": "a.txt"}) + "\n\n"
                    + json.dumps({"question": "r?", "answer_text": "x", "id": "r"}) + "\n")
    assert [q.id for q in load_questions(good)] == ["q01", "r"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"question": "no answer"}) + "\n")
    with pytest.raises(ValueError, match="answer_doc"):
        load_questions(bad)


def test_hit_by_text_is_whitespace_and_case_insensitive():
    ctx = FilledContext((ContextUnit("c", "d", "Boats may ONLY\n  be taken", 5),), 5, 1)
    assert normalize("  a\n\tB ") == "a b"
    assert is_hit(Question("q", "?", answer_text="only be TAKEN"), ctx, None)
    assert not is_hit(Question("q", "?", answer_text="sunset"), ctx, "d")
    # Without answer_text, a chunk of the answer document is enough.
    assert is_hit(Question("q", "?", answer_doc="x.txt"), ctx, "d")
    assert not is_hit(Question("q", "?", answer_doc="x.txt"), ctx, "other")


def test_answer_doc_is_a_path_relative_to_the_input_root():
    docs = tiny_run().documents
    assert resolve_answer_doc("boats.txt", docs) == "id-boats"
    assert resolve_answer_doc("root/boats.txt", docs) == "id-boats"
    assert resolve_answer_doc("oats.txt", docs) is None  # a suffix must start at a "/"


def test_tokenizer_stems_by_language_and_segments_cjk():
    # English: stop words dropped, case folded, Snowball-stemmed.
    assert tokenize("The KV cache is illustrated") == ["kv", "cach", "illustr"]
    assert tokenize("Who illustrated it?") == tokenize("the Illustrator")[:1] == ["illustr"]
    # German and French are recognised by their stop words and stemmed as such.
    assert tokenize("Wie viele Jahre Arbeit hatte er hinter sich?") == [
        "viel", "jahr", "arbeit"]
    assert tokenize("Qu'ont en commun deux isomères ?") == ["commun", "deux", "isomer"]
    assert guess_language(["the", "cat"]) == "en" and guess_language(["in"]) == "en"
    # Chinese: jieba words plus character bigrams.
    assert tokenize("显存优化") == ["显存", "优化", "显存", "存优", "优化"]


def test_question_language_from_field_or_text():
    assert Question("a", "浪费了多少显存?", "x").language == "zh"
    assert Question("b", "Wie viele Jahre hatte er?", "x").language == "de"
    assert Question("c", "How many years?", "x", lang="fr").language == "fr"


def test_bm25_ranks_matching_chunks_and_leaves_out_unrelated_ones():
    texts = list(DOCS.values())
    ranking = BM25Retriever(texts).rank("when can I take the boats out before sunset?")
    assert ranking[0] == 0
    assert 3 not in ranking  # shares no term with the question
    assert BM25Retriever(texts).rank("浪费了多少显存")[0] == 3


def test_bm25_scores_a_plain_text_as_bm25s_does():
    """The retriever computes bm25s's Lucene BM25 itself (to count a header's length
    apart): over plain texts (a peer's chunks) it ranks as bm25s ranked them."""
    import bm25s

    texts = [*DOCS.values(), "Boats, boats and more boats on the lake before sunset.",
             "Die Boote bleiben bis Sonnenuntergang am Steg.", ""]
    index = bm25s.BM25()
    index.index([tokenize(t) for t in texts], show_progress=False)
    for query in ("when can I take the boats out before sunset?", "boats boats lake",
                  "显存", "Boote Sonnenuntergang"):
        known = [t for t in tokenize(query) if t in index.vocab_dict]
        expected = np.asarray(index.get_scores(known))[:len(texts)]
        order = np.argsort(-expected, kind="stable")
        assert BM25Retriever(texts).rank(query) == [int(i) for i in order if expected[i] > 0]


def test_dense_retriever_uses_the_pipeline_model_and_ranks_by_meaning():
    cache = EmbeddingCache()
    retriever = DenseRetriever(list(DOCS.values()), cache)
    # No shared content words with the answer chunk: only the embedding can find it.
    assert retriever.rank("Is there wireless internet in the house?")[0] == 2
    assert len(retriever.rank("anything")) == len(DOCS)


def test_embedding_cache_saved_and_loaded_gives_the_same_vectors_without_the_model(tmp_path):
    cache = EmbeddingCache()
    texts = list(DOCS.values())
    vectors = cache.encode(texts)
    cache.save(tmp_path / "v.npz")
    again = EmbeddingCache()
    assert again.load(tmp_path / "v.npz") == len(texts)
    assert np.allclose(again.encode(texts), vectors)
    assert again._model is None  # every vector came from the file
    assert EmbeddingCache(model="e5").load(tmp_path / "v.npz") == 0  # another model's


def test_reciprocal_rank_fusion_adds_one_over_k_plus_rank():
    # 7: 1/61 + 1/62; 3: 1/62 + 1/61 (a tie: the lower index first); 5: 1/61; 9: 1/63.
    assert reciprocal_rank_fusion([[7, 3, 9], [5, 7]], k=60)[:1] == [7]
    assert reciprocal_rank_fusion([[7, 3], [3, 7]], k=60) == [3, 7]
    assert reciprocal_rank_fusion([[1, 2], []], k=60) == [1, 2]


def test_hybrid_finds_what_only_one_side_ranks_first():
    """BM25 alone misses the Wi-Fi chunk (no shared term); the dense model alone
    ranks the chunk with the exact code below others; fused, both are near the top."""
    texts = [*DOCS.values(), "Unit XQ-7741 stores its readings in the archive."]
    cache = EmbeddingCache()
    hybrid = HybridRetriever(texts, cache)
    assert 2 not in BM25Retriever(texts).rank("wireless internet in the house")
    assert hybrid.rank("wireless internet in the house")[0] == 2
    assert hybrid.rank("xq 7741")[0] == 4
    assert len(hybrid.rank("anything")) == len(texts)


def test_evaluate_retrieval_hit_rate_rank_and_budget_curve():
    run = tiny_run()
    questions = [Question("boats", "When must boats be back before sunset?", "boats.txt",
                          "one hour before sunset"),
                 Question("freezer", "Where do nutrient analysis samples go?", "freezer.txt"),
                 Question("missing", "Who is the station manager?", "nowhere.txt")]
    result = evaluate_retrieval(run, questions, "bm25", budget=20)
    assert result["hits"] == 2 and result["hit_rate"] == pytest.approx(0.6667, abs=1e-3)
    assert result["mean_first_answer_rank"] == 1
    assert result["unresolved_answer_docs"] == ["nowhere.txt"]
    # 20 tokens fit exactly one ~17-token chunk: every curve point at >= 200 is the same.
    assert result["recall_at_budget"]["20"] == result["hit_rate"]
    assert result["per_question"][0]["chunks_in_context"] == 1


def test_dense_retriever_with_the_multilingual_model_finds_chinese_and_german():
    cache = EmbeddingCache(model="e5")
    texts = [*DOCS.values(), "Luise hatte kein Geld, aber er genügte."]
    retriever = DenseRetriever(texts, cache)
    assert retriever.rank("现有系统浪费了多少显存?")[0] == 3
    assert retriever.rank("Welche Frau hatte kein Geld?")[0] == 4
    assert cache.encode(["x"], role="query").shape == (1, 384)


def test_token_level_recall_precision_iou_by_hand():
    # Reference: characters 10-20; retrieved: 0-15 and 15-40 of the answer document.
    score = score_spans([(10, 20)], [(0, 15), (15, 40)], retrieved_chars=40)
    assert score.recall == 1.0
    assert score.precision == pytest.approx(10 / 40)
    assert score.iou == pytest.approx(10 / (40 + 10 - 10))
    # Nothing of the answer document retrieved, 30 characters of another one.
    assert score_spans([(10, 20)], [], 30) == SpanScore(0.0, 0.0, 0.0)
    # Overlapping retrieved chunks are paid twice in precision, counted once in recall.
    twice = score_spans([(0, 10)], [(0, 10), (0, 10)], 20)
    assert (twice.recall, twice.precision) == (1.0, 0.5)


def test_excerpts_are_found_across_rewrapped_whitespace():
    text = "Copy llncs.cls to a\ndirectory  that is searched."
    start, end = locate_excerpt(text, "llncs.cls to a directory that")
    assert (start, text[start:end]) == (5, "llncs.cls to a\ndirectory  that")
    assert locate_excerpt(text, "not there") is None


def test_evaluate_retrieval_token_level_and_languages():
    run = tiny_run()
    questions = [Question("boats", "When must boats be back before sunset?", "boats.txt",
                          "one hour before sunset"),
                 Question("zh", "浪费了多少显存?", "zh.txt", "60% - 80%",
                          references=("现有系统浪费了 60% - 80% 的显存。",))]
    result = evaluate_retrieval(run, questions, "bm25", budget=200, k=1)
    token = result["token_level"]
    assert token["questions"] == 2 and token["k"] == 1 and token["unlocated"] == []
    assert token["recall"] == 100.0  # each answer chunk ranked first
    boats = len("one hour before sunset") / len(DOCS["boats"])
    zh = len("现有系统浪费了 60% - 80% 的显存。") / len(DOCS["zh"])
    assert token["iou"] == pytest.approx(100 * (boats + zh) / 2, abs=0.01)
    assert result["by_language"] == {"en": {"hits": 1, "questions": 1},
                                     "zh": {"hits": 1, "questions": 1}}
