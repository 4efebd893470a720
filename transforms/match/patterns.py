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

ragbeam's own files are never input (``own_folders``): the run's output and its
``--previous`` (``MatchOptions.own_folders``), and any folder the listing shows to
be ragbeam's, an output or a sync's state folder, wherever it lies in the input:
one holding a ``run.json`` that is ragbeam's (by its keys), a ``run.json.partial``,
a sync's ``interrupted.json`` or a claim (``_claims/*.json``;
``schemas/layout.py``). Nothing below such a folder is listed: a run with
``--output out`` inside ``--input .`` read its own claim file and ``run.json``,
and the next run made error rows of the previous run's Parquet files.
"""

from __future__ import annotations

import contextlib
import fnmatch
import itertools
import json
import os
import posixpath
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ragbeam.schemas.layout import (
    CLAIMS_DIR,
    INTERRUPTED_FILE,
    RUN_JSON,
    RUN_JSON_KEYS,
    RUN_JSON_PARTIAL,
)
from ragbeam.transforms import storage
from ragbeam.transforms.ids import canonical_uri

_GLOB_CHARS = re.compile(r"[*?\[]")


@dataclass(frozen=True)
class InputPattern:
    pattern: str  # what ``storage.match`` (as Beam's FileSystems.match) is given
    root: str  # the directory document keys are relative to
    # A remote URI without wildcards or trailing slash: one object, or a folder
    # (a prefix). Which one is only known by listing, so matching decides.
    object_or_folder: bool = False

    def match(self, limit: int | None = None) -> list[storage.FileInfo]:
        """Every file this input matches (``storage.match``: Beam's semantics), or the
        first ``limit`` (the listing stops there: one page on object stores)."""
        # A pattern without wildcards is one existence check, not a listing.
        found = storage.match(self.pattern, limit)
        if found or not self.object_or_folder:
            return found
        folder = self.pattern.rstrip("/")
        return storage.match(f"{folder}/**", limit)



def plain_local_directory(pattern: InputPattern) -> bool:
    """A local directory given as an input (its pattern is ``ROOT/**``)."""
    return ("://" not in pattern.pattern and pattern.pattern == os.path.join(pattern.root, "**")
            and os.path.isdir(pattern.root))


# --- ragbeam's own files -----------------------------------------------------------

def _is_own_run_json(path: str) -> bool:
    """A ``run.json`` ragbeam wrote (its keys), not a file of that name of the user's."""
    try:  # storage.py: without Beam (the early start lists before Beam is imported)
        with storage.open_read(path) as f:
            summary = json.loads(f.read(1 << 22).decode("utf-8"))
    except Exception:  # unreadable, not JSON, too large: not ragbeam's
        return False
    return isinstance(summary, dict) and all(key in summary for key in RUN_JSON_KEYS)


def marked_folder(path: str) -> str | None:
    """The folder ``path`` marks as ragbeam's, if it is one of the files that do
    (see the module doc), else None."""
    folder, name = posixpath.split(path) if "://" in path else os.path.split(path)
    if posixpath.basename(folder.rstrip("/")) == CLAIMS_DIR and name.endswith(".json"):
        return folder.rstrip("/")[:-len(CLAIMS_DIR)].rstrip("/") or "/"
    if name in (RUN_JSON_PARTIAL, INTERRUPTED_FILE) or (name == RUN_JSON
                                                         and _is_own_run_json(path)):
        return folder
    return None


def own_folders(paths: Iterable[str], given: Iterable[str] = ()) -> list[str]:
    """The folders whose files are ragbeam's: ``given`` (the run's output and
    ``--previous``) and those ``paths`` (a listing) mark as ragbeam's."""
    found = {canonical_uri(folder).rstrip("/") for folder in given if folder}
    candidates = {path for path in paths
                  if posixpath.basename(path) in (RUN_JSON, RUN_JSON_PARTIAL, INTERRUPTED_FILE)
                  or f"/{CLAIMS_DIR}/" in path}
    found.update(folder for path in candidates if (folder := marked_folder(path)))
    return sorted(found)


def below_any(path: str, folders: Iterable[str]) -> bool:
    """Whether ``path`` lies in one of ``folders`` (at any depth)."""
    return any(path.startswith(folder.rstrip("/") + ("/" if "://" in folder else os.sep))
               for folder in folders)


def local_directory_files(pattern: InputPattern, include: tuple[str, ...],
                          exclude: tuple[str, ...], limit: int | None = None,
                          own: tuple[str, ...] = ()) -> Iterator[tuple[str, int, float]]:
    """``(path, size, modified)`` of what ``matching_files`` finds in a
    ``plain_local_directory``, except the files below directory links: a local
    directory is listed with ``os.walk`` (links to directories not followed), each
    file with ``os.path.getsize`` and ``getmtime`` (one it cannot stat, a broken link,
    left out), and its ``limit`` counts files before the filters. The early start
    feeds these while the run imports Beam; the Extract stage takes a result only for
    a file the Match stage lists with the same bytes (``transforms/extract/early.py``),
    so a difference would cost time, never a row (``tests/pipeline/test_early_start.py``
    compares the two listings). ragbeam's own folders (``own``, and those marked as
    the module doc says) are left out whole."""
    listed = 0
    given = own_folders((), own)
    for folder, folders, names in os.walk(pattern.root):
        if folder in given or _marks_ragbeam(folder, folders, names):
            folders.clear()
            continue
        for name in names:
            path = os.path.join(folder, name)
            try:
                size, modified = os.path.getsize(path), os.path.getmtime(path)
            except OSError:
                continue
            if limit is not None and listed >= limit:
                return
            listed += 1
            if passes_filters(path, include, exclude):
                yield path, size, modified


def _marks_ragbeam(folder: str, folders: list[str], names: list[str]) -> bool:
    """``own_folders``' rule for one folder of a local walk."""
    paths = [os.path.join(folder, name) for name in names]
    if CLAIMS_DIR in folders:
        with contextlib.suppress(OSError):
            paths += [os.path.join(folder, CLAIMS_DIR, name)
                      for name in os.listdir(os.path.join(folder, CLAIMS_DIR))]
    return any(marked_folder(path) == folder for path in paths)


def input_patterns(inputs: Iterable[str]) -> list[InputPattern]:
    """Every input's pattern once, in a fixed order (two inputs may expand alike)."""
    return sorted({expand_input(raw) for raw in inputs}, key=lambda p: (p.pattern, p.root))


def matching_files(pattern: InputPattern, include: tuple[str, ...], exclude: tuple[str, ...],
                   limit: int | None = None, own: tuple[str, ...] = ()
                   ) -> Iterator[storage.FileInfo]:
    """The files ``pattern`` matches (``InputPattern.match``; the first ``limit``
    listed) that pass the filters, and the files below local directory links
    (``local_links``: the listing does not follow them): the one listing of the Match
    stage, ``ragbeam run --dry-run``, the early start and a night without a pipeline,
    so that they cannot disagree on which files a run has. ragbeam's own files are
    left out (``own_folders``; ``own``: the run's output and ``--previous``)."""
    found = list(pattern.match(limit))
    if limit is None or len(found) < limit:
        linked = (storage.FileInfo(path, size, modified) for kind, path, size, modified
                  in local_links(pattern) if kind == LINKED_FILE)
        found.extend(itertools.islice(linked, None if limit is None else limit - len(found)))
    ours = own_folders((meta.path for meta in found), own)
    return (meta for meta in found if passes_filters(meta.path, include, exclude)
            and not below_any(meta.path, ours))


# What ``local_links`` finds: a file reached through a directory link, a link that
# leads nowhere (dangling, or a loop of links), and a directory link that leads back
# to a folder on its own path (``sub/self -> .``): followed, it would never end.
LINKED_FILE, BROKEN_LINK, DIRECTORY_LOOP = "file", "broken", "loop"


def leads_back(real_target: str, chain: Iterable[str]) -> bool:
    """A directory whose real path is ``real_target``, reached from the folders
    ``chain`` (real paths, the walk's way down): it is one of them or holds one."""
    return any(c == real_target or c.startswith(real_target.rstrip(os.sep) + os.sep)
               for c in chain)


def local_links(pattern: InputPattern) -> Iterator[tuple[str, str, int, float]]:
    """``(kind, path, size, modified)`` of what symbolic links below a local
    ``pattern.root`` lead to, for the paths the pattern matches (sizes and times of
    linked files; -1 and 0 for the others): each directory link is followed once,
    as the folder it names, unless it leads back to a folder on its own path (a
    loop); the files below it are listed under the link's path."""
    if "://" in pattern.pattern or not os.path.isdir(pattern.root):
        return
    matches = re.compile(storage.glob_regex(pattern.pattern)).match
    stack: list[tuple[str, tuple[str, ...], bool]] = [
        (pattern.root, (os.path.realpath(pattern.root),), False)]
    while stack:
        folder, chain, via_link = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            link = entry.is_symlink()
            if not link and entry.is_dir(follow_symlinks=False):
                stack.append((entry.path, (*chain, os.path.realpath(entry.path)), via_link))
                continue
            if not (link or via_link):
                continue  # a plain file Beam's listing has
            try:
                info = os.stat(entry.path)
            except OSError:  # dangling, or a loop of links
                if matches(entry.path):
                    yield BROKEN_LINK, entry.path, -1, 0.0
                continue
            if stat.S_ISDIR(info.st_mode):
                real = os.path.realpath(entry.path)
                if not leads_back(real, chain):
                    stack.append((entry.path, (*chain, real), True))
                elif matches(entry.path):
                    yield DIRECTORY_LOOP, entry.path, -1, 0.0
            elif via_link and matches(entry.path):
                # Beam lists a file (or file link) only outside directory links.
                yield LINKED_FILE, entry.path, info.st_size, info.st_mtime


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


@dataclass(frozen=True)
class InputsCount:
    """What the inputs check found: how many files pass (None: not every input was
    listed whole) and which of ragbeam's own folders it left out."""

    files: int | None
    own: tuple[str, ...] = ()


def count_input_files(inputs: Iterable[str], include: Iterable[str], exclude: Iterable[str],
                      own: Iterable[str] = ()) -> InputsCount:
    """Every input must match at least one file that passes the filters, else
    ``InputsError`` (its ``__cause__`` is a listing error, if any). Lists no further
    than it must: the first files usually answer, and only when none of them passes
    the filters is the whole input listed. Returns how many distinct files pass when
    every input was listed whole (for a progress line's ETA), and ragbeam's own
    folders left out (``own_folders``; ``own``: the output and ``--previous``) that
    hold listed files."""
    include, exclude, own = tuple(include), tuple(exclude), tuple(own)
    left_out: set[str] = set()

    def passing(found: list[Any]) -> list[Any]:
        ours = own_folders((f.path for f in found), own)
        kept = [f for f in found if passes_filters(f.path, include, exclude)]
        left_out.update(folder for folder in ours if any(below_any(f.path, (folder,))
                                                         for f in kept))
        return [f for f in kept if not below_any(f.path, ours)]

    def any_passes(found: list[Any]) -> bool:
        return bool(passing(found))

    paths: set[str] = set()
    whole = True
    for raw in inputs:
        pattern = expand_input(raw)
        try:
            found = pattern.match(limit=FIRST_LISTING)
            if len(found) == FIRST_LISTING and not any_passes(found):
                found = pattern.match()
        except Exception as exc:  # unknown schemes, missing buckets…
            raise InputsError(f"--input {raw!r}: cannot list") from exc
        if not any_passes(found):
            raise InputsError(f"--input {raw!r} matched no files"
                              + (" (after --include/--exclude)" if found else ""))
        whole = whole and len(found) < FIRST_LISTING
        paths.update(f.path for f in passing(found))
    return InputsCount(len(paths) if whole else None, tuple(sorted(left_out)))
