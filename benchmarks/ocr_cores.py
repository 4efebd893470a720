"""OCR of one scanned document on 1 and 2 cores, against the ``tesseract`` command.

    python benchmarks/ocr_cores.py [--pages 40] [--rounds 2] [--no-run] [--no-openmp]

The document: ``--pages`` pages of the shared corpus's text PDFs, rendered to
images and rebuilt as an image-only PDF (``benchmarks/scanned_pdf.py``). Each
round measures, in alternating order, with OpenMP limited to one thread unless
said otherwise:

* ``tesseract`` 1 core: the command on every page image, one after another,
  pinned to one core. The page images are ``pdftoppm``'s at 300 dpi in grey,
  made beforehand: what ragbeam renders, so "the same page images";
* ``tesseract`` 2 cores: two commands at a time on two cores;
* ``tesseract`` 2 OpenMP threads: one command at a time, ``OMP_THREAD_LIMIT=2``
  (Tesseract's own threads, the other way to use two cores; ``--no-openmp``
  leaves it out: on a busy machine its threads spin and it takes many times longer);
* ragbeam OCR, 1 and 2 cores: ``transforms/extract/ocr.read_pages`` over the PDF
  with 1 and 2 workers (what the Extract stage does with a pool of that size:
  rendering each page, then the command), pinned to 1 and 2 cores;
* ``ragbeam run`` on a folder holding only the scan, a fresh process pinned to 1
  core (``--extract-processes 1``) and on 2 cores (``--extract-processes 2``):
  start-up, Tika, OCR, cleaning, chunking and Parquet included (``--no-run``
  leaves them out).

Printed: seconds, pages/s and CPU seconds (medians over rounds), and the ratios the issue
asks for: ragbeam OCR against the command on the same cores (target <= 1.15),
and 2 cores against 1 core (target <= 0.6). The machine's load average is
printed beside each figure: on a shared machine the 2-core figures need a quiet one.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from ragbeam.transforms.extract.ocr import OCR_DPI, read_pages

HERE = pathlib.Path(__file__).resolve().parent


def _scanned_pdf_module():
    spec = importlib.util.spec_from_file_location("scanned_pdf", HERE / "scanned_pdf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def render_pages(pdf: pathlib.Path, out_dir: pathlib.Path) -> list[pathlib.Path]:
    """Every page as ragbeam renders it for OCR (``ocr.read_page``)."""
    subprocess.run(["pdftoppm", "-r", str(OCR_DPI), "-gray", str(pdf), str(out_dir / "p")],
                   check=True)
    return sorted(out_dir.glob("p*.pgm"))


def pinned(cores: int) -> set[int]:
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < cores:
        raise SystemExit(f"{cores} cores needed, {len(allowed)} allowed")
    return set(allowed[:cores])


def _cpu_seconds() -> float:
    """User + system CPU of this process and of every finished program it started."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(cores: int, work: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds of ``work`` with this process (and what it starts) on
    ``cores`` cores. CPU seconds hardly depend on the machine's load: the figure to
    compare on a busy machine."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, pinned(cores))
    try:
        cpu = _cpu_seconds()
        started = time.perf_counter()
        work()
        return time.perf_counter() - started, _cpu_seconds() - cpu
    finally:
        os.sched_setaffinity(0, before)


def tesseract_command(images: list[pathlib.Path], at_once: int, omp_threads: int = 1) -> None:
    env = {**os.environ, "OMP_THREAD_LIMIT": str(omp_threads)}

    def one(image: pathlib.Path) -> None:
        subprocess.run(["tesseract", str(image), "stdout", "-l", "eng", "--dpi", str(OCR_DPI)],
                       capture_output=True, env=env, check=True)

    with ThreadPoolExecutor(at_once) as pool:
        list(pool.map(one, images))


def ragbeam_ocr(data: bytes, pages: int, workers: int) -> None:
    results = read_pages(data, "application/pdf", list(range(1, pages + 1)), "eng",
                         page_cpu_seconds=600, workers=workers)
    missing = [r.page for r in results if r.text is None]
    if missing:
        raise RuntimeError(f"pages not read: {missing}")


