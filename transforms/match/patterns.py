"""Input patterns and include/exclude filters (pure)."""

from __future__ import annotations

import fnmatch
import os
import posixpath

from ragbeam.transforms.ids import canonical_uri


def expand_input(path_or_pattern: str) -> str:
    """A directory becomes a recursive glob; local paths become absolute."""
    uri = canonical_uri(path_or_pattern)
    if "://" not in uri and os.path.isdir(uri):
        return os.path.join(uri, "**")
    return uri


def passes_filters(uri: str, include: tuple[str, ...], exclude: tuple[str, ...]) -> bool:
    """Globs match the whole URI or just the file name (``*.pdf`` works as expected)."""
    name = posixpath.basename(uri.rstrip("/"))

    def hit(pattern: str) -> bool:
        return fnmatch.fnmatch(uri, pattern) or fnmatch.fnmatch(name, pattern)

    if include and not any(hit(p) for p in include):
        return False
    return not any(hit(p) for p in exclude)
