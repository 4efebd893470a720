"""Cleaning time next to extraction time, measured in the same run, per document.

    python benchmarks/cleaning_speed.py [--corpus ../shared/corpus] [--large DIR] [--repeat 5]

Two sets, reported separately:

* the PDFs of the shared corpus that have a text layer;
* with ``--large DIR`` (default ``$RAGBEAM_LARGE_DOCS`` or ``../data/large-docs``
  beside the repository, when present): every PDF, DOCX, EPUB and HTML file
  under it (public test documents of a few hundred pages; not in the
  repository; issue 17 measured cleaning at 29.7 % of extraction on a 619-page
  PDF there).

Extraction is the pipeline's ``EmbeddedTika`` (text layer only, one warm
extractor) plus ``build_extracted_document`` (XHTML parsing), cleaning is
``clean_document`` with the default options; ``--cpu`` times them in CPU seconds of
this process (embedded Tika is native code in it), steady on a loaded machine.
``--baseline REV`` also runs the cleaning code of git revision ``REV`` on the same
extracted documents (taking turns with the current code), checks that both give the
same documents, and prints the speed-up; with ``--rules-changed`` the baseline's rules differ, its
output is not compared, and the ratio is the cost of the change. Each document is extracted and
cleaned ``--repeat`` times, alternating, and the medians are kept, so a noisy
neighbour on the shared machine slows both alike. Printed per document and in
total: seconds, cleaning throughput in MB/s of extracted text, and cleaning time
as a share of extraction time (the target is at most 10 %).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import pathlib
import statistics
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
DEFAULT_LARGE = pathlib.Path(os.environ.get("RAGBEAM_LARGE_DOCS",
                                            REPO.parent / "data" / "large-docs"))
LARGE_SUFFIXES = {".pdf", ".docx", ".epub", ".html", ".htm"}


def baseline_cleaner(revision: str):
    """``clean_document`` as it was at a git revision: its ``transforms/clean`` tree
    (modules and packages) copied from ``git archive`` into a package of its own."""
    import importlib
    import io
    import subprocess
    import tarfile
    import tempfile

    package = "ragbeam_baseline_clean"
    archive = subprocess.run(["git", "archive", revision, "transforms/clean"], cwd=REPO,
                             capture_output=True, check=True).stdout
    root = pathlib.Path(tempfile.mkdtemp(prefix="ragbeam-baseline-"))
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(root, filter="data")
    tree = root / package
    (root / "transforms" / "clean").rename(tree)
    for source in tree.rglob("*.py"):
        source.write_text(source.read_text(encoding="utf-8").replace(
            "ragbeam.transforms.clean.", f"{package}."), encoding="utf-8")
    sys.path.insert(0, str(root))
    document = importlib.import_module(f"{package}.document")
    return lambda extracted: document.clean_document(extracted, document.CleanOptions())


CLOCK = time.perf_counter  # --cpu: time.process_time (this process's CPU, Tika included)


def measure(path: pathlib.Path, tika, options, repeat: int, baseline=None,
            same_output: bool = True) -> tuple[float, float, int, float | None] | None:
    """(median extraction s, median cleaning s, text bytes, median baseline cleaning s)."""
    from ragbeam.transforms.clean.document import clean_document
    from ragbeam.transforms.extract.backends import ExtractionError
    from ragbeam.transforms.extract.document import EmptyDocumentError, build_extracted_document
    from ragbeam.transforms.types import FetchedFile, SourceFile

    data = path.read_bytes()
    fetched = FetchedFile(SourceFile(str(path), "d", len(data)), data,
                          hashlib.sha256(data).hexdigest())
    extract_times, clean_times, baseline_times = [], [], []
    for round_ in range(repeat):
        gc.collect()  # each timed step starts without the previous one's garbage
        started = CLOCK()
        try:
            xhtml, metadata = tika.extract(data, path.name)
            extracted = build_extracted_document(fetched, xhtml, metadata)
        except (EmptyDocumentError, ExtractionError):
            return None  # no text layer (or rejected): nothing to clean
        extract_times.append(CLOCK() - started)
        del xhtml
        steps = [(lambda e=extracted: clean_document(e, options), clean_times)]
        if baseline is not None:  # the two cleaners take turns going first
            steps.append((lambda e=extracted: baseline(e), baseline_times))
            steps = steps[::-1] if round_ % 2 else steps
        results = []
        for step, times in steps:
            gc.collect()
            started = CLOCK()
            results.append(step())
            times.append(CLOCK() - started)
        if same_output and len(results) == 2 and len(
                {(r.text, r.spans, tuple(sorted(r.metadata.items()))) for r in results}) != 1:
            raise SystemExit(f"{path.name}: the baseline cleans it differently")
    return (statistics.median(extract_times), statistics.median(clean_times),
            len(extracted.raw_text.encode("utf-8")),
            statistics.median(baseline_times) if baseline_times else None)


def report(title: str, paths: list[pathlib.Path], tika, options, repeat: int,
           baseline=None, same_output: bool = True) -> None:
    print(title)
    print(f"{'file':48} {'text MB':>8} {'extract s':>9} {'clean s':>8} {'clean MB/s':>10} "
          f"{'clean/extract':>13}" + (f" {'baseline/extract':>16}" if baseline else ""))
    total_extract = total_clean = total_baseline = 0.0
    total_bytes = 0
    for path in paths:
        result = measure(path, tika, options, repeat, baseline, same_output)
        if result is None:
            continue
        extract_s, clean_s, text_bytes, baseline_s = result
        total_extract += extract_s
        total_clean += clean_s
        total_baseline += baseline_s or 0.0
        total_bytes += text_bytes
        print(f"{path.name[:48]:48} {text_bytes / 1e6:8.3f} {extract_s:9.4f} {clean_s:8.4f} "
              f"{text_bytes / 1e6 / clean_s:10.2f} {clean_s / extract_s:13.1%}"
              + (f" {baseline_s / extract_s:16.1%}" if baseline_s is not None else ""))
    print(f"{'TOTAL':48} {total_bytes / 1e6:8.3f} {total_extract:9.4f} {total_clean:8.4f} "
          f"{total_bytes / 1e6 / total_clean:10.2f} {total_clean / total_extract:13.1%}"
          + (f" {total_baseline / total_extract:16.1%}" if baseline else ""))
    if baseline:
        print(f"speed-up over the baseline: {total_baseline / total_clean:.2f}x "
              + ("(identical documents)" if same_output
                 else "(output not compared: the rules differ)"))
    print()


def main(argv: list[str] | None = None) -> int:
    from ragbeam.transforms.clean.document import CleanOptions
    from ragbeam.transforms.extract.backends import EmbeddedTika

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--large", type=pathlib.Path, default=DEFAULT_LARGE)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--baseline", metavar="REV",
                        help="also time the cleaning code of this git revision")
    parser.add_argument("--rules-changed", action="store_true",
                        help="time a baseline whose rules differ (its output is not compared)")
    parser.add_argument("--cpu", action="store_true",
                        help="CPU seconds of this process (embedded Tika runs in it) instead of "
                             "wall-clock seconds: steady on a loaded machine")
    args = parser.parse_args(argv)
    global CLOCK
    CLOCK = time.process_time if args.cpu else time.perf_counter
    baseline = baseline_cleaner(args.baseline) if args.baseline else None

    tika = EmbeddedTika()
    options = CleanOptions()
    report("shared corpus, PDFs with a text layer",
           sorted((args.corpus / "pdf").glob("*.pdf")), tika, options, args.repeat, baseline,
           not args.rules_changed)
    if args.large.is_dir():
        large = sorted(p for p in args.large.rglob("*") if p.suffix.lower() in LARGE_SUFFIXES)
        report(f"large documents ({args.large})", large, tika, options, args.repeat, baseline,
               not args.rules_changed)
    else:
        print(f"no large documents at {args.large}: only the shared corpus was measured")
    return 0


if __name__ == "__main__":
    sys.exit(main())
