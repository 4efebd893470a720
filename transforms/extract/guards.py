"""Size guards around extraction (pure): archive bombs before, text size after.

Before extraction, ``check_archive`` looks inside zip-based files (zip, DOCX,
XLSX, PPTX, ODF, EPUB, JAR…) and gzip streams without extracting anything to
disk, and rejects them when

* the entries declare more than ``max_unpacked_bytes`` in total, nested
  archives included (their sizes multiply);
* the unpacked size is over ``ratio_floor_bytes`` *and* more than
  ``max_ratio`` times the packed size (a zip of zeros packs 1000:1; real
  office documents pack 3–20:1);
* there are more than ``max_entries`` entries (checked from the end-of-central-
  directory record before any entry is parsed), or archives are nested more
  than ``max_depth`` levels deep.

Zip sizes are the ones the central directory declares: cheap to read, and an
upper bound for anything reading the file through its directory. A crafted
entry whose header understates its size is not caught here; the extraction
process's memory cap and time limit, and Tika's own output-ratio check, are the
backstop. Gzip has no trustworthy size field, so it is decompressed in a
streaming loop that stops as soon as a limit is crossed (memory stays at one
64 KiB block). Other containers (tar, 7z, rar, bzip2, xz) are left to those
backstops too.

After extraction, ``check_extracted_text`` refuses text over ``max_chars``.
The embedded extractor is told to stop writing a little past ``max_chars``
(``extractor_string_limit``), so a huge document costs at most that much
memory and is recognised as too large, never silently truncated.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_MAX_TEXT_CHARS = 50_000_000

_ZIP_LOCAL = b"PK\x03\x04"
_ZIP_EMPTY = b"PK\x05\x06"
_EOCD = struct.Struct("<IHHHHIIH")  # end of central directory record
_GZIP = b"\x1f\x8b"
_READ_BLOCK = 64 * 1024


class ArchiveBombError(Exception):
    """An archive that would unpack to far more than it should."""


class TextTooLargeError(Exception):
    """Extraction produced more text than the configured limit."""


@dataclass(frozen=True)
class ArchiveLimits:
    max_unpacked_bytes: int = 1 << 30  # 1 GiB
    max_ratio: float = 100.0
    ratio_floor_bytes: int = 16 << 20  # the ratio rule applies above 16 MiB unpacked
    max_entries: int = 10_000
    max_depth: int = 3  # an archive inside an archive inside an archive


@dataclass(frozen=True)
class ArchiveReport:
    """What the guard saw in an accepted archive."""

    kind: str  # "zip" | "gzip"
    entries: int
    unpacked_bytes: int
    depth: int


def _eocd_entry_count(data: bytes) -> int | None:
    """Entry count from the end-of-central-directory record (None: zip64 or not found)."""
    at = data.rfind(_ZIP_EMPTY, max(0, len(data) - 65_557))
    if at < 0 or at + _EOCD.size > len(data):
        return None
    total = _EOCD.unpack_from(data, at)[4]
    return None if total == 0xFFFF else total


def _fmt(n: float) -> str:
    return f"{n:,.0f}"


class _Inspection:
    def __init__(self, packed_bytes: int, limits: ArchiveLimits) -> None:
        self.limits = limits
        self.packed = packed_bytes
        self.unpacked = 0
        self.entries = 0
        self.depth = 0

    def add(self, unpacked: int) -> None:
        self.unpacked += unpacked
        self.check()

    def check(self) -> None:
        lim = self.limits
        if self.unpacked > lim.max_unpacked_bytes:
            raise ArchiveBombError(
                f"archive bomb: unpacks to over {_fmt(self.unpacked)} bytes "
                f"(limit {_fmt(lim.max_unpacked_bytes)}) from {_fmt(self.packed)} bytes; "
                "not extracted")
        ratio = self.unpacked / max(self.packed, 1)
        if self.unpacked > lim.ratio_floor_bytes and ratio > lim.max_ratio:
            raise ArchiveBombError(
                f"archive bomb: {_fmt(self.packed)} bytes unpack to over "
                f"{_fmt(self.unpacked)} bytes, a ratio of {ratio:,.1f}:1 "
                f"(limit {lim.max_ratio:g}:1); not extracted")

    def zip(self, data: bytes, depth: int) -> bool:
        """Count a zip's entries and what they unpack to; False if it is not a readable zip."""
        lim = self.limits
        self.depth = max(self.depth, depth)
        if depth > lim.max_depth:
            raise ArchiveBombError(
                f"archive bomb: archives nested more than {lim.max_depth} levels deep; "
                "not extracted")
        declared = _eocd_entry_count(data)
        if declared is not None and self.entries + declared > lim.max_entries:
            raise ArchiveBombError(
                f"archive bomb: over {_fmt(self.entries + declared)} entries "
                f"(limit {_fmt(lim.max_entries)}); not extracted")
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
            infos = archive.infolist()
        except (zipfile.BadZipFile, ValueError, EOFError, NotImplementedError):
            return False  # not a readable zip: Tika decides what it is
        self.entries += len(infos)
        if self.entries > lim.max_entries:
            raise ArchiveBombError(
                f"archive bomb: over {_fmt(self.entries)} entries "
                f"(limit {_fmt(lim.max_entries)}); not extracted")
        for info in infos:
            self.add(info.file_size)
        for info in infos:
            if info.is_dir() or info.file_size < len(_ZIP_EMPTY):
                continue
            nested = self._nested_archive(archive, info)
            if nested is None:
                continue
            # The entry counts by what it unpacks to, not by its own size.
            self.unpacked -= len(nested)
            parsed = (self.gzip(nested, depth + 1) if nested.startswith(_GZIP)
                      else self.zip(nested, depth + 1))
            if not parsed:
                self.unpacked += len(nested)
        return True

    def _nested_archive(self, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes | None:
        try:
            with archive.open(info) as entry:
                head = entry.read(4)
                if not head.startswith((_ZIP_LOCAL, _ZIP_EMPTY, _GZIP)):
                    return None
                # Declared size was already checked against the limits, so this
                # read is bounded.
                return head + entry.read()
        except (zipfile.BadZipFile, RuntimeError, NotImplementedError, zlib.error,
                EOFError, ValueError):
            return None  # encrypted or damaged entry: nothing to look into

    def gzip(self, data: bytes, depth: int) -> bool:
        """Count what a gzip stream inflates to, stopping at the first limit crossed."""
        self.depth = max(self.depth, depth)
        self.entries += 1
        remaining = data
        try:
            while remaining.startswith(_GZIP):  # one loop per gzip member
                inflater = zlib.decompressobj(wbits=31)
                pending = remaining
                while pending and not inflater.eof:
                    out = inflater.decompress(pending, _READ_BLOCK)
                    pending = inflater.unconsumed_tail
                    self.add(len(out))
                remaining = inflater.unused_data
        except zlib.error:
            return False  # damaged stream: Tika reports it
        return True


def check_archive(data: bytes, limits: ArchiveLimits | None = None) -> ArchiveReport | None:
    """Raise ``ArchiveBombError`` for a bomb; describe an accepted archive; None if not one."""
    limits = limits or ArchiveLimits()
    inspection = _Inspection(len(data), limits)
    if data.startswith(_GZIP):
        inspection.gzip(data, 0)
        kind = "gzip"
    elif data.startswith((_ZIP_LOCAL, _ZIP_EMPTY)):
        inspection.zip(data, 0)
        kind = "zip"
    else:
        return None
    return ArchiveReport(kind, inspection.entries, inspection.unpacked, inspection.depth)


def extractor_string_limit(max_text_chars: int) -> int:
    """Where to tell Tika to stop writing for a text limit of ``max_text_chars``.

    Tika's write limit also counts characters outside the body (the title…)
    and does not always flag a cut (plain text is cut silently), so it is set
    a little above the limit: a cut document still shows more body text than
    allowed and is refused, never passed on truncated.
    """
    return max_text_chars + max(10_000, max_text_chars // 50)


def check_extracted_text(text_chars: int, metadata: Mapping[str, list[str]], max_chars: int
                         ) -> None:
    """Refuse text over ``max_chars``, including text the extractor stopped writing."""
    truncated = any(v.lower() == "true"
                    for v in metadata.get("X-TIKA:EXCEPTION:write_limit_reached", ()))
    if text_chars > max_chars or truncated:
        raise TextTooLargeError(
            f"extracted text is over the --max-text-chars limit of {_fmt(max_chars)} "
            f"characters (stopped at {_fmt(text_chars)}); not processed")
