"""Each layer keyed by its own inputs: the pure rules (``plan/layers.py``)."""

from __future__ import annotations

import pytest

from ragbeam.pipeline.config import MatchOptions, RunConfig
from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.clean.document import CleanOptions
from ragbeam.transforms.embed.model import EmbeddingOptions
from ragbeam.transforms.embed.sparse import with_sparse_vector
from ragbeam.transforms.plan.layers import (
    LayerPlan,
    Work,
    dense_key,
    layer_plan,
    layers_changed,
    recorded_layer_keys,
    sparse_key,
    with_layers,
)


def _config(**fields) -> RunConfig:
    return RunConfig(match=MatchOptions(inputs=("x",)), output="o", **fields)


def test_vector_options_leave_the_chunk_layer_and_so_the_chunk_ids_alone():
    base = _config()
    for other in (_config(sparse=True), _config(embed_chunks=True),
                  _config(embed_chunks=True, embedding=EmbeddingOptions(precision="bf16")),
                  _config(embed_chunks=True, embedding=EmbeddingOptions(batch_size=3))):
        assert other.config_hash == base.config_hash
        assert other.layer_keys["extraction"] == base.layer_keys["extraction"]
    assert _config(sparse=True).layer_keys["sparse"] is not None
    assert base.layer_keys["dense"] is None and base.layer_keys["sparse"] is None
    vectors = {_config(embed_chunks=True, embedding=EmbeddingOptions(precision=p)
                       ).layer_keys["dense"] for p in ("fp32", "bf16")}
    assert len(vectors) == 2
    # Batch size is speed only.
    assert (_config(embed_chunks=True, embedding=EmbeddingOptions(batch_size=3)).layer_keys
            == _config(embed_chunks=True).layer_keys)


def test_chunking_redoes_chunks_and_cleaning_redoes_extraction_too():
    base = _config()
    chunking = _config(chunk=ChunkOptions(size=300))
    assert chunking.config_hash != base.config_hash
    assert chunking.layer_keys["extraction"] == base.layer_keys["extraction"]
    cleaning = _config(clean=CleanOptions(dehyphenate=False))
    assert cleaning.layer_keys["extraction"] != base.layer_keys["extraction"]
    assert cleaning.config_hash != base.config_hash


def test_semantic_chunking_puts_the_model_in_the_chunk_layer():
    from ragbeam.transforms.route.router import RouteOptions

    semantic = RouteOptions(forced_strategy="semantic")
    one = _config(route=semantic, embedding=EmbeddingOptions(precision="fp32"))
    other = _config(route=semantic, embedding=EmbeddingOptions(precision="bf16"))
    assert one.config_hash != other.config_hash
    # Writing the vectors too does not change where the breakpoints are.
    assert _config(route=semantic, embed_chunks=True,
                   embedding=EmbeddingOptions(precision="fp32")).config_hash == one.config_hash


def test_a_run_json_without_layers_gives_its_keys_from_its_records():
    embedding = {"model": "m", "revision": "r", "dimension": 384, "normalized": True,
                 "precision": "fp32", "backend": "torch", "chunks_over_window": 3}
    sparse = {"scheme": "s", "versions": {"bm25s": "1"}}
    old = {"config_hash": "c" * 32, "embedding": embedding, "sparse": sparse}
    keys = recorded_layer_keys(old)
    assert keys == {"extraction": None, "chunks": "c" * 32, "dense": dense_key(embedding),
                    "sparse": sparse_key(sparse)}
    # What happened in the run is not what made the vectors.
    assert dense_key({**embedding, "chunks_over_window": 0}) == keys["dense"]
    assert dense_key({**embedding, "precision": "bf16"}) != keys["dense"]
    recorded = {"layers": {"extraction": "e", "chunks": "c", "dense": None, "sparse": "s"}}
    assert recorded_layer_keys(recorded) == recorded["layers"]


@pytest.mark.parametrize(("before", "now", "work"), [
    (None, None, Work.NONE), ("a", "a", Work.KEEP), ("a", "b", Work.REDO),
    (None, "b", Work.REDO), ("a", None, Work.DROP)])
def test_each_vector_layer_is_kept_redone_or_dropped(before, now, work):
    plan = layer_plan({"dense": before, "sparse": before}, {"dense": now, "sparse": now})
    assert plan == LayerPlan(dense=work, sparse=work)
    assert plan.changes_carried_chunks == (work in (Work.REDO, Work.DROP))


def _chunk(**fields) -> dict:
    return {"chunk_id": "c1", "doc_id": "d1", "source_uri": "/a.txt", "text": "Sondes are "
            "calibrated weekly in the cold room.", "context": "", "embedding": [0.5, 0.5],
            "sparse": None, **fields}


