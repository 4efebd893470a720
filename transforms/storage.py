"""Files wherever a run keeps them, without importing Beam where it can be helped.

Local paths and ``gs://`` are served here: the standard library for local files,
google-cloud-storage's client for GCS (imported on first use; the client Beam's own
GCS filesystem wraps). Every other scheme (``s3://``, ``hdfs://``, …) goes through
Beam's ``FileSystems``, imported then. So a launcher that only lists inputs, reads
a previous run and writes a small output (an unchanged night,
``pipeline/unchanged.py``; the checks before a run) starts without Beam's import,
the largest part of its cost, and the pipeline's own steps reach the same files
the same way.

The semantics are Beam's, so that a listing here and one in Beam agree file for
file: a pattern is matched as ``FileSystem.match`` does (the part before its first
wildcard is a folder listed recursively on a local disk, a prefix on GCS; ``*``
stops at ``/``, ``**`` does not; a pattern ending in ``/`` matches what is below);
times are seconds since the epoch as Beam's filesystems report them; ``exists``
on GCS asks for an object (a "folder" is none); ``delete`` removes a local folder
with what it holds, and on GCS a path ending in ``/`` removes every object under
it. Bytes are read and written as they are (no decompression by extension).
"""

from __future__ import annotations

import functools
import io
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterable, Iterator
from typing import IO, Any, NamedTuple

GCS = "gs"
_SCHEME = re.compile(r"(?P<scheme>[a-zA-Z][-a-zA-Z0-9+.]*)://")
_WILDCARD = re.compile(r"[\[*?]")
# Bytes copied at a time between two file systems.
COPY_BLOCK_BYTES = 8 << 20


class FileInfo(NamedTuple):
    """A listed file, with the attribute names of Beam's ``FileMetadata``."""

    path: str
    size_in_bytes: int
    last_updated_in_seconds: float


def scheme(path: str) -> str:
    """``gs``, ``s3``…; "" for a local path."""
    found = _SCHEME.match(path)
    return found.group("scheme").lower() if found else ""


def _beam(path: str) -> Any:
    """Beam's ``FileSystems`` for a scheme this module does not serve itself."""
    from apache_beam.io.filesystems import FileSystems

    return FileSystems


def _served(path: str) -> bool:
    return scheme(path) in ("", GCS)


def join(base: str, *parts: str) -> str:
    """``base`` and ``parts`` joined as the path's file system joins them."""
    if not scheme(base):
        return os.path.join(base, *parts)
    out = base
    for part in parts:
        out = out.rstrip("/") + "/" + part.lstrip("/") if out else part
    return out


def glob_regex(pattern: str) -> str:
    """The regular expression a file pattern stands for, as Beam's
    ``FileSystem.translate_pattern`` reads one: ``*`` is any run of characters but
    ``/`` and ``\\``, ``**`` any run at all, ``?`` one character, ``[…]`` a class
    (``[!…]`` its complement), anything else itself; the whole path must match."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            if i < n and pattern[i] == "*":
                out.append(".*")
                i += 1
            else:
                out.append(r"[^/\\]*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            end = i + (i < n and pattern[i] == "!")
            end += end < n and pattern[end] == "]"
            while end < n and pattern[end] != "]":
                end += 1
            if end >= n:  # no closing bracket: a plain "["
                out.append(r"\[")
                continue
            members = pattern[i:end].replace("\\", "\\\\")
            i = end + 1
            if members.startswith("!"):
                members = "^" + members[1:]
            elif members.startswith("^"):
                members = "\\" + members
            out.append(f"[{members}]")
        else:
            out.append(re.escape(c))
    return r"(?ms)" + "".join(out) + r"\Z"


# --- Listing ----------------------------------------------------------------------------

def match(pattern: str, limit: int | None = None) -> list[FileInfo]:
    """The files ``pattern`` matches (the first ``limit`` listed), as Beam's
    ``FileSystems.match`` finds them."""
    if not _served(pattern):
        return [FileInfo(m.path, m.size_in_bytes, m.last_updated_in_seconds)
                for m in _beam(pattern).match([pattern], [limit])[0].metadata_list]
    if pattern.endswith(("/", "\\")):
        pattern += "*"
    prefix = _WILDCARD.split(pattern, 1)[0]
    if prefix == pattern:  # no wildcard: one existence check, not a listing
        info = _info(pattern)
        return [info] if info is not None else []
    matches = re.compile(glob_regex(pattern)).match
    listed = _local_files(os.path.dirname(prefix)) if not scheme(pattern) \
        else _gcs_files(prefix)
    found = []
    for info in listed:
        if limit is not None and len(found) >= limit:
            break
        if matches(info.path):
            found.append(info)
    return found


def _local_files(folder: str) -> Iterator[FileInfo]:
    """Every file below ``folder`` (links to folders not followed; a file that cannot
    be read for its size and time, such as a broken link, left out)."""
    if not os.path.exists(folder):
        return
    for parent, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(parent, name)
            try:
                yield FileInfo(path, os.path.getsize(path), os.path.getmtime(path))
            except OSError:
                continue


def _info(path: str) -> FileInfo | None:
    if not scheme(path):
        try:
            return FileInfo(path, os.path.getsize(path), os.path.getmtime(path))
        except OSError:
            return None
    bucket, name = _gcs_parts(path)
    blob = _gcs_client().bucket(bucket).get_blob(name)
    return None if blob is None else FileInfo(path, blob.size, _gcs_seconds(blob.updated))


def exists(path: str) -> bool:
    if not scheme(path):
        return os.path.exists(path)
    if scheme(path) == GCS:
        return _gcs_blob(path).exists()
    return _beam(path).exists(path)


def mkdirs(path: str) -> None:
    """The folder and its parents (none needed on an object store)."""
    if not scheme(path):
        os.makedirs(path, exist_ok=True)
    elif scheme(path) != GCS and not _beam(path).exists(path):
        _beam(path).mkdirs(path)


# --- Reading and writing -------------------------------------------------------------

def open_read(path: str) -> IO[bytes]:
    """The file's bytes, as they are stored."""
    if not scheme(path):
        return open(path, "rb")
    if scheme(path) == GCS:
        return _gcs_blob(path).open("rb")
    from apache_beam.io.filesystem import CompressionTypes

    return _beam(path).open(path, compression_type=CompressionTypes.UNCOMPRESSED)


