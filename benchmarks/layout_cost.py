"""What the PDF layout pass costs next to Tika's own extraction, per page, same run.

    taskset -c 0 python benchmarks/layout_cost.py [--rounds 3] [--pdfminer] FILE|DIR ...

Per PDF: Tika's extraction (the embedded backend, OCR off) and the layout pass
(``transforms/extract/layout.py``: PDFium through pypdfium2, lines aligned to
Tika's text), CPU seconds of this process, medians of ``--rounds`` rounds that
alternate which goes first; ``--pdfminer``: also pdfminer.six's layout analysis
(``extract_pages`` with default LAParams, font size and name per character),
the alternative the design was chosen against. Issue 29's target: the layout
pass at most 15 % of Tika's time. Also printed: the share of PDFium's lines
found in Tika's text (``align_lines``).
"""

from __future__ import annotations

import argparse
import io
import pathlib
import statistics
import time

from ragbeam.transforms.extract.backends import EmbeddedTika
from ragbeam.transforms.extract.layout import page_layouts
from ragbeam.transforms.extract.xhtml import parse_tika_xhtml


def tika_page_texts(xhtml: str) -> list[str]:
    """Tika's text of each page, from its XHTML's blocks (what cleaning sees)."""
    parsed = parse_tika_xhtml(xhtml)
    pages: dict[int, list[str]] = {}
    for block in parsed.blocks:
        if block.page:
            pages.setdefault(block.page, []).append(
                parsed.raw_text[block.raw_start:block.raw_end])
    return ["\n".join(pages.get(n, [])) for n in range(1, max(pages, default=0) + 1)]


def _pdfminer(data: bytes) -> int:
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTChar, LTTextContainer

    seen = 0
    for page in extract_pages(io.BytesIO(data)):
        for element in page:
            if isinstance(element, LTTextContainer):
                for line in element:
                    for char in getattr(line, "_objs", ()):
                        if isinstance(char, LTChar):
                            seen += int(char.size > 0 and bool(char.fontname))
    return seen


def _cpu(function, *args) -> tuple[float, object]:
    started = time.process_time()
    result = function(*args)
    return time.process_time() - started, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pdfminer", action="store_true")
    parser.add_argument("paths", nargs="+", type=pathlib.Path)
    args = parser.parse_args(argv)
    files = [f for p in args.paths for f in (sorted(p.glob("*.pdf")) if p.is_dir() else [p])]
    tika = EmbeddedTika()
    warm = files[0].read_bytes()
    page_layouts(warm, tika_page_texts(tika.extract(warm, "w.pdf")[0]))
    print(f"{'document':44} {'pages':>5} {'tika s':>7} {'layout s':>8} {'layout/tika':>11} "
          f"{'aligned':>7}" + (f" {'pdfminer/tika':>13}" if args.pdfminer else ""))
    sums = [0.0, 0.0, 0.0]
    pages_total = 0
    for path in files:
        data = path.read_bytes()
        tika_s, layout_s = [], []
        texts: list[str] = []
        layouts = []
        for round_ in range(args.rounds):
            steps = [("tika", tika_s), ("layout", layout_s)]
            for name, times in steps if round_ % 2 == 0 else steps[::-1]:
                if name == "tika":
                    seconds, (xhtml, _) = _cpu(tika.extract, data, path.name)
                    texts = tika_page_texts(xhtml)
                else:
                    seconds, layouts = _cpu(page_layouts, data, texts or None)
                times.append(seconds)
        lines = [line for layout in layouts for line in layout.lines]
        aligned = sum(1 for line in lines if line.tika_start is not None) / max(len(lines), 1)
        t, lay = statistics.median(tika_s), statistics.median(layout_s)
        row = (f"{path.name[:44]:44} {len(layouts):5d} {t:7.3f} {lay:8.3f} {lay / t:11.3f} "
               f"{aligned:7.3f}")
        sums[0] += t
        sums[1] += lay
        pages_total += len(layouts)
        if args.pdfminer:
            miner_s, _ = _cpu(_pdfminer, data)
            sums[2] += miner_s
            row += f" {miner_s / t:13.2f}"
        print(row)
    total = (f"{f'{len(files)} PDFs':44} {pages_total:5d} {sums[0]:7.3f} {sums[1]:8.3f} "
             f"{sums[1] / sums[0]:11.3f} {'':7}")
    if args.pdfminer:
        total += f" {sums[2] / sums[0]:13.2f}"
    print(total)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
