from __future__ import annotations

from ragbeam.transforms.ids import chunk_ids_for, config_fingerprint, doc_id_for


def test_doc_id_depends_only_on_uri():
    assert doc_id_for("/a/b.pdf") == doc_id_for("/a/b.pdf")
    assert doc_id_for("/a/b.pdf") != doc_id_for("/a/c.pdf")
    assert len(doc_id_for("gs://bucket/x")) == 32


def test_identical_chunks_in_one_document_get_distinct_ids():
    ids = chunk_ids_for("d", "c", [("chunk", "same"), ("chunk", "same"), ("chunk", "other")])
    assert len(set(ids)) == 3


def test_chunk_ids_do_not_depend_on_position():
    before = chunk_ids_for("d", "c", [("chunk", "intro"), ("chunk", "body")])
    after = chunk_ids_for("d", "c", [("chunk", "new intro"), ("chunk", "extra"), ("chunk", "body")])
    assert before[1] == after[2]


def test_ids_depend_on_doc_config_and_level():
    base = chunk_ids_for("d", "c", [("chunk", "t")])[0]
    assert chunk_ids_for("e", "c", [("chunk", "t")])[0] != base
    assert chunk_ids_for("d", "x", [("chunk", "t")])[0] != base
    assert chunk_ids_for("d", "c", [("parent", "t")])[0] != base


def test_ids_depend_on_the_contextual_header():
    """A renamed heading above a chunk must change its id (vector stores re-embed it)."""
    old = chunk_ids_for("d", "c", [("chunk", "Guide > Install", "t")])[0]
    assert chunk_ids_for("d", "c", [("chunk", "Guide > Setup", "t")])[0] != old
    assert chunk_ids_for("d", "c", [("chunk", "Guide > Install", "t")])[0] == old


def test_config_fingerprint_ignores_key_order():
    assert config_fingerprint({"a": 1, "b": [1, 2]}) == config_fingerprint({"b": [1, 2], "a": 1})
    assert config_fingerprint({"a": 1}) != config_fingerprint({"a": 2})
