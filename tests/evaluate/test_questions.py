"""The shared-corpus question set stays answerable: its documents exist, its answers are in them."""

from __future__ import annotations

import pathlib

from ragbeam.evaluate.evaluation import load_questions, normalize, resolve_answer_doc
from ragbeam.evaluate.run_data import load_run

QUESTIONS = pathlib.Path(__file__).resolve().parents[1] / "data" / "questions.jsonl"


def test_corpus_questions_point_at_real_documents_and_answers(corpus_run, corpus_manifest):
    questions = load_questions(QUESTIONS)
    assert len(questions) >= 20
    assert len({q.id for q in questions}) == len(questions)
    manifest = {row["path"] for row in corpus_manifest}
    run = load_run(str(corpus_run.path))
    for q in questions:
        if q.answer_doc:
            assert q.answer_doc in manifest, q.id
            doc_id = resolve_answer_doc(q.answer_doc, run.documents)
            assert doc_id is not None, q.id
            if q.answer_text:
                assert normalize(q.answer_text) in normalize(run.texts[doc_id]), q.id
        else:
            assert any(normalize(q.answer_text) in normalize(t) for t in run.texts.values())
