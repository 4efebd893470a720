"""A document's pages for ``ragbeam viz``: where each page begins in the text, a picture
of each PDF page, and where each chunk's lines and each removed line sit on it.

* **Page boundaries** come from the run itself: ``documents.spans`` gives every cleaned
  line its page, so any paged format (PDF, slides) shows them, even when the source file
  is gone.
* **Pictures**: PDFium (pypdfium2, as the layout pass) renders each page at ``dpi``;
  Pillow writes it as WebP, the smaller of a 16-colour lossless image (text and line art:
  crisp, about 70 KB for a page of dense text at 100 dpi) and a lossy one (photographs,
  which 16 colours would dither into noise).
* **Line boxes**: the layout pass of the document extracted again
  (``transforms/extract/layout.py``) places every Tika line on its page; the run's spans
  carry each cleaned line's offsets in Tika's raw text, so each line's box gets the
  chunks whose characters it holds. Only drawn when the text cleaned again is the run's
  text, character for character: otherwise the offsets could point at other lines.
"""

from __future__ import annotations

import bisect
import io
import pathlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from PIL import Image

DEFAULT_DPI = 100
# Pages rendered lossless in this many colours (text, rules, line art); a lossy image
# is kept instead where it is smaller (a photograph).
LOSSLESS_COLOURS = 16
LOSSY_QUALITY = 50


class Span(NamedTuple):
    """One element of ``documents.spans`` (``schemas/documents.py``): a cleaned line's
    range in the text, its page, and its range in Tika's raw text."""

    start: int
    end: int
    page: int | None
    raw_start: int
    raw_end: int

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Span:
        return cls(int(row["start"]), int(row["end"]), row.get("page"),
                   int(row.get("raw_start", -1)), int(row.get("raw_end", -1)))


class LineBox(NamedTuple):
    """A line drawn on a page picture: its box in points from the displayed page's
    top-left corner, the chunks holding its characters (indexes into the document's
    indexed chunks), and, for a line furniture removal took, its template group."""

    page: int
    x0: float
    top: float
    x1: float
    bottom: float
    text: str
    chunks: tuple[int, ...] = ()
    removed: str | None = None


def page_starts(spans: Iterable[Span]) -> list[tuple[int, int]]:
    """``(offset, page)`` where each page's text begins, in text order. A page only
    begins once: a line that refers back to an earlier page (a float, a link target) is
    not a boundary; a page without text has none."""
    starts: list[tuple[int, int]] = []
    last = 0
    for span in spans:
        if span.page is not None and span.page > last:
            starts.append((span.start, span.page))
            last = span.page
    return starts


# ``viz.segments``: the text cut at every chunk edge, each piece with the chunks covering it.
Pieces = Sequence[tuple[int, int, tuple[int, ...]]]


def chunk_line_boxes(spans: Sequence[Span], layout: Any, pieces: Pieces) -> list[LineBox]:
    """Every placed line of the text (``layout``: the ``PdfLayout`` whose raw text the
    spans' raw offsets refer to) with the chunks holding its characters (``pieces``). A
    span of several Tika lines (a table, a code block) gives each of them; lines of one
    Tika line (a line the cleaner split) share one box."""
    piece_starts = [p[0] for p in pieces]
    line_starts = [line.raw_start for line in layout.lines]
    boxes: dict[int, set[int]] = {}
    for span in spans:
        if span.raw_start < 0:
            continue
        chunks = None
        i = max(bisect.bisect_right(line_starts, span.raw_start) - 1, 0)
        while i < len(layout.lines) and layout.lines[i].raw_start < max(span.raw_end,
                                                                        span.raw_start + 1):
            if layout.lines[i].raw_end > span.raw_start:
                if chunks is None:
                    chunks = _covering(pieces, piece_starts, span.start, span.end)
                boxes.setdefault(i, set()).update(chunks)
            i += 1
    return [LineBox(line.page, line.x0, line.top, line.x1, line.bottom, "",
                    tuple(sorted(boxes[i])))
            for i in sorted(boxes) for line in (layout.lines[i],)]


def _covering(pieces: Pieces, starts: Sequence[int], start: int, end: int) -> set[int]:
    found: set[int] = set()
    i = max(bisect.bisect_right(starts, start) - 1, 0)
    while i < len(pieces) and pieces[i][0] < end:
        found.update(pieces[i][2])
        i += 1
    return found


def removed_line_boxes(template_lines: Iterable[Any]) -> list[LineBox]:
    """The lines furniture removal took (``clean.document.page_template``'s lines with a
    group), where the layout placed them."""
    return [LineBox(line.page, *line.box, line.text, (), line.group)
            for line in template_lines if line.group and line.box is not None]


def render_page_images(data: bytes, folder: pathlib.Path, dpi: int = DEFAULT_DPI
                       ) -> list[str]:
    """Each page of the PDF ``data`` as ``folder/p0001.webp``…; returns the file names.
    Pages as displayed (their /Rotate applied), as the layout's boxes are."""
    import pypdfium2 as pdfium

    folder.mkdir(parents=True, exist_ok=True)
    names = []
    pdf = pdfium.PdfDocument(data)
    try:
        for index in range(len(pdf)):
            page = pdf[index]
            try:
                image = page.render(scale=dpi / 72).to_pil()
            finally:
                page.close()
            name = f"p{index + 1:04d}.webp"
            (folder / name).write_bytes(encode_page(image))
            names.append(name)
    finally:
        pdf.close()
    return names


def encode_page(image: Any) -> bytes:
    """A rendered page as WebP: 16-colour lossless or lossy, whichever is smaller."""
    rgb = image.convert("RGB")
    lossless = io.BytesIO()
    rgb.quantize(LOSSLESS_COLOURS, method=Image.Quantize.FASTOCTREE).convert("RGB").save(
        lossless, "WEBP", lossless=True)
    lossy = io.BytesIO()
    rgb.save(lossy, "WEBP", quality=LOSSY_QUALITY)
    return min(lossless.getvalue(), lossy.getvalue(), key=len)
