"""Questions, hit definition, and retrieval with the real BM25 library and embedding model."""

from __future__ import annotations

import json

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
from ragbeam.evaluate.retrieval import BM25Retriever, DenseRetriever, EmbeddingCache, tokenize
from ragbeam.evaluate.run_data import ChunkRow, DocumentRow, RunData

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
        documents.append(DocumentRow(doc_id, f"/data/root/{name}.txt", "ok", "text/plain", None,
                                     "recursive", len(text), 1, None))
        chunks.append(ChunkRow(f"c{i}", doc_id, None, 0, "chunk", "recursive", text, "", 0,
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


def test_tokenizer_splits_cjk_into_characters_and_bigrams():
    assert tokenize("The KV cache") == ["kv", "cache"]  # stop words dropped, case folded
    assert tokenize("显存优化") == ["显", "存", "优", "化", "显存", "存优", "优化"]


def test_bm25_ranks_matching_chunks_and_leaves_out_unrelated_ones():
    texts = list(DOCS.values())
    ranking = BM25Retriever(texts).rank("when can I take the boats out before sunset?")
    assert ranking[0] == 0
    assert 3 not in ranking  # shares no term with the question
    assert BM25Retriever(texts).rank("浪费了多少显存")[0] == 3


def test_dense_retriever_uses_the_pipeline_model_and_ranks_by_meaning():
    cache = EmbeddingCache()
    retriever = DenseRetriever(list(DOCS.values()), cache)
    # No shared content words with the answer chunk: only the embedding can find it.
    assert retriever.rank("Is there wireless internet in the house?")[0] == 2
    assert len(retriever.rank("anything")) == len(DOCS)


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
