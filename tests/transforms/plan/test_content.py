"""Content identity (duplicates, moves: ``plan/content.py``) as pure functions; the
real runs are in tests/pipeline/test_content_identity.py."""

from __future__ import annotations

import itertools

import pytest

from ragbeam.transforms.ids import chunk_ids_for
from ragbeam.transforms.incremental.reconcile import adopted_rows
from ragbeam.transforms.plan.carry import Move
from ragbeam.transforms.plan.content import resolve
from ragbeam.transforms.plan.decide import CurrentFile, Decided, Outcome
from ragbeam.transforms.route.router import RouteOptions
from ragbeam.transforms.types import SourceFile

CONFIG = "c" * 32
HASH = "a" * 64
ROUTE = RouteOptions()


def _file(doc_id: str, name: str, content_hash: str | None = HASH) -> CurrentFile:
    return CurrentFile(SourceFile(f"/corpus/{name}", doc_id, 10), content_hash)


def _head(doc_id: str, name: str, status: str = "ok", content_hash: str = HASH) -> dict:
    return {"doc_id": doc_id, "source_uri": f"/corpus/{name}", "content_hash": content_hash,
            "status": status, "bytes": 10, "config_hash": CONFIG, "error": None,
            "metadata": {}}


def _never_hash(_: SourceFile) -> str | None:
    raise AssertionError("hashed a file whose hash was known")


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_the_canonical_copy_is_the_smallest_doc_id_in_any_order(order):
    files = [Decided(d, _file(d, f"{d}.txt"), None, Outcome.NEW) for d in ("b", "a", "c")]
    resolved = {r.decided.doc_id: r for r in resolve([files[i] for i in order], CONFIG, ROUTE,
                                                     _never_hash)}
    assert resolved["a"].outcome is Outcome.NEW
    assert [(resolved[d].outcome, resolved[d].duplicate_of) for d in "bc"] == [
        (Outcome.DUPLICATE, "a"), (Outcome.DUPLICATE, "a")]


def test_only_files_of_a_shared_size_are_hashed():
    hashed = []
    alone = Decided("a", _file("a", "a.txt", None), None, Outcome.NEW)
    assert [r.outcome for r in resolve([alone], CONFIG, ROUTE, hashed.append)] == [Outcome.NEW]
    assert hashed == []
    pair = [Decided(d, _file(d, f"{d}.txt", None), None, Outcome.NEW) for d in "ab"]
    resolve(pair, CONFIG, ROUTE, lambda s: hashed.append(s.doc_id) or HASH)
    assert hashed == ["a", "b"]


def test_copies_with_another_extension_are_not_duplicates():
    files = [Decided("a", _file("a", "notes.txt"), None, Outcome.NEW),
             Decided("b", _file("b", "notes.md"), None, Outcome.NEW)]
    assert {r.outcome for r in resolve(files, CONFIG, ROUTE, _never_hash)} == {Outcome.NEW}


def test_a_renamed_file_adopts_the_vanished_document():
    gone = Decided("old", None, _head("old", "handbook.md"), Outcome.DELETED)
    renamed = Decided("new", _file("new", "guide.md"), None, Outcome.NEW)
    resolved = {r.decided.doc_id: r for r in resolve([gone, renamed], CONFIG, ROUTE,
                                                     _never_hash)}
    assert resolved["new"].outcome is Outcome.ADOPTED
    assert resolved["old"].adopter == renamed and not resolved["old"].counts_as_deleted
    verdict = resolved["old"].verdict(CONFIG)
    assert (verdict.outcome, verdict.moved_to, verdict.moved_uri) == (
        "deleted", "new", "/corpus/guide.md")


@pytest.mark.parametrize(("head", "why"), [
    (_head("old", "handbook.md", status="error"), "no good chunks"),
    (_head("old", "handbook.md", content_hash="b" * 64), "other bytes"),
    ({**_head("old", "handbook.md"), "config_hash": "d" * 32}, "other config"),
    (_head("old", "handbook.txt"), "other extension"),
])
def test_no_adoption_without_the_same_output(head, why):
    gone = Decided("old", None, head, Outcome.DELETED)
    renamed = Decided("new", _file("new", "guide.md"), None, Outcome.NEW)
    outcomes = {r.decided.doc_id: r.outcome for r in resolve([gone, renamed], CONFIG, ROUTE,
                                                             _never_hash)}
    assert outcomes == {"old": Outcome.DELETED, "new": Outcome.NEW}, why


def test_a_duplicate_takes_over_when_its_canonical_copy_vanishes():
    canonical = Decided("a", None, _head("a", "faq.txt"), Outcome.DELETED)
    copy = Decided("b", _file("b", "faq-copy.txt"), _head("b", "faq-copy.txt", "duplicate"),
                   Outcome.CHANGED)
    resolved = {r.decided.doc_id: r for r in resolve([canonical, copy], CONFIG, ROUTE,
                                                     _never_hash)}
    assert resolved["b"].outcome is Outcome.ADOPTED and resolved["a"].adopter == copy


def test_a_document_with_chunks_of_its_own_does_not_adopt():
    gone = Decided("old", None, _head("old", "a.txt"), Outcome.DELETED)
    changed = Decided("new", _file("new", "b.txt"), _head("new", "b.txt", content_hash="b" * 64),
                      Outcome.CHANGED)
    outcomes = {r.decided.doc_id: r.outcome for r in resolve([gone, changed], CONFIG, ROUTE,
                                                             _never_hash)}
    assert outcomes == {"old": Outcome.DELETED, "new": Outcome.CHANGED}


def test_adopted_chunks_get_the_ids_a_fresh_run_gives():
    identities = [("chunk", "Guide", "Intro."), ("chunk", "Guide", "Same."),
                  ("chunk", "Guide", "Same.")]
    old_ids = chunk_ids_for("old", CONFIG, identities)
    chunks = [{"chunk_id": cid, "doc_id": "old", "parent_id": None, "chunk_index": i,
               "level": level, "context": context, "text": text, "source_uri": "/c/a.md",
               "metadata": {}, "embedding": [float(i)]}
              for i, (cid, (level, context, text))
              in enumerate(zip(old_ids, identities, strict=True))]
    document = {**_head("old", "a.md"), "text": "Intro. Same. Same.", "metadata": {}}
    row, rewritten = adopted_rows(document, reversed(chunks), Move("new", "/c/b.md", "12.0"))
    assert [c["chunk_id"] for c in rewritten] == chunk_ids_for("new", CONFIG, identities)
    assert [c["embedding"] for c in rewritten] == [[0.0], [1.0], [2.0]]
    assert {c["doc_id"] for c in rewritten} == {"new"} == {row["doc_id"]}
    assert row["status"] == "unchanged" and row["metadata"]["moved_from"] == "old"
    assert row["metadata"]["source_modified"] == "12.0"