def ragbeam_run(folder: pathlib.Path, processes: int) -> None:
    with tempfile.TemporaryDirectory(prefix="ragbeam-ocr-bench-") as tmp:
        out = pathlib.Path(tmp) / "out"
        subprocess.run([sys.executable, "-m", "ragbeam.pipeline.cli", "run", "--input",
                        str(folder), "--output", str(out), "--extract-processes",
                        str(processes)], check=True, capture_output=True,
                       env={**os.environ, "HF_HUB_OFFLINE": "1"})
        summary = json.loads((out / "run.json").read_text())
    coverage = summary.get("extraction_coverage", {})
    if summary["documents_ok"] != 1 or coverage.get("ocr_incomplete_documents"):
        raise RuntimeError(f"the scan was not read whole: {coverage}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-run", action="store_true", help="leave out `ragbeam run`")
    parser.add_argument("--no-openmp", action="store_true",
                        help="leave out tesseract with 2 OpenMP threads")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragbeam-ocr-cores-") as tmp_name:
        tmp = pathlib.Path(tmp_name)
        folder = tmp / "in"
        folder.mkdir()
        pdf = folder / f"scan-{args.pages}p.pdf"
        pdf.write_bytes(_scanned_pdf_module().scanned_pdf(args.pages))
        images_dir = tmp / "images"
        images_dir.mkdir()
        images = render_pages(pdf, images_dir)
        data = pdf.read_bytes()
        variants: dict[str, tuple[int, Callable[[], object]]] = {
            "tesseract command, 1 core": (1, lambda: tesseract_command(images, 1)),
            "tesseract command, 2 cores": (2, lambda: tesseract_command(images, 2)),
            "ragbeam OCR, 1 core": (1, lambda: ragbeam_ocr(data, args.pages, 1)),
            "ragbeam OCR, 2 cores": (2, lambda: ragbeam_ocr(data, args.pages, 2)),
        }
        if not args.no_openmp:
            variants["tesseract command, 2 OpenMP threads"] = (
                2, lambda: tesseract_command(images, 1, omp_threads=2))
        if not args.no_run:
            variants["ragbeam run, 1 core"] = (1, lambda: ragbeam_run(folder, 1))
            variants["ragbeam run, 2 cores"] = (2, lambda: ragbeam_run(folder, 2))
        print(f"{args.pages} scanned pages, {args.rounds} round(s); "
              f"load average at start {os.getloadavg()[0]:.1f}", flush=True)
        seconds: dict[str, list[float]] = {name: [] for name in variants}
        cpu: dict[str, list[float]] = {name: [] for name in variants}
        loads: dict[str, list[float]] = {name: [] for name in variants}
        for round_ in range(args.rounds):
            order = list(variants) if round_ % 2 == 0 else list(reversed(variants))
            for name in order:
                cores, work = variants[name]
                wall, used = timed(cores, work)
                seconds[name].append(wall)
                cpu[name].append(used)
                loads[name].append(os.getloadavg()[0])
                print(f"  round {round_ + 1}: {name}: {wall:.1f} s, CPU {used:.1f} s "
                      f"(load {loads[name][-1]:.1f})", flush=True)
    median = {name: statistics.median(values) for name, values in seconds.items()}
    median_cpu = {name: statistics.median(values) for name, values in cpu.items()}
    print(f"\n{'variant':<38} {'seconds':>8} {'pages/s':>8} {'CPU s':>7} {'CPU s/page':>10} "
          f"{'load':>5}")
    for name, value in median.items():
        print(f"{name:<38} {value:8.1f} {args.pages / value:8.2f} {median_cpu[name]:7.1f} "
              f"{median_cpu[name] / args.pages:10.2f} {statistics.median(loads[name]):5.1f}")
    print("\nCPU seconds, ragbeam OCR / tesseract command, 1 core (load-independent): "
          f"{median_cpu['ragbeam OCR, 1 core'] / median_cpu['tesseract command, 1 core']:.2f}")
    ratios = [
        ("ragbeam OCR / tesseract command, 1 core (target <= 1.15)",
         "ragbeam OCR, 1 core", "tesseract command, 1 core"),
        ("ragbeam OCR / tesseract command, 2 cores (target <= 1.15)",
         "ragbeam OCR, 2 cores", "tesseract command, 2 cores"),
        ("ragbeam OCR, 2 cores / 1 core (target <= 0.6)",
         "ragbeam OCR, 2 cores", "ragbeam OCR, 1 core"),
        ("tesseract command, 2 cores / 1 core (the ceiling)",
         "tesseract command, 2 cores", "tesseract command, 1 core"),
        ("tesseract 2 OpenMP threads / 1 core",
         "tesseract command, 2 OpenMP threads", "tesseract command, 1 core"),
        ("ragbeam run / tesseract command, 1 core",
         "ragbeam run, 1 core", "tesseract command, 1 core"),
        ("ragbeam run, 2 cores / 1 core (target <= 0.6)",
         "ragbeam run, 2 cores", "ragbeam run, 1 core"),
    ]
    print()
    for label, numerator, denominator in ratios:
        if numerator in median and denominator in median:
            print(f"{label}: {median[numerator] / median[denominator]:.2f}")


if __name__ == "__main__":
    main()
