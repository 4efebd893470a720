"""Make a scanned PDF: the pages of text PDFs, rendered to images, in an image-only PDF.

What a scanner gives: every page a picture, no text layer. The pages come from
real documents (the shared corpus by default), so OCR reads real layouts, and
their text layers (``pdftotext``) are the truth the OCR'd text is compared with.
Rendering is poppler's ``pdftoppm`` (``make ocr`` installs poppler-utils), the
PDF is written by Pillow.

    python benchmarks/scanned_pdf.py --pages 43 --output /tmp/scan-43.pdf
"""

from __future__ import annotations

import argparse
import io
import pathlib
import subprocess
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[1]
# Text PDFs of the shared corpus, 44 pages together: prose, two columns, tables.
DEFAULT_SOURCES = tuple(REPO.parent / "shared" / "corpus" / "pdf" / name for name in (
    "warn-report-table.pdf", "dpr-multi-column.pdf", "langchain-primer-icaens2023.pdf",
    "llncsdoc.pdf"))
SCAN_DPI = 150  # an office scanner's usual setting


def page_count(pdf: pathlib.Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    for line in info.stdout.splitlines():
        if line.startswith("Pages:"):
            return int(line.split()[1])
    raise ValueError(f"pdfinfo does not say how many pages {pdf} has")


def source_pages(sources: tuple[pathlib.Path, ...], pages: int
                 ) -> list[tuple[pathlib.Path, int]]:
    """The first ``pages`` pages of ``sources`` in order, as (file, page number)."""
    chosen: list[tuple[pathlib.Path, int]] = []
    for pdf in sources:
        chosen += [(pdf, n) for n in range(1, page_count(pdf) + 1)]
        if len(chosen) >= pages:
            return chosen[:pages]
    raise ValueError(f"the sources have {len(chosen)} pages, not {pages}")


def page_text(pdf: pathlib.Path, page: int) -> str:
    """A source page's own text layer (the truth for its OCR)."""
    return subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), "-layout", str(pdf),
                           "-"], capture_output=True, text=True, check=True).stdout


def scanned_pdf(pages: int, sources: tuple[pathlib.Path, ...] = DEFAULT_SOURCES,
                dpi: int = SCAN_DPI) -> bytes:
    """An image-only PDF of the first ``pages`` pages of ``sources`` (grey JPEG pages)."""
    from PIL import Image

    images = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (pdf, page) in enumerate(source_pages(sources, pages)):
            root = f"{tmp}/p{i}"
            subprocess.run(["pdftoppm", "-f", str(page), "-l", str(page), "-r", str(dpi),
                            "-gray", "-singlefile", str(pdf), root], check=True)
            with Image.open(root + ".pgm") as image:
                images.append(image.convert("L"))
    out = io.BytesIO()
    images[0].save(out, "PDF", save_all=True, append_images=images[1:], resolution=dpi)
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=43)
    parser.add_argument("--dpi", type=int, default=SCAN_DPI)
    parser.add_argument("--output", type=pathlib.Path, required=True)
    args = parser.parse_args()
    args.output.write_bytes(scanned_pdf(args.pages, dpi=args.dpi))
    print(f"{args.output}: {args.pages} scanned pages at {args.dpi} dpi")


if __name__ == "__main__":
    main()
