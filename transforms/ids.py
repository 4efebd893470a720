"""Stable identifiers: documents by URI, chunks by content, configs by value.

* ``doc_id`` is a function of the document's *key* and the run's namespace:
  the key is the file's path relative to the inputs' common root (``doc_key``,
  ``match/patterns.py``),
  so the same corpus mounted elsewhere, or copied to another bucket, keeps
  its ids; ``--doc-ids absolute`` keys by the whole URI instead (ragbeam's
  behaviour before 0.2, and its exact ids when no namespace is set).
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
    pieces = []
    for part in parts:
        data = part.encode("utf-8", errors="surrogatepass")
        pieces.append(len(data).to_bytes(8, "big"))  # length-prefixed: no ambiguity
        pieces.append(data)
    # One update of the joined bytes hashes what an update per piece would, at a
    # fraction of the calls (a chunk id has six parts, a run tens of thousands of ids).
    return hashlib.sha256(b"".join(pieces)).hexdigest()[:ID_HEX_CHARS]


def canonical_uri(path_or_uri: str) -> str:
    """Local paths become absolute, normalised paths; URIs stay as they are."""
    if "://" in path_or_uri:
        return path_or_uri
    return os.path.abspath(path_or_uri)


DOC_IDS_RELATIVE = "relative"
DOC_IDS_ABSOLUTE = "absolute"
DOC_ID_MODES = (DOC_IDS_RELATIVE, DOC_IDS_ABSOLUTE)


def doc_key(uri: str, root: str, mode: str = DOC_IDS_RELATIVE) -> str:
    """What identifies a file: its path below ``root`` (``/``-separated), its name
    when it is the root itself (a single-object input), or the whole URI in
    ``absolute`` mode or when it is not below ``root``."""
    if mode == DOC_IDS_ABSOLUTE or not root:
        return uri
    if uri == root.rstrip("/"):
        return uri.rsplit("/", 1)[-1]
    prefix = root.rstrip("/") + "/"
    if uri.startswith(prefix) and len(uri) > len(prefix):
        return uri[len(prefix):].replace(os.sep, "/")
    return uri


def doc_id_for(key: str, namespace: str = "") -> str:
    """A document's id from its key (``doc_key``) and the run's namespace. Without a
    namespace the key alone is hashed, so absolute keys give the ids of old runs."""
    if namespace:
        return _digest("ragbeam/doc", namespace, key)
    return _digest("ragbeam/doc", key)


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
