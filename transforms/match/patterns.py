"""Input patterns, their roots, and include/exclude filters.

Every ``--input`` becomes an ``InputPattern``: the Beam file pattern to match,
and its *root*. A directory is matched recursively and is its own root; a
glob's root is the directory before its first wildcard; a single file's root
is its directory (a remote URI that may be an object or a folder counts as a
folder). Document keys (``ids.doc_key``) are relative to the common root of
every input (``id_root``): one input's own root, or, for several, the folder
they share. So keys never collide (two files are two paths below one root),
overlapping inputs agree on one key, and moving the whole corpus (another mount
point, another bucket) keeps every key.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ragbeam.transforms.ids import canonical_uri

_GLOB_CHARS = re.compile(r"[*?\[]")


@dataclass(frozen=True)
class InputPattern:
    pattern: str  # what Beam's FileSystems.match is given
    root: str  # the directory document keys are relative to
    # A remote URI without wildcards or trailing slash: one object, or a folder
    # (a prefix). Which one is only known by listing, so matching decides.
    object_or_folder: bool = False

    def match(self, limit: int | None = None) -> list[Any]:
        """``FileMetadata`` of every file this input matches (Beam's filesystems), or
        of the first ``limit`` (the listing stops there: one page on object stores)."""
        from apache_beam.io.filesystems import FileSystems

        # A pattern without wildcards is one existence check, not a listing.
        found = FileSystems.match([self.pattern], [limit])[0].metadata_list
        if found or not self.object_or_folder:
            return found
        folder = self.pattern.rstrip("/")
        return FileSystems.match([f"{folder}/**"], [limit])[0].metadata_list



def input_patterns(inputs: Iterable[str]) -> list[InputPattern]:
    """Every input's pattern once, in a fixed order (two inputs may expand alike)."""
    return sorted({expand_input(raw) for raw in inputs}, key=lambda p: (p.pattern, p.root))


def matching_files(pattern: InputPattern, include: tuple[str, ...], exclude: tuple[str, ...],
                   limit: int | None = None) -> Iterator[Any]:
    """``FileMetadata`` of the files ``pattern`` matches (``InputPattern.match``, Beam's
    file systems; the first ``limit`` listed) that pass the filters: the one listing
    of the Match stage, ``ragbeam run --dry-run`` and the early start, so that they
    cannot disagree on which files a run has."""
    return (meta for meta in pattern.match(limit) if passes_filters(meta.path, include, exclude))


def _is_glob(uri: str) -> bool:
    return _GLOB_CHARS.search(uri) is not None


def _glob_root(uri: str) -> str:
    before_wildcard = uri[:_GLOB_CHARS.search(uri).start()]
    return before_wildcard.rsplit("/", 1)[0] if "/" in before_wildcard else before_wildcard


def expand_input(path_or_pattern: str) -> InputPattern:
    """A directory (local, or a remote prefix with or without a trailing ``/``)
    becomes a recursive glob rooted at itself; local paths become absolute.
    Nothing remote is contacted here (graphs are built where the store may be
    out of reach): a remote URI that may be an object or a folder is resolved
    when it is matched."""
    uri = canonical_uri(path_or_pattern)
    if _is_glob(uri):
        return InputPattern(uri, _glob_root(uri))
    if "://" not in uri:
        if os.path.isdir(uri):
            return InputPattern(os.path.join(uri, "**"), uri)
        return InputPattern(uri, os.path.dirname(uri))
    if uri.endswith("/"):
        folder = uri.rstrip("/")
        return InputPattern(f"{folder}/**", folder)
    return InputPattern(uri, uri, object_or_folder=True)


def passes_filters(uri: str, include: tuple[str, ...], exclude: tuple[str, ...]) -> bool:
    """Globs match the whole URI or just the file name (``*.pdf`` works as expected)."""
    name = posixpath.basename(uri.rstrip("/"))

    def hit(pattern: str) -> bool:
        return fnmatch.fnmatch(uri, pattern) or fnmatch.fnmatch(name, pattern)

    if include and not any(hit(p) for p in include):
        return False
    return not any(hit(p) for p in exclude)


def id_root(patterns: Iterable[InputPattern]) -> str:
    """The folder every input's root lies in: document keys are relative to it.
    Empty when the inputs share none (different file systems or buckets): keys are
    then whole URIs."""
    split = [_split_root(p.root) for p in patterns]
    if not split or len({prefix for prefix, _ in split}) != 1:
        return ""
    prefix = split[0][0]
    if prefix:  # scheme://bucket: paths are posix
        common = posixpath.commonpath([path or "/" for _, path in split])
        return prefix + ("" if common == "/" else common)
    return os.path.commonpath([path for _, path in split])


def _split_root(root: str) -> tuple[str, str]:
    """``gs://bucket/a/b`` → ``("gs://bucket", "/a/b")``; a local path → ``("", path)``."""
    if "://" not in root:
        return "", root
    scheme, rest = root.split("://", 1)
    bucket, _, path = rest.partition("/")
    return f"{scheme}://{bucket}", "/" + path.rstrip("/") if path else ""


class InputsError(ValueError):
    """An input that matches no file (after the filters), or cannot be listed."""


# Files listed first per input: on an object store, one page of the listing.
FIRST_LISTING = 1000


def count_input_files(inputs: Iterable[str], include: Iterable[str], exclude: Iterable[str]
                      ) -> int | None:
    """Every input must match at least one file that passes the filters, else
    ``InputsError`` (its ``__cause__`` is a listing error, if any). Lists no further
    than it must: the first files usually answer, and only when none of them passes
    the filters is the whole input listed. Returns how many distinct files pass when
    every input was listed whole (for a progress line's ETA), else None."""
    include, exclude = tuple(include), tuple(exclude)

    def any_passes(found: list[Any]) -> bool:
        return any(passes_filters(f.path, include, exclude) for f in found)

    paths: set[str] = set()
    whole = True
    for raw in inputs:
        pattern = expand_input(raw)
        try:
            found = pattern.match(limit=FIRST_LISTING)
            if len(found) == FIRST_LISTING and not any_passes(found):
                found = pattern.match()
        except Exception as exc:  # BeamIOError for unknown schemes, missing buckets…
            raise InputsError(f"--input {raw!r}: cannot list") from exc
        if not any_passes(found):
            raise InputsError(f"--input {raw!r} matched no files"
                              + (" (after --include/--exclude)" if found else ""))
        whole = whole and len(found) < FIRST_LISTING
        paths.update(f.path for f in found if passes_filters(f.path, include, exclude))
    return len(paths) if whole else None
