"""Reuse the previous run's chunk embeddings instead of recomputing them (pure).

A vector depends on what the embedder is given and on the model (the dense layer's
key: a previous run's vectors are offered only when it is this run's), so the
previous vectors of a re-processed document meet its new rows on those inputs
(``embedding_key``), whatever the chunk ids. What an embedder sees may also include
the contextual header (``context``, or ``embed_text`` when it is written), which
can change without the text changing (a renamed heading above the chunk), so a
previous embedding is reused only when every one of those inputs is identical.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from ragbeam.schemas.chunks import TEXT_EMBEDDING

# Everything an embedder may be given for a chunk; missing columns compare as None.
EMBEDDING_INPUTS = ("text", "context", "embed_text")


def embedding_key(row: Mapping[str, Any]) -> tuple[str, str]:
    """What a previous vector and a new chunk row meet on: the document and a hash
    of everything the embedder is given. Not the chunk id: that names the chunk
    layer's key too, so after a new chunking (``reuse_extraction.py``) a chunk whose
    text and header did not change still has its vector."""
    inputs = json.dumps([row.get(c) for c in EMBEDDING_INPUTS], ensure_ascii=False)
    return row["doc_id"], hashlib.sha256(inputs.encode("utf-8", "surrogatepass")).hexdigest()


def embedding_source(row: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a previous chunk row that reuse needs: its embedding inputs and vector."""
    return {**{c: row.get(c) for c in EMBEDDING_INPUTS}, "embedding": row.get("embedding"),
            TEXT_EMBEDDING: row.get(TEXT_EMBEDDING)}


def _reusable(current: Mapping[str, Any], previous: Iterable[Mapping[str, Any]]
              ) -> Mapping[str, Any] | None:
    for candidate in previous:
        if candidate.get("embedding") is not None and all(
            candidate.get(c) == current.get(c) for c in EMBEDDING_INPUTS
        ):
            return candidate
    return None


def reusable_embedding(current: Mapping[str, Any], previous: Iterable[Mapping[str, Any]]
                       ) -> list[float] | None:
    """The previous embedding of the same chunk id, if its inputs are identical."""
    candidate = _reusable(current, previous)
    return None if candidate is None else list(candidate["embedding"])


def with_reused_embedding(current: Mapping[str, Any], previous: Iterable[Mapping[str, Any]]
                          ) -> dict[str, Any]:
    """``current`` with the previous vector filled in when it can be reused, and its
    ``text_embedding`` (``--text-vector``) with it: the previous run's dense key is
    this run's, so it has one exactly when this run makes one. The embed stage then
    only embeds rows whose ``embedding`` is still None."""
    row = dict(current)
    if row.get("embedding") is None:
        candidate = _reusable(current, previous)
        if candidate is not None:
            row["embedding"] = list(candidate["embedding"])
            if candidate.get(TEXT_EMBEDDING) is not None:
                row[TEXT_EMBEDDING] = list(candidate[TEXT_EMBEDDING])
    return row
