"""Near-duplicates: the same text from other bytes (pure).

A re-saved file, other line endings or another container give the same text from
other bytes; such documents are detected after extraction and reported, not
deduplicated (``near_duplicate_groups``): two documents are near-duplicates when
their texts are equal after case folding and whitespace collapsing, and at least
``NEAR_DUPLICATE_MIN_CHARS`` long (short texts, such as a title page alone, are
equal by accident too often to say anything). Identical bytes (duplicates, moves)
are a run plan's decision: ``transforms/plan/content.py``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

NEAR_DUPLICATE_MIN_CHARS = 200


def text_fingerprint(text: str | None) -> str | None:
    """What near-duplicates share: a hash of the text, case-folded, whitespace
    collapsed; None for a text too short to compare."""
    normalised = " ".join((text or "").casefold().split())
    if len(normalised) < NEAR_DUPLICATE_MIN_CHARS:
        return None
    return hashlib.sha256(normalised.encode("utf-8", errors="surrogatepass")).hexdigest()


def near_duplicate_groups(documents: Iterable[tuple[str, str, str | None]]
                          ) -> list[list[tuple[str, str]]]:
    """``(text fingerprint, source URI, content hash)`` of documents → groups of
    ``(uri, content hash)`` with one text but more than one content hash, each
    sorted, sorted by first URI."""
    by_text: dict[str, dict[str, str | None]] = {}
    for fingerprint, uri, content_hash in documents:
        by_text.setdefault(fingerprint, {})[uri] = content_hash
    return sorted(
        (sorted(members.items()) for members in by_text.values()
         if len(set(members.values())) > 1),
        key=lambda group: group[0][0])
