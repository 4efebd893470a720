"""Stable identifiers: documents by URI, chunks by content, configs by value.

* ``doc_id`` is a function of the source URI only.
* ``chunk_id`` is a function of the doc id, the config fingerprint, the chunk's
  identity — its level, contextual header (title, heading path) and text — and
  how many chunks with the same identity came before it in the same document.
  Offsets are deliberately left out: an edit early in a document must not
  change the ids of untouched chunks after it. The context is in: a renamed
  heading changes what a vector store should hold for the chunks under it, so
  their ids change and the change set upserts them.
* ``config_hash`` fingerprints every option that changes the output.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from typing import Any

ID_HEX_CHARS = 32  # 128 bits: collisions are not a practical concern


def _digest(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", errors="surrogatepass")
        h.update(len(data).to_bytes(8, "big"))  # length-prefixed: no ambiguity
        h.update(data)
    return h.hexdigest()[:ID_HEX_CHARS]


def canonical_uri(path_or_uri: str) -> str:
    """Local paths become absolute, normalised paths; URIs stay as they are."""
    if "://" in path_or_uri:
        return path_or_uri
    return os.path.abspath(path_or_uri)


def doc_id_for(source_uri: str) -> str:
    return _digest("ragbeam/doc", source_uri)


def chunk_ids_for(
    doc_id: str, config_hash: str, identities: Iterable[tuple[str, ...]]
) -> list[str]:
    """Ids for a document's chunks, each given by its identity, e.g.
    ``(level, context, text)``, in output order."""
    seen: dict[tuple[str, ...], int] = {}
    ids = []
    for identity in identities:
        occurrence = seen.get(identity, 0)
        seen[identity] = occurrence + 1
        ids.append(_digest("ragbeam/chunk", doc_id, config_hash, *identity, str(occurrence)))
    return ids


def config_fingerprint(config: Any) -> str:
    """Hash of a JSON-able config value, independent of key order."""
    return _digest("ragbeam/config", json.dumps(config, sort_keys=True, default=str))


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
