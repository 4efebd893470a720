"""Each layer of the output keyed by its own inputs (pure).

A run's output is made in layers, each from the one below and a few options:

* **extraction**: a document's cleaned text and metadata, from its bytes, the
  extraction and cleaning settings and the versions (``RunConfig.extraction_fields``);
* **chunks**: the chunk rows, from the cleaned text and the routing and chunking
  settings (``RunConfig.chunk_fields``; its key is ``config_hash``, in every row and
  in every chunk id);
* **dense** vectors (``chunks.embedding``), from each chunk's embedding text (a chunk
  column) and the model, precision and backend (``RunConfig.dense_fields``);
* **sparse** vectors (``chunks.sparse``), from each chunk's text and the tokenizer's
  scheme and versions (``RunConfig.sparse_record``).

A document is carried over when its bytes and its chunk layer's key are the ones
its previous row recorded (``decide.decide``). The vector layers are decided per
run, not per row: every chunk of a completed run has the vectors its run.json
names (a run embeds every chunk it writes, carried ones too), so comparing the two
runs' keys says what each carried chunk needs (``layer_plan``): its vectors kept,
made again, dropped, or none at all. Switching ``--sparse`` on or off, or changing
the embedding model, re-extracts and re-chunks nothing and keeps every chunk id.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from ragbeam.schemas.chunks import TEXT_EMBEDDING
from ragbeam.transforms.ids import config_fingerprint

LAYERS = ("extraction", "chunks", "dense", "sparse")
# The part of run.json's ``embedding`` record that changes vectors (the rest, such as
# ``chunks_over_window``, is what happened in the run). Older runs recorded it too, so
# their dense key can be worked out; ``text``, what each chunk was embedded from, is
# missing from runs that embedded the contextual header too: their vectors are redone.
DENSE_RECORD_KEYS = ("model", "revision", "dimension", "normalized", "precision", "backend",
                     "text")


def dense_key(embedding_record: Mapping[str, Any] | None) -> str | None:
    """The dense layer's key from an ``embedding`` record (None: no vectors)."""
    if not embedding_record:
        return None
    fields = {k: embedding_record.get(k) for k in DENSE_RECORD_KEYS}
    # Only when set (--text-vector): runs without it keep the key they always had.
    if embedding_record.get("text_vector"):
        fields["text_vector"] = embedding_record["text_vector"]
    return config_fingerprint(fields)


def first_vector_key(embedding_record: Mapping[str, Any] | None) -> str | None:
    """The key of ``chunks.embedding`` alone: the dense layer's key without
    ``text_vector`` (two runs that differ by --text-vector alone have the same one)."""
    if not embedding_record:
        return None
    return dense_key({k: v for k, v in embedding_record.items() if k != "text_vector"})


def sparse_key(sparse_record: Mapping[str, Any] | None) -> str | None:
    """The sparse layer's key from a ``sparse`` record (None: no sparse vectors)."""
    return config_fingerprint(dict(sparse_record)) if sparse_record else None


def recorded_layer_keys(run_json: Mapping[str, Any]) -> dict[str, str | None]:
    """A completed run's layer keys: its ``layers``, or for a run written before
    they were recorded, what its ``config_hash``, ``embedding`` and ``sparse``
    records say (its extraction key is unknown)."""
    layers = run_json.get("layers")
    if isinstance(layers, Mapping):
        return {layer: layers.get(layer) for layer in LAYERS}
    return {"extraction": None, "chunks": run_json.get("config_hash"),
            "dense": dense_key(run_json.get("embedding")),
            "sparse": sparse_key(run_json.get("sparse"))}


class Work(StrEnum):
    """What a carried chunk's vectors of one layer need."""

    KEEP = "keep"  # same key: the previous vectors are this run's
    REDO = "redo"  # another key (or none before): made again
    DROP = "drop"  # this run writes none: the previous ones go
    NONE = "none"  # neither run has them

    @property
    def changes_rows(self) -> bool:
        return self in (Work.REDO, Work.DROP)


def work_for(previous: str | None, current: str | None) -> Work:
    if current is None:
        return Work.DROP if previous is not None else Work.NONE
    return Work.KEEP if previous == current else Work.REDO


@dataclass(frozen=True)
class LayerPlan:
    """What an incremental run does with the vectors of the chunks it carries over
    (and of the previous chunks its re-processed documents could reuse)."""

    dense: Work = Work.NONE
    sparse: Work = Work.NONE
    # The dense layer is redone because --text-vector changed, and nothing else: the
    # previous run's ``embedding`` vectors are this run's, kept; only
    # ``text_embedding`` is made (switched on) or dropped (off).
    first_vector_kept: bool = False

    @property
    def changes_carried_chunks(self) -> bool:
        return self.dense.changes_rows or self.sparse.changes_rows

    def record(self) -> dict[str, str]:
        return {"dense": str(self.dense), "sparse": str(self.sparse)}


