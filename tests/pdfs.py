"""PDFs made in tests: lines of Helvetica drawn where a test says, read back by real Tika
and real PDFium (``cleaned``) as a run reads them."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from dataclasses import dataclass

from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.extract.backends import EmbeddedTika
from ragbeam.transforms.extract.document import build_extracted_document
from ragbeam.transforms.types import Document, ExtractedDocument, FetchedFile, SourceFile

from conftest import REPO

WORDS = ("harbour", "crane", "quay", "berth", "pilot", "tide", "vessel", "cargo", "dredge",
         "buoy", "anchor", "ferry", "lock", "pier", "tug", "wharf", "dock", "mooring")


def sentence(page: int, line: int) -> str:
    """A body line no other line repeats."""
    picked = [WORDS[(page * 7 + line * 3 + k * 5) % len(WORDS)] for k in range(6)]
    return (f"On day {page * 40 + line} the {picked[0]} team checked the {picked[1]} and the "
            f"{picked[2]} near the {picked[3]} {picked[4]}.")


@dataclass(frozen=True)
class Text:
    """One line drawn on a page: PDF user space (origin bottom-left), font size, bold,
    rotated 90 degrees (up the page)."""

    text: str
    x: float
    y: float
    size: float = 11.0
    bold: bool = False
    rotated: bool = False


def _escape(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")


def make_pdf(pages: list[list[Text]], links: list[list[str]] | None = None,
             size: tuple[int, int] = (612, 792)) -> bytes:
    """A PDF of Helvetica (and Helvetica-Bold) lines; ``links``: per page, link targets
    whose annotations sit in the page's footer."""
    spec = importlib.util.spec_from_file_location(
        "furniture_generated", REPO / "benchmarks" / "furniture_generated.py")
    generator = sys.modules.get(spec.name)
    if generator is None:
        generator = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = generator
        spec.loader.exec_module(generator)
    objects = {3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
                  b"/Encoding /WinAnsiEncoding >>",
               4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold "
                  b"/Encoding /WinAnsiEncoding >>"}
    kids = []
    for p, lines in enumerate(pages):
        ops = []
        for line in lines:
            font = b"/F2" if line.bold else b"/F1"
            matrix = (b"0 1 -1 0 %.1f %.1f Tm" if line.rotated else b"1 0 0 1 %.1f %.1f Tm") % (
                line.x, line.y)
            ops.append(b"BT %s %.1f Tf %s (%s) Tj ET" % (font, line.size, matrix,
                                                         _escape(line.text)))
        stream = b"\n".join(ops)
        number = max(objects) + 1
        annots = b""
        for k, uri in enumerate((links or [[]] * len(pages))[p] if links else []):
            objects[number + 2 + k] = (b"<< /Type /Annot /Subtype /Link /Rect [%d 20 %d 30] "
                                       b"/Border [0 0 0] /A << /S /URI /URI (%s) >> >>"
                                       % (72 + 100 * k, 160 + 100 * k, _escape(uri)))
        if links and links[p]:
            annots = b" /Annots [" + b" ".join(b"%d 0 R" % (number + 2 + k)
                                                for k in range(len(links[p]))) + b"]"
        objects[number] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources "
                           b"<< /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R%s >>"
                           % (*size, number + 1, annots))
        objects[number + 1] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
        kids.append(number)
    return generator.serialise_pdf(objects, kids)


def extracted(data: bytes) -> ExtractedDocument:
    """A PDF as the Extract stage hands it on (embedded Tika, the layout pass)."""
    xhtml, metadata = EmbeddedTika().extract(data, "t.pdf")
    fetched = FetchedFile(SourceFile("t.pdf", "t", len(data)), data,
                          hashlib.sha256(data).hexdigest())
    return build_extracted_document(fetched, xhtml, metadata)


def cleaned(data: bytes) -> Document:
    return clean_document(extracted(data), CleanOptions())


def body(page: int, top: float = 700.0, lines: int = 14, x: float = 72.0) -> list[Text]:
    return [Text(sentence(page, k), x, top - 15 * k) for k in range(lines)]
