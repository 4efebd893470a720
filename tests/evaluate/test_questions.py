"""The shared-corpus question set stays answerable: its documents exist, its answers are in them."""

from __future__ import annotations

import csv
import pathlib

from ragbeam.evaluate.evaluation import load_questions, normalize, resolve_answer_doc
from ragbeam.evaluate.run_data import load_run
from ragbeam.evaluate.token_level import locate_excerpt

from conftest import require_corpus

QUESTIONS = pathlib.Path(__file__).resolve().parents[1] / "data" / "questions.jsonl"
HELDOUT = pathlib.Path(__file__).resolve().parents[2] / "evaluate" / "heldout"


def test_corpus_questions_point_at_real_documents_and_answers(corpus_run, corpus_manifest,
                                                             corpus_manifest_uris):
    questions = load_questions(QUESTIONS)
    assert len(questions) >= 20
    assert len({q.id for q in questions}) == len(questions)
    manifest = {row["path"] for row in corpus_manifest}
    run = load_run(str(corpus_run.path))
    # Answers are looked for in the MANIFEST's documents only (the run also holds the
    # corpus's own files: MANIFEST.csv quotes its documents).
    documents = [d for d in run.documents if d.source_uri in corpus_manifest_uris]
    texts = {d.doc_id: run.texts[d.doc_id] for d in documents if d.doc_id in run.texts}
    for q in questions:
        if q.answer_doc:
            assert q.answer_doc in manifest, q.id
            doc_id = resolve_answer_doc(q.answer_doc, documents)
            assert doc_id is not None, q.id
            if q.answer_text:
                assert normalize(q.answer_text) in normalize(texts[doc_id]), q.id
            # Reference excerpts (token-level figures) are found in the cleaned text.
            for excerpt in q.references:
                assert locate_excerpt(texts[doc_id], excerpt) is not None, q.id
        else:
            assert any(normalize(q.answer_text) in normalize(t) for t in texts.values())


def test_held_out_questions_name_manifest_documents_and_carry_references():
    """The held-out set is committed (our questions), its documents are not: every
    question points at a manifest row, has a language and reference excerpts, and
    every manifest row names repository, commit, sha256 and licence."""
    with open(HELDOUT / "MANIFEST.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert all(r["split"] == "heldout" and len(r["commit"]) == 40 and len(r["sha256"]) == 64
               and r["source_repo"] and r["source_path"] and r["license"] for r in rows)
    documents = {r["path"].removeprefix("docs/") for r in rows if r["path"].startswith("docs/")}
    questions = load_questions(HELDOUT / "questions.jsonl")
    corpus = require_corpus()  # what "not in the corpus" below is checked against
    with open(corpus / "MANIFEST.csv", newline="", encoding="utf-8") as f:
        corpus_sources = {(r["source_repo"], r["source_path"]) for r in csv.DictReader(f)}
    assert corpus_sources and not corpus_sources & {(r["source_repo"], r["source_path"])
                                                    for r in rows}
    assert len(questions) >= 40 and len({q.id for q in questions}) == len(questions)
    assert {q.lang for q in questions} == {"en", "zh", "fr", "de"}
    for q in questions:
        assert q.answer_doc in documents and q.answer_text and q.references, q.id
        # The corpus questions and these must not share a document (split by source).
        assert not (corpus / q.answer_doc).exists(), q.id
