"""Born-digital PDFs with the default ``--ocr auto`` against ``--ocr off``, same run.

    python benchmarks/ocr_born_digital.py [--corpus ../shared/corpus] [--rounds 3] [FILE|DIR ...]

Issue 29's check that OCR reads only pages without a usable text layer: on
PDFs with a text layer, the default's text must be within 2 % of ``--ocr off``
and its time within 1.2x. Documents: the text PDFs of the shared corpus's
``pdf/`` plus every PDF named (files, or folders of them), e.g. the samples of
pdfminer.six, pdfplumber and pypdf (``benchmarks/data/ocr-born-digital.csv``
lists the ones the figures in docs/cleaning.md use; not in the repository).

Per document: pages, the pages Tika's own AUTO test would have sent to OCR (at
most 10 characters or more than 10 unmapped: what ragbeam did before), the
pages OCR'd now and why, text characters with OCR off and on, and CPU seconds
(this process plus the OCR programs it ran) of each, median of ``--rounds``
rounds that alternate which setting goes first.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import resource
import statistics
import time

from ragbeam.transforms.extract.backends import EmbeddedTika, ExtractionError, OcrSettings
from ragbeam.transforms.extract.xhtml import parse_tika_xhtml

REPO = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"


def _cpu() -> float:
    own = time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + children.ru_utime + children.ru_stime


def _run(backend: EmbeddedTika, name: str, data: bytes
         ) -> tuple[float, int, dict[str, list[str]]]:
    started = _cpu()
    try:
        xhtml, metadata = backend.extract(data, name)
    except ExtractionError:
        return _cpu() - started, 0, {}
    text = parse_tika_xhtml(xhtml).raw_text
    return _cpu() - started, len("".join(text.split())), metadata


def tika_auto_pages(metadata: dict[str, list[str]]) -> int:
    """Pages Tika's AUTO test (ragbeam's rule before issue 29) sends to OCR."""
    chars = [int(c) if c.isdigit() else 0 for c in metadata.get("pdf:charsPerPage", ())]
    unmapped = [int(u) if u.isdigit() else 0
                for u in metadata.get("pdf:unmappedUnicodeCharsPerPage", ())]
    unmapped += [0] * (len(chars) - len(unmapped))
    return sum(1 for c, u in zip(chars, unmapped, strict=False) if c <= 10 or u > 10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("paths", nargs="*", type=pathlib.Path)
    args = parser.parse_args(argv)
    files = [p for p in sorted((args.corpus / "pdf").glob("*.pdf"))
             if p.name != "scanned-no-text-layer.pdf"]
    for path in args.paths:
        files += sorted(path.glob("*.pdf")) if path.is_dir() else [path]
    off = EmbeddedTika(ocr=OcrSettings(mode="off"))
    auto = EmbeddedTika(ocr=OcrSettings(page_timeout_s=600))
    _run(off, "warm.pdf", files[0].read_bytes())
    _run(auto, "warm.pdf", files[0].read_bytes())
    print(f"{'document':44} {'pages':>5} {'tika':>4} {'ocr':>3} {'chars off':>9} "
          f"{'auto/off':>8} {'cpu off':>7} {'cpu auto':>8}  why")
    totals = [0, 0, 0, 0, 0.0, 0.0]
    chars_auto_total = 0
    for path in files:
        data = path.read_bytes()
        cpu_off, cpu_auto = [], []
        chars_off = chars_auto = 0
        metadata: dict[str, list[str]] = {}
        for round_ in range(args.rounds):
            order = [(off, cpu_off), (auto, cpu_auto)]
            for backend, times in order if round_ % 2 == 0 else order[::-1]:
                seconds, chars, found = _run(backend, path.name, data)
                times.append(seconds)
                if backend is auto:
                    chars_auto, metadata = chars, found
                else:
                    chars_off = chars
        if not metadata:
            print(f"{path.name[:44]:44} extraction failed")
            continue
        pages = len(metadata.get("pdf:charsPerPage", ()))
        old = tika_auto_pages(metadata)
        ocrd = int((metadata.get("ocr_pages") or ["0"])[0])
        why = json.loads((metadata.get("ocr_reasons") or ["{}"])[0])
        ratio = chars_auto / chars_off if chars_off else float("nan")
        row = [pages, old, ocrd, chars_off, statistics.median(cpu_off),
               statistics.median(cpu_auto)]
        totals = [t + r for t, r in zip(totals, row, strict=True)]
        print(f"{path.name[:44]:44} {pages:5d} {old:4d} {ocrd:3d} {chars_off:9d} {ratio:8.3f} "
              f"{row[4]:7.2f} {row[5]:8.2f}  {'; '.join(f'{p}: {w}' for p, w in why.items())[:90]}")
        chars_auto_total += chars_auto
    pages, old, ocrd, chars_off, off_s, auto_s = totals
    print(f"{f'{len(files)} PDFs':44} {pages:5d} {old:4d} {ocrd:3d} {chars_off:9d} "
          f"{chars_auto_total / chars_off:8.3f} {off_s:7.2f} {auto_s:8.2f}  "
          f"cpu auto/off {auto_s / off_s:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