def create(path: str) -> IO[bytes]:
    """A new file (replacing one there; a local one's folders made as needed), written
    as it is; complete once closed."""
    if not scheme(path):
        if folder := os.path.dirname(path):
            os.makedirs(folder, exist_ok=True)
        return open(path, "wb")
    if scheme(path) == GCS:
        return _GcsWriter(path)
    from apache_beam.io.filesystem import CompressionTypes

    return _beam(path).create(path, compression_type=CompressionTypes.UNCOMPRESSED)


def read_bytes(path: str) -> bytes:
    with open_read(path) as f:
        return f.read()


def write_bytes(path: str, data: bytes) -> None:
    with create(path) as f:
        f.write(data)


def copy(source: str, destination: str) -> None:
    """Copy one file, also from one file system to another (a previous run in a
    bucket, a new one on local disk)."""
    if scheme(source) == scheme(destination) == "":
        shutil.copyfile(source, destination)
    elif scheme(source) == scheme(destination) == GCS:
        blob = _gcs_blob(source)
        target = _gcs_blob(destination)
        blob.bucket.copy_blob(blob, target.bucket, target.name)
    elif scheme(source) == scheme(destination):
        _beam(source).copy([source], [destination])
    else:
        with open_read(source) as read, create(destination) as write:
            while block := read.read(COPY_BLOCK_BYTES):
                write.write(block)


def rename(source: str, destination: str) -> None:
    """Move one file in place of ``destination`` (atomic on a local disk; on an object
    store the new object appears whole)."""
    if not scheme(source):
        os.replace(source, destination)
    elif scheme(source) == GCS:
        copy(source, destination)
        _gcs_blob(source).delete()
    else:
        _beam(source).rename([source], [destination])


def delete(paths: Iterable[str]) -> None:
    """Remove each path: a local folder with what it holds; on GCS a path ending in
    ``/`` removes every object below it, any other one the object of that name.
    A path that is not there is an error (``FileNotFoundError``)."""
    for path in paths:
        if not scheme(path):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.remove(path)
        elif scheme(path) == GCS:
            if path.endswith("/"):
                bucket, prefix = _gcs_parts(path)
                for blob in _gcs_client().list_blobs(bucket, prefix=prefix):
                    blob.delete()
            else:
                blob = _gcs_blob(path)
                if not blob.exists():
                    raise FileNotFoundError(path)
                blob.delete()
        else:
            _beam(path).delete([path])


# --- Google Cloud Storage -------------------------------------------------------------

@functools.cache
def _gcs_client() -> Any:
    """One client per process (Application Default Credentials; the emulator's
    ``STORAGE_EMULATOR_HOST`` is read by the library itself)."""
    from google.cloud import storage

    return storage.Client()


def _gcs_parts(path: str) -> tuple[str, str]:
    rest = path[len("gs://"):]
    bucket, _, name = rest.partition("/")
    if not bucket:
        raise ValueError(f"{path!r}: no bucket")
    return bucket, name


def _gcs_blob(path: str) -> Any:
    bucket, name = _gcs_parts(path)
    return _gcs_client().bucket(bucket).blob(name)


def _gcs_seconds(updated: Any) -> float:
    """An object's update time as Beam's GCS filesystem reports it (its formula, so
    that times recorded by one and compared by the other are the same float)."""
    return (time.mktime(updated.timetuple()) - time.timezone
            + updated.microsecond / 1000000.0)


def _gcs_files(prefix: str) -> Iterator[FileInfo]:
    bucket, name = _gcs_parts(prefix)
    seen: set[str] = set()
    for blob in _gcs_client().list_blobs(bucket, prefix=name):
        path = f"gs://{bucket}/{blob.name}"
        if path not in seen:
            seen.add(path)
            yield FileInfo(path, blob.size, _gcs_seconds(blob.updated))


class _GcsWriter(io.RawIOBase):
    """A new object, spooled to a local temporary file and uploaded whole on close
    (an object store has no partial objects: a crash before leaves none)."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self._path = path
        self._spool = tempfile.SpooledTemporaryFile(max_size=COPY_BLOCK_BYTES)  # noqa: SIM115

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        return self._spool.write(data)

    def tell(self) -> int:
        return self._spool.tell()

    def close(self) -> None:
        if self.closed:
            return
        try:
            self._spool.seek(0)
            _gcs_blob(self._path).upload_from_file(self._spool, rewind=True)
        finally:
            self._spool.close()
            super().close()