def layer_plan(previous: Mapping[str, str | None], current: Mapping[str, str | None],
               previous_embedding: Mapping[str, Any] | None = None,
               current_embedding: Mapping[str, Any] | None = None) -> LayerPlan:
    """The vector layers' work between the previous run's keys and this run's; with
    both runs' ``embedding`` records, whether the dense vectors are kept when only
    --text-vector differs (``first_vector_kept``)."""
    dense = work_for(previous.get("dense"), current.get("dense"))
    first = first_vector_key(previous_embedding)
    kept = (dense is Work.REDO and first is not None
            and first == first_vector_key(current_embedding)
            # the recorded key must be the one its record gives (a record to trust)
            and previous.get("dense") == dense_key(previous_embedding))
    return LayerPlan(dense=dense,
                     sparse=work_for(previous.get("sparse"), current.get("sparse")),
                     first_vector_kept=kept)


def with_layers(row: Mapping[str, Any], plan: LayerPlan,
                sparse_vector: Callable[[Mapping[str, Any]], dict[str, Any]] | None
                ) -> dict[str, Any]:
    """A carried chunk row with its vectors as this run has them: a dense vector to
    redo or drop is cleared (the embed step fills the first kind in again), sparse
    vectors are made again (``sparse_vector``: ``sparse.with_sparse_vector``, needed
    only then) or cleared. Kept layers are left as they are."""
    out = dict(row)
    if plan.dense.changes_rows and plan.first_vector_kept:
        out.pop(TEXT_EMBEDDING, None)  # the embed step makes it again, if this run has one
    elif plan.dense.changes_rows:
        out["embedding"] = None
        out.pop(TEXT_EMBEDDING, None)
    if plan.sparse.changes_rows:
        out["sparse"] = None
    if plan.sparse is Work.REDO:
        if sparse_vector is None:
            raise ValueError("sparse vectors are made again: give sparse_vector")
        out = sparse_vector(out)
    return out


def layers_changed(before: Mapping[str, Any], after: Mapping[str, Any], plan: LayerPlan
                   ) -> bool:
    """Whether a carried chunk's row is not what the previous run wrote, so a store
    holding that run's chunks needs an upsert: a dense vector made again always is
    (another model), one dropped or a sparse vector changed when it differs."""
    if plan.dense is Work.REDO:
        return True
    if plan.dense is Work.DROP and before.get("embedding") is not None:
        return True
    return plan.sparse.changes_rows and _sparse_value(before) != _sparse_value(after)


def _sparse_value(row: Mapping[str, Any]) -> Any:
    value = row.get("sparse")
    if not value:
        return None
    # As stored: the values are float32 in Parquet, a fresh vector's are Python floats.
    return (list(value.get("indices") or ()),
            np.asarray(value.get("values") or (), dtype=np.float32).tobytes())


# ``layer_effects`` when the chunks (and so the documents) stay as they were.
LAYERS_KEPT = "extraction and chunks kept (same chunk ids)"


def layer_effects(previous: Mapping[str, str | None], current: Mapping[str, str | None],
                  rechunk_without_extracting: bool, first_vector_kept: str | None = None
                  ) -> list[str]:
    """What an incremental run redoes, layer by layer, between the previous run's keys
    and this run's (``--dry-run --previous`` names it beside the options that differ):
    a short phrase per layer that is not simply kept. An unknown previous key (a run
    written before the keys were recorded) counts as another key. ``first_vector_kept``:
    what happens to ``chunks.text_embedding`` ("made for every chunk", "dropped from
    every chunk") when the dense layers differ by --text-vector alone
    (``LayerPlan.first_vector_kept``)."""
    out = []
    if previous.get("chunks") != current.get("chunks"):
        if previous.get("extraction") != current.get("extraction") or previous.get(
                "extraction") is None:
            out.append("extraction and chunks redone: every document is extracted again, "
                       "whatever its bytes (new chunk ids)")
        elif rechunk_without_extracting:
            out.append("chunks redone (new chunk ids): documents with the same bytes are "
                       "chunked again from the previous run's text, not extracted")
        else:
            out.append("chunks redone (new chunk ids): every document is processed again")
    rechunked = bool(out)
    vectors = {"dense": "dense vectors", "sparse": "sparse vectors"}
    for layer, name in vectors.items():
        work = work_for(previous.get(layer), current.get(layer))
        if work is Work.REDO and layer == "dense" and first_vector_kept is not None:
            out.append(f"dense vectors kept; chunks.text_embedding {first_vector_kept} "
                       "(only --text-vector differs)")
        elif work is Work.REDO:
            out.append(f"{name} made for every chunk" if previous.get(layer) is None
                       else f"{name} made again for every chunk")
        elif work is Work.DROP:
            out.append(f"{name} dropped from every chunk")
        elif work is Work.KEEP and rechunked:
            out.append(f"{name} made for the new chunks"
                       + (", reused where a chunk's embedding inputs are unchanged"
                          if layer == "dense" else ""))
    return out if rechunked else [LAYERS_KEPT, *out]
