"""Embedding reuse: only when everything the embedder sees is identical."""

from __future__ import annotations

from ragbeam.transforms.incremental.embeddings import embedding_source, with_reused_embedding

NEW = {"chunk_id": "c1", "doc_id": "d1", "text": "Boats need a trip plan.",
       "context": "Guide > Boats", "embedding": None, "char_start": 120}


def _previous(**changes) -> dict:
    row = {**NEW, "char_start": 80, "embedding": [0.5, 0.25], **changes}
    return {**embedding_source(row), "doc_id": row["doc_id"]}


def test_same_inputs_reuse_the_previous_vector_even_if_the_chunk_moved():
    assert with_reused_embedding(NEW, [_previous()])["embedding"] == [0.5, 0.25]


def test_a_different_context_or_embed_text_is_embedded_again():
    assert with_reused_embedding(NEW, [_previous(context="Guide > Old name")])["embedding"] is None
    assert with_reused_embedding(NEW, [_previous(embed_text="Guide > Boats\n\nx")])[
        "embedding"] is None


def test_nothing_to_reuse():
    assert with_reused_embedding(NEW, [])["embedding"] is None
    assert with_reused_embedding(NEW, [_previous(embedding=None)])["embedding"] is None
    # A vector the current run already has is kept.
    assert with_reused_embedding({**NEW, "embedding": [1.0]}, [_previous()])["embedding"] == [1.0]


def test_reuse_embeddings_in_a_real_beam_pipeline():
    import apache_beam as beam
    from apache_beam.testing.util import assert_that, equal_to

    from ragbeam.pipeline.runner import make_pipeline, pipeline_options
    from ragbeam.transforms.incremental.embeddings import embedding_key
    from ragbeam.transforms.incremental.reuse_embeddings import ReuseEmbeddings

    kept = {**NEW, "chunk_id": "kept"}
    moved_header = {**NEW, "chunk_id": "renamed", "context": "Guide > New name"}
    fresh = {**NEW, "chunk_id": "fresh", "text": "Boats need a new trip plan."}
    # Another chunk id (a new chunking: the chunk layer's key is in the id), the same
    # text and header: the same vector.
    rechunked = {**NEW, "chunk_id": "rechunked", "doc_id": "d2"}
    other_document = {**NEW, "chunk_id": "elsewhere", "doc_id": "d3"}
    olds = [_previous(chunk_id="kept"), _previous(context="Guide > Old name"),
            _previous(text="Gone."), _previous(doc_id="d2", chunk_id="before"),
            _previous(doc_id="d4")]
    previous = [(embedding_key(row), row) for row in olds]
    with make_pipeline(pipeline_options([])) as p:  # the local runner ragbeam uses
        rows = {
            "current": p | "Current" >> beam.Create([kept, moved_header, fresh, rechunked,
                                                     other_document]),
            "previous": p | "Previous" >> beam.Create(previous),
        } | ReuseEmbeddings()
        assert_that(rows | beam.Map(lambda r: (r["chunk_id"], r["embedding"])),
                    equal_to([("kept", [0.5, 0.25]), ("renamed", None), ("fresh", None),
                              ("rechunked", [0.5, 0.25]), ("elsewhere", None)]))
