"""Chunk rows → what a vector store holds, and the writes that make the store equal
the ``chunks`` table (pure).

Every store keeps, per chunk id: the vector, the text, and the columns a search
result needs to be cited and filtered (``STORED_FIELDS``). Two ways to get there:

* **full** sync (first run into a store, or a store that cannot be trusted to hold
  the previous run), per chunk id (``full_sync_writes``): every row of the table
  is upserted, every stored id without a row is deleted;
* **incremental** sync (the store holds exactly the previous run's chunks), per
  document (``incremental_writes``): a document that ``changes`` names has every
  row upserted and every named id without a row deleted; other documents are not
  touched. Whole documents, not only the ids ``changes`` lists, because a kept
  chunk of an edited document may have moved (index, offsets, pages) without a
  change row; documents carried over unchanged cannot have.

Either way the chunks table wins: an id with a row is never deleted, an id without
one is never upserted, whatever the change rows say.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from apache_beam.ml.rag.types import Content, EmbeddableItem, Embedding

from ragbeam.schemas.chunks import TEXT_EMBEDDING
from ragbeam.transforms.sink.columns import STORED_FIELDS

UPSERT = "upsert"
DELETE = "delete"



class MissingVector(ValueError):
    """A chunk row without an embedding: a store cannot hold it."""


def stored_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON-able fields of one chunk row that a store keeps (``chunk_id`` included)."""
    fields = {name: row.get(name) for name in STORED_FIELDS}
    fields["chunk_id"] = row["chunk_id"]
    # Rows carried over from Parquet give maps as (key, value) pairs, new rows as dicts.
    fields["metadata"] = dict(fields["metadata"] or {})
    fields["heading_path"] = list(fields["heading_path"] or [])
    return fields


def vector_of(row: Mapping[str, Any]) -> list[float]:
    vector = row.get("embedding")
    if vector is None:
        raise MissingVector(f"chunk {row['chunk_id']} of {row.get('source_uri')} has no "
                            "embedding, so no store can hold it (see the run's embed errors)")
    return [float(x) for x in vector]


def sparse_of(row: Mapping[str, Any]) -> tuple[list[int], list[float]] | None:
    """The row's sparse vector (``--sparse``) as Beam's ``(indices, values)``, if any."""
    sparse = row.get("sparse")
    if sparse is None:
        return None
    return [int(i) for i in sparse["indices"]], [float(v) for v in sparse["values"]]


def vectors_of(row: Mapping[str, Any]) -> list[list[float]]:
    """A ``--text-vector`` row's two vectors, its dense text's then its text's: what a
    store's multivector holds (scored by the closer one)."""
    second = row.get(TEXT_EMBEDDING)
    if second is None:
        raise MissingVector(f"chunk {row['chunk_id']} of {row.get('source_uri')} has no "
                            "text_embedding, so no store can hold its two vectors")
    return [vector_of(row), [float(x) for x in second]]


def embeddable_item(row: Mapping[str, Any], item_id: str, multivector: bool = False
                    ) -> EmbeddableItem:
    """A chunk row as Beam's ``EmbeddableItem``, the input of its vector-store writers:
    ``metadata`` carries the stored fields (the Qdrant payload, the Milvus columns), the
    embedding the dense vector (with ``multivector``, both of ``--text-vector``'s, as a
    list of two) and, with ``--sparse``, the sparse one."""
    dense: Any = vectors_of(row) if multivector else vector_of(row)
    return EmbeddableItem(content=Content(text=row["text"]), id=item_id,
                          index=int(row.get("chunk_index") or 0), metadata=stored_fields(row),
                          embedding=Embedding(dense_embedding=dense,
                                              sparse_embedding=sparse_of(row)))


def full_sync_writes(chunk_id: str, rows: Iterable[Mapping[str, Any]], stored: bool
                     ) -> tuple[str, Any] | None:
    """``(UPSERT, row)`` for an id with a row, ``(DELETE, chunk_id)`` for a stored id
    without one, else None."""
    row = next(iter(rows), None)
    if row is not None:
        return UPSERT, row
    return (DELETE, chunk_id) if stored else None


def incremental_writes(rows: Iterable[Mapping[str, Any]], changes: Iterable[Mapping[str, Any]]
                       ) -> list[tuple[str, Any]]:
    """One document's writes: nothing unless ``changes`` names it; then every row is
    upserted and every changed id without a row deleted."""
    changed_ids = {c["chunk_id"] for c in changes}
    if not changed_ids:
        return []
    rows = list(rows)
    kept = {row["chunk_id"] for row in rows}
    return [*((UPSERT, row) for row in rows),
            *((DELETE, chunk_id) for chunk_id in sorted(changed_ids - kept))]
