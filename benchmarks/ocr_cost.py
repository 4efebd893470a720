"""What OCR costs per page, next to the same extraction with OCR off, in the same run.

    python benchmarks/ocr_cost.py [--corpus ../shared/corpus] [--extra DIR] [--rounds 3]
                                  [--languages eng --languages eng+deu+fra+chi_sim]

Documents, each extracted by the embedded backend with ``--ocr off`` and with
``--ocr auto`` (generous time limits, so nothing is cut short):

* ``scanned-no-text-layer.pdf`` from the shared corpus (one scanned page);
* ``generated-scan-4p.pdf``: four A4 pages of dense text, drawn here with Pillow
  at 200 dpi and saved as a PDF of images (what a flatbed scanner produces);
* every PDF and image in ``--extra DIR`` (docs/benchmarks.md's figures use real scans
  from OCRmyPDF's test resources, listed in ``benchmarks/data/ocr-samples.csv``;
  not in the repository);
* the text PDFs of the shared corpus, as one group: with a text layer, ``auto``
  must cost nothing extra (no page needs OCR, so no second pass is made).

Per round the two settings alternate which goes first (a noisy neighbour on
the shared machine hurts both alike); medians are reported. Printed per
document: OCR'd pages, seconds with OCR off and on, and the OCR cost per page
``(on - off) / pages``; the summary gives the cost per page over all scans.
"""

from __future__ import annotations

import argparse
import io
import pathlib
import random
import statistics
import time

from ragbeam.transforms.extract.backends import EmbeddedTika, ExtractionError, OcrSettings

REPO = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
_WORDS = ("river", "station", "sample", "tide", "sensor", "harbour", "survey", "gauge",
          "current", "salinity", "buoy", "logger", "vessel", "depth", "reading", "crew",
          "weather", "north", "south", "morning", "evening")
_SCANS = {".pdf", ".png", ".jpg", ".jpeg", ".tif", ".tiff"}


def generated_scan(pages: int = 4, dpi: int = 200, seed: int = 3) -> bytes:
    """A PDF of page images: 11 pt text, 16 pt leading, A4, like a scanned report."""
    from PIL import Image, ImageDraw, ImageFont

    rng = random.Random(seed)
    width, height = int(8.27 * dpi), int(11.69 * dpi)
    font = ImageFont.load_default(size=int(11 / 72 * dpi))
    images = []
    for _ in range(pages):
        image = Image.new("L", (width, height), 255)
        draw = ImageDraw.Draw(image)
        y = dpi
        while y < height - dpi:
            draw.text((dpi, y), " ".join(rng.choice(_WORDS) for _ in range(11)), fill=0,
                      font=font)
            y += int(16 / 72 * dpi)
        images.append(image)
    out = io.BytesIO()
    images[0].save(out, "PDF", save_all=True, append_images=images[1:], resolution=dpi)
    return out.getvalue()


def _timed(backend: EmbeddedTika, name: str, data: bytes) -> tuple[float, int]:
    started = time.perf_counter()
    try:
        _, metadata = backend.extract(data, name)
    except ExtractionError:
        return time.perf_counter() - started, 0
    pages = int((metadata.get("ocr_pages") or ["0"])[0])
    return time.perf_counter() - started, pages


def measure(documents: list[tuple[str, bytes]], languages: str, rounds: int
            ) -> list[tuple[str, int, float, float]]:
    """(name, OCR'd pages, median seconds off, median seconds auto) per document."""
    off = EmbeddedTika()
    auto = EmbeddedTika(ocr=OcrSettings(languages=languages, page_timeout_s=600,
                                        document_timeout_s=3600))
    for name, data in documents[:1]:  # warm both up (JVM start, Tesseract model load)
        _timed(off, name, data)
        _timed(auto, name, data)
    results = []
    for name, data in documents:
        times_off, times_on, pages = [], [], 0
        for round_ in range(rounds):
            order = ((off, times_off), (auto, times_on))
            for backend, times in (order if round_ % 2 == 0 else order[::-1]):
                seconds, found = _timed(backend, name, data)
                times.append(seconds)
                if backend is auto:
                    pages = found
        results.append((name, pages, statistics.median(times_off), statistics.median(times_on)))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--extra", type=pathlib.Path, help="more scans (PDFs, images)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--languages", action="append",
                        help="Tesseract languages, repeatable (default: eng)")
    args = parser.parse_args(argv)

    scans = [("scanned-no-text-layer.pdf",
              (args.corpus / "pdf" / "scanned-no-text-layer.pdf").read_bytes()),
             ("generated-scan-4p.pdf", generated_scan())]
    if args.extra:
        scans += [(p.name, p.read_bytes()) for p in sorted(args.extra.iterdir())
                  if p.suffix.lower() in _SCANS]
    text_pdfs = [(p.name, p.read_bytes()) for p in sorted((args.corpus / "pdf").glob("*.pdf"))
                 if p.name != "scanned-no-text-layer.pdf"]
    for languages in args.languages or ["eng"]:
        print(f"--ocr-languages {languages}, {args.rounds} rounds, medians")
        print(f"{'document':34} {'OCR pages':>9} {'off s':>7} {'auto s':>7} {'s / OCR page':>12}")
        results = measure(scans, languages, args.rounds)
        for name, pages, off_s, on_s in results:
            per_page = f"{(on_s - off_s) / pages:12.2f}" if pages else f"{'-':>12}"
            print(f"{name:34} {pages:9d} {off_s:7.2f} {on_s:7.2f} {per_page}")
        pages = sum(r[1] for r in results)
        extra = sum(r[3] - r[2] for r in results if r[1])
        print(f"{'scans: OCR cost per page':34} {pages:9d} {'':7} {'':7} {extra / pages:12.2f}")
        text = measure(text_pdfs, languages, args.rounds)
        off_total, on_total = sum(r[2] for r in text), sum(r[3] for r in text)
        print(f"{f'{len(text)} text PDFs (no page needs OCR)':34} {sum(r[1] for r in text):9d} "
              f"{off_total:7.2f} {on_total:7.2f}   auto/off {on_total / off_total:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
