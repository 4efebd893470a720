"""What the PDF layout pass costs next to Tika's own extraction, per page, same run.

    taskset -c 0 python benchmarks/layout_cost.py [--rounds 3] [--pdfminer] [--pdf-oxide] PATH ...

Per PDF, CPU seconds of this process, medians of ``--rounds`` rounds that
alternate which goes first:

* Tika's extraction (the embedded backend, OCR off) and the XHTML parse;
* the layout pass as the Extract stage runs it (``transforms/extract/layout.py``
  ``pdf_layout``: PDFium through pypdfium2, every Tika line styled and placed), through
  the C extension ``_pdfium_lines`` where it is built;
* the same pass in pure Python (``RAGBEAM_LAYOUT_NATIVE=0``, the definition), whose
  output must be the C pass's byte for byte (``same``: ``repr`` of both equal);
* PDFium's floor: only loading each page and building its text page
  (``FPDF_LoadPage`` + ``FPDFText_LoadPage`` + one ``GetText``), what any pass over
  PDFium costs before ragbeam does anything;
* ``--pdfminer``: pdfminer.six's layout analysis (``extract_pages``, font size and
  name per character), the alternative the design was chosen against;
  ``--pdf-oxide``: pdf_oxide's ``extract_text_lines`` (not a dependency: measured
  only where it is installed).

Issue 29's target: the layout pass at most 15 % of Tika's time; issue 42's: at most
0.40 of it. Also printed: the share of Tika's lines the pass styled (found in PDFium's
text). Exits 1 where the C and the Python pass differ on a PDF.
"""

from __future__ import annotations

import argparse
import io
import os
import pathlib
import statistics
import time

from ragbeam.transforms.extract.backends import EmbeddedTika
from ragbeam.transforms.extract.layout import NATIVE_ENV, native_lines, pdf_layout, tika_page_lines
from ragbeam.transforms.extract.xhtml import parse_tika_xhtml


def _pdfium_floor(data: bytes) -> int:
    """Load every page and build its text page, nothing more."""
    import ctypes

    import pypdfium2 as pdfium

    raw = pdfium.raw
    document = pdfium.PdfDocument(data)
    chars = 0
    try:
        for index in range(len(document)):
            page = document[index]
            textpage = raw.FPDFText_LoadPage(page.raw)
            count = raw.FPDFText_CountChars(textpage)
            buffer = ctypes.create_string_buffer((count + 1) * 2)
            raw.FPDFText_GetText(textpage, 0, count,
                                 ctypes.cast(buffer, ctypes.POINTER(ctypes.c_ushort)))
            chars += count
            raw.FPDFText_ClosePage(textpage)
            page.close()
    finally:
        document.close()
    return chars


def _pdf_oxide(path: pathlib.Path) -> int:
    import pdf_oxide

    document = pdf_oxide.PdfDocument(str(path))
    return sum(len(document.extract_text_lines(i)) for i in range(document.page_count()))


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


def _python_layout(data: bytes, raw_text: str, blocks):
    os.environ[NATIVE_ENV] = "0"
    try:
        return pdf_layout(data, raw_text, blocks)
    finally:
        del os.environ[NATIVE_ENV]


def _cpu(function, *args) -> tuple[float, object]:
    started = time.process_time()
    result = function(*args)
    return time.process_time() - started, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pdfminer", action="store_true")
    parser.add_argument("--pdf-oxide", action="store_true")
    parser.add_argument("paths", nargs="+", type=pathlib.Path)
    args = parser.parse_args(argv)
    files = [f for p in args.paths for f in (sorted(p.glob("*.pdf")) if p.is_dir() else [p])]
    tika = EmbeddedTika()

    def extract(data: bytes, name: str):
        return parse_tika_xhtml(tika.extract(data, name)[0])

    warm = files[0].read_bytes()
    parsed = extract(warm, "w.pdf")
    pdf_layout(warm, parsed.raw_text, parsed.blocks)
    extra = [name for name, on in (("pdfminer", args.pdfminer), ("pdf_oxide", args.pdf_oxide))
             if on]
    native = native_lines() is not None
    print(f"layout pass: {'C extension' if native else 'pure Python (C extension not built)'}")
    print(f"{'document':40} {'pages':>5} {'tika s':>7} {'layout s':>8} {'layout/tika':>11} "
          f"{'floor/tika':>10} {'styled':>6} {'python s':>8} {'layout/python':>13} {'same':>4}"
          + "".join(f" {f'{e}/tika':>13}" for e in extra))
    sums = [0.0, 0.0, 0.0, 0.0, *([0.0] * len(extra))]
    differ = 0
    pages_total = 0
    for path in files:
        data = path.read_bytes()
        times: dict[str, list[float]] = {"tika": [], "layout": [], "floor": [], "python": []}
        for round_ in range(args.rounds):
            order = ["tika", "layout", "floor", "python"]
            for name in order if round_ % 2 == 0 else order[::-1]:
                if name == "tika":
                    seconds, parsed = _cpu(extract, data, path.name)
                elif name == "layout":
                    seconds, layout = _cpu(pdf_layout, data, parsed.raw_text, parsed.blocks)
                elif name == "python":
                    seconds, python = _cpu(_python_layout, data, parsed.raw_text,
                                           parsed.blocks)
                else:
                    seconds, _ = _cpu(_pdfium_floor, data)
                times[name].append(seconds)
        tika_lines = sum(len(v) for v in tika_page_lines(parsed.raw_text, parsed.blocks).values())
        styled = len(layout.lines) / max(tika_lines, 1)
        t, lay, floor, py = (statistics.median(times[k])
                             for k in ("tika", "layout", "floor", "python"))
        same = repr(python) == repr(layout)
        differ += not same
        row = (f"{path.name[:40]:40} {len(layout.page_sizes):5d} {t:7.3f} {lay:8.3f} "
               f"{lay / t:11.3f} {floor / t:10.3f} {styled:6.3f} {py:8.3f} {lay / py:13.3f} "
               f"{'yes' if same else 'NO':>4}")
        values = [t, lay, floor, py]
        for name in extra:
            seconds, _ = (_cpu(_pdfminer, data) if name == "pdfminer"
                          else _cpu(_pdf_oxide, path))
            values.append(seconds)
            row += f" {seconds / t:13.2f}"
        sums = [a + b for a, b in zip(sums, values, strict=True)]
        pages_total += len(layout.page_sizes)
        print(row)
    total = (f"{f'{len(files)} PDFs':40} {pages_total:5d} {sums[0]:7.3f} {sums[1]:8.3f} "
             f"{sums[1] / sums[0]:11.3f} {sums[2] / sums[0]:10.3f} {'':6} {sums[3]:8.3f} "
             f"{sums[1] / sums[3]:13.3f} {differ or 'yes':>4}")
    total += "".join(f" {value / sums[0]:13.2f}" for value in sums[4:])
    print(total)
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
