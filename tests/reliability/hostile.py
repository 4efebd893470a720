"""A hostile corpus, generated on the fly: every file is built here from a few
lines of code, so the repository holds no binary fixtures for it.

Each builder returns the file's bytes; ``write_hostile_corpus`` lays them out
in a directory and returns what each one is expected to become.
"""

from __future__ import annotations

import io
import os
import random
import struct
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass


def blank_png(width: int = 32, height: int = 32) -> bytes:
    """A white RGB PNG: an image without any text."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    raw = b"".join(b"\x00" + b"\xff" * width * 3 for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


def pdf_with_pages(texts: list[str]) -> bytes:
    """A valid PDF with one page per text (Helvetica, one line each), correct xref."""
    count = len(texts)
    # Object numbers: 1 catalog, 2 pages, 3 font, then (page, content) pairs.
    objects: dict[int, bytes] = {}
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(count))
    objects[1] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[2] = f"<< /Type /Pages /Count {count} /Kids [{kids}] >>".encode()
    objects[3] = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
    for i, text in enumerate(texts):
        page, content = 4 + 2 * i, 5 + 2 * i
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode("latin-1")
        objects[page] = (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                         f"/Resources << /Font << /F1 3 0 R >> >> /Contents {content} 0 R >>"
                         ).encode()
        objects[content] = (f"<< /Length {len(stream)} >>\nstream\n".encode() + stream
                            + b"\nendstream")
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = out.tell()
        out.write(f"{number} 0 obj\n".encode() + objects[number] + b"\nendobj\n")
    xref_at = out.tell()
    size = max(objects) + 1
    out.write(f"xref\n0 {size}\n0000000000 65535 f \n".encode())
    for number in range(1, size):
        out.write(f"{offsets[number]:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {size} /Root 1 0 R >>\nstartxref\n{xref_at}\n%%EOF\n".encode())
    return out.getvalue()


def varied_page_texts(count: int, seed: int = 7) -> list[str]:
    """One short, different sentence per page (identical lines on every page would be
    removed as running headers by the cleaner)."""
    rng = random.Random(seed)
    words = ("river", "station", "sample", "tide", "sensor", "harbour", "survey", "gauge",
             "current", "salinity", "buoy", "logger", "vessel", "depth", "reading", "crew")
    return [" ".join(rng.choice(words) for _ in range(6)).capitalize() + "." for _ in
            range(count)]


def truncated(data: bytes, keep: float = 0.5) -> bytes:
    return data[: int(len(data) * keep)]


def with_broken_xref(pdf: bytes) -> bytes:
    """Every xref offset points at the wrong place (PDF readers must rebuild it)."""
    head, _, tail = pdf.rpartition(b"xref\n")
    lines = tail.split(b"\n")
    broken = [b"%010d 00000 n " % (7 + i * 13) if line.endswith(b" n ") else line
              for i, line in enumerate(lines)]
    return head + b"xref\n" + b"\n".join(broken)


def random_bytes(size: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(size)


def _zip_entry_headers(name: bytes, crc: int, csize: int, usize: int, offset: int
                       ) -> tuple[bytes, bytes]:
    import struct

    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, csize, usize,
                        len(name), 0) + name
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0x21, crc, csize,
                          usize, len(name), 0, 0, 0, 0, 0, offset) + name
    return local, central


def zip_of_zeros(entries: int, entry_bytes: int, name: str = "zeros-{}.txt") -> bytes:
    """A zip bomb: ``entries`` files of ``entry_bytes`` zeros each, deflated once and
    stored ``entries`` times (so building a 1 GiB bomb costs one 64 MiB deflate)."""
    import struct

    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    deflated = compressor.compress(bytes(entry_bytes)) + compressor.flush()
    crc = zlib.crc32(bytes(entry_bytes))
    out = io.BytesIO()
    central = []
    for i in range(entries):
        local, central_entry = _zip_entry_headers(name.format(i).encode(), crc, len(deflated),
                                                  entry_bytes, out.tell())
        out.write(local)
        out.write(deflated)
        central.append(central_entry)
    directory_at = out.tell()
    directory = b"".join(central)
    out.write(directory)
    out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, entries, entries, len(directory),
                          directory_at, 0))
    return out.getvalue()


def nested_zips(depth: int, fanout: int = 2) -> bytes:
    """A zip holding ``fanout`` copies of a zip holding … ``depth`` levels down."""
    inner = b"the innermost text file\n" * 100
    name = "leaf.txt"
    for level in range(depth):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for copy in range(fanout):
                archive.writestr(f"{copy}-{name}", inner)
        inner, name = buffer.getvalue(), f"level-{level}.zip"
    return inner


def deeply_nested_html(depth: int) -> bytes:
    return (b"<html><body>" + b"<div>" * depth + b"deep text" + b"</div>" * depth
            + b"</body></html>")


def single_line_text(size: int) -> bytes:
    """``size`` bytes of words and no line break at all."""
    words = b"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod "
    return (words * (size // len(words) + 1))[:size]


def invalid_utf8_text() -> bytes:
    good = b"Valid text before and after the broken bytes. " * 20
    return good + b"\xff\xfe\xc3\x28\xa0\xa1\xe2\x28\xa1\xf0\x28\x8c\xbc\x80" * 10 + good


def nul_bytes_text() -> bytes:
    return b"Text with NUL\x00 bytes\x00\x00 inside every line.\n" * 200


def mixed_scripts_text() -> bytes:
    lines = [
        "English, then العربية من اليمين إلى اليسار, then עברית, then 中文句子。",
        "Emoji 👩‍👩‍👧‍👦 🏳️‍🌈 🇯🇵 and combining marks: e\u0301 a\u0308 Z\u0335\u0321\u031a.",
        "Mixed RTL override \u202eesrever\u202c and zero-width\u200bjoiner\u200d here.",
        "Devanagari हिन्दी, Thai ภาษาไทย, Korean 한국어, Cyrillic кириллица.",
    ]
    return ("\n\n".join(lines * 50) + "\n").encode("utf-8")


@dataclass(frozen=True)
class HostileFile:
    name: str
    build: Callable[[], bytes]
    status: str  # "ok" or "error"
    stage: str | None = None  # stage of the error row, for errors
    phrase: str = ""  # regular expression the error message must match


def write_hostile_corpus(directory: str, files: list[HostileFile]) -> dict[str, HostileFile]:
    """Write every file; returns absolute path → its expectation."""
    os.makedirs(directory, exist_ok=True)
    expected = {}
    for f in files:
        path = os.path.join(directory, f.name)
        with open(path, "wb") as out:
            out.write(f.build())
        expected[os.path.abspath(path)] = f
    return expected