def test_a_carried_chunk_gets_this_runs_vectors():
    row = _chunk()
    added = with_layers(row, LayerPlan(dense=Work.KEEP, sparse=Work.REDO), with_sparse_vector)
    assert added["embedding"] == [0.5, 0.5] and added["sparse"] == with_sparse_vector(row)["sparse"]
    assert layers_changed(row, added, LayerPlan(dense=Work.KEEP, sparse=Work.REDO))
    # The same sparse vector again (read back as float32) is no change for a store.
    again = with_layers(added, LayerPlan(sparse=Work.REDO), with_sparse_vector)
    stored = {**added, "sparse": {"indices": added["sparse"]["indices"],
                                  "values": [float(f"{v:.7g}") for v in added["sparse"]["values"]]}}
    assert not layers_changed(stored, again, LayerPlan(sparse=Work.REDO))
    dropped = with_layers(added, LayerPlan(dense=Work.DROP, sparse=Work.DROP), with_sparse_vector)
    assert dropped["embedding"] is None and dropped["sparse"] is None
    assert layers_changed(added, dropped, LayerPlan(dense=Work.DROP, sparse=Work.DROP))
    redo = with_layers(row, LayerPlan(dense=Work.REDO), with_sparse_vector)
    assert redo["embedding"] is None  # for the embed step
    assert layers_changed(row, redo, LayerPlan(dense=Work.REDO))
    kept = with_layers(row, LayerPlan(dense=Work.KEEP, sparse=Work.NONE), with_sparse_vector)
    assert kept == row and not layers_changed(row, kept, LayerPlan(dense=Work.KEEP))


def test_layer_effects_name_what_a_run_redoes_layer_by_layer():
    from ragbeam.transforms.plan.layers import LAYERS_KEPT, layer_effects

    keys = {"extraction": "e", "chunks": "c", "dense": "d", "sparse": None}
    assert layer_effects(keys, keys, False) == [LAYERS_KEPT]
    assert layer_effects(keys, {**keys, "sparse": "s"}, False) == [
        LAYERS_KEPT, "sparse vectors made for every chunk"]
    assert layer_effects(keys, {**keys, "dense": "d2"}, False) == [
        LAYERS_KEPT, "dense vectors made again for every chunk"]
    assert layer_effects(keys, {**keys, "dense": None}, False) == [
        LAYERS_KEPT, "dense vectors dropped from every chunk"]
    rechunk = layer_effects(keys, {**keys, "chunks": "c2"}, True)
    assert rechunk[0].startswith("chunks redone (new chunk ids): documents with the same "
                                 "bytes are chunked again")
    assert rechunk[1] == ("dense vectors made for the new chunks, reused where a chunk's "
                          "embedding inputs are unchanged")
    assert layer_effects(keys, {**keys, "chunks": "c2"}, False)[0].endswith(
        "every document is processed again")
    # Another extraction key, or a previous run that recorded none: extracted again.
    for previous in (keys, {**keys, "extraction": None}):
        assert layer_effects(previous, {**keys, "extraction": "e2", "chunks": "c2"},
                             False)[0].startswith("extraction and chunks redone")


def test_a_dense_layer_that_differs_by_the_text_vector_alone_keeps_the_first_vectors():
    one, two = _config(embed_chunks=True), _config(embed_chunks=True, text_vector=True)
    # (auto resolves to a precision per machine: the other one is named.)
    other = "bf16" if one.embedding_record()["precision"] == "fp32" else "fp32"
    other_model = _config(embed_chunks=True, text_vector=True,
                          embedding=EmbeddingOptions(precision=other))
    for before, now in ((one, two), (two, one)):
        plan = layer_plan(before.layer_keys, now.layer_keys, before.embedding_record(),
                          now.embedding_record())
        assert plan.dense is Work.REDO and plan.first_vector_kept
    # Another model (or precision) too: every vector is made again.
    assert not layer_plan(one.layer_keys, other_model.layer_keys, one.embedding_record(),
                          other_model.embedding_record()).first_vector_kept
    # No records (a run.json that cannot be read), or a recorded key its record does not
    # give: nothing is kept.
    assert not layer_plan(one.layer_keys, two.layer_keys).first_vector_kept
    assert not layer_plan({**one.layer_keys, "dense": "other"}, two.layer_keys,
                          one.embedding_record(), two.embedding_record()).first_vector_kept
    # The same key: kept as ever (no redo at all).
    same = layer_plan(two.layer_keys, two.layer_keys, two.embedding_record(),
                      two.embedding_record())
    assert same.dense is Work.KEEP and not same.first_vector_kept

    row = {"chunk_id": "c", "embedding": [1.0, 0.0], "text_embedding": [0.0, 1.0],
           "sparse": None}
    kept = with_layers(row, LayerPlan(dense=Work.REDO, first_vector_kept=True), None)
    assert kept["embedding"] == [1.0, 0.0] and "text_embedding" not in kept
    assert layers_changed(row, kept, LayerPlan(dense=Work.REDO, first_vector_kept=True))
    redone = with_layers(row, LayerPlan(dense=Work.REDO), None)
    assert redone["embedding"] is None and "text_embedding" not in redone

    from ragbeam.transforms.plan.layers import layer_effects

    assert layer_effects(one.layer_keys, two.layer_keys, False, "made for every chunk") == [
        "extraction and chunks kept (same chunk ids)",
        "dense vectors kept; chunks.text_embedding made for every chunk (only --text-vector "
        "differs)"]
