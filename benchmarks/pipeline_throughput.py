"""End-to-end pipeline throughput vs raw Tika extraction, measured in one run.

    python benchmarks/pipeline_throughput.py [--corpus ../shared/corpus] [--repeats 3]

Baseline: the same files through iscc-tika alone, in a plain in-process loop
(one Extractor, XHTML output, same string limit). Pipeline: ``ragbeam run`` on
the local default runner (FnApiRunner, in-memory), which adds everything else:
matching, hashing, the isolated extraction process, XHTML parsing, cleaning,
routing, chunking, token counting and Parquet writing. The machine is shared
and noisy, so the two are interleaved and the median of each is reported, with
their ratio.

``bad/fuzzed-hang.one`` is left out: it never returns in the raw loop (the
pipeline turns it into a timeout error after ``--extract-timeout``).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import pathlib
import shutil
import statistics
import sys
import tempfile
import time

HANGS = {"bad/fuzzed-hang.one"}


def corpus_files(corpus: pathlib.Path) -> list[pathlib.Path]:
    with open(corpus / "MANIFEST.csv", newline="", encoding="utf-8") as f:
        rows = [r["path"] for r in csv.DictReader(f)]
    return [corpus / p for p in rows if p not in HANGS]


def raw_extraction_seconds(files: list[pathlib.Path]) -> float:
    import iscc_tika

    started = time.perf_counter()
    extractor = (iscc_tika.Extractor().set_xml_output(True)
                 .set_extract_string_max_length(100_000_000))
    for path in files:
        # Broken inputs fail fast here, as they do in the pipeline.
        with contextlib.suppress(Exception):
            extractor.extract_bytes_to_string(bytearray(path.read_bytes()))
    return time.perf_counter() - started


def pipeline_seconds(input_dir: pathlib.Path, extra_args: list[str]) -> tuple[float, dict]:
    """One full ``ragbeam run`` (graph build, run, run.json), timed like the CLI."""
    from ragbeam.pipeline.cli import parse_run_args, run

    out = pathlib.Path(tempfile.mkdtemp(prefix="ragbeam-bench-"))
    config, _, beam_args = parse_run_args(
        ["--input", str(input_dir), "--output", str(out / "o"), *extra_args])
    started = time.perf_counter()
    summary = run(config, beam_args)
    elapsed = time.perf_counter() - started
    shutil.rmtree(out, ignore_errors=True)
    return elapsed, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parents[2] / "shared" / "corpus")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    files = corpus_files(args.corpus)
    total_bytes = sum(f.stat().st_size for f in files)
    staging = pathlib.Path(tempfile.mkdtemp(prefix="ragbeam-bench-in-"))
    for f in files:  # the same files, in one folder the pipeline can match
        target = staging / f.relative_to(args.corpus)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(f, target)

    modes = {
        "pipeline (in_memory)": [],
        "pipeline (multi_processing ×2)": ["--direct_num_workers", "2",
                                           "--direct_running_mode", "multi_processing"],
    }
    raw_times: list[float] = []
    pipe_times: dict[str, list[float]] = {name: [] for name in modes}
    summary: dict = {}
    for _ in range(args.repeats):
        raw_times.append(raw_extraction_seconds(files))
        for name, extra in modes.items():
            seconds, summary = pipeline_seconds(staging, extra)
            pipe_times[name].append(seconds)
    shutil.rmtree(staging, ignore_errors=True)

    mb = total_bytes / 1e6
    raw = statistics.median(raw_times)
    print(f"corpus: {len(files)} files, {mb:.2f} MB "
          f"({summary.get('documents_ok')} ok, {summary.get('documents_error')} error, "
          f"{summary.get('chunks')} chunks); median of {args.repeats} runs")
    print(f"{'':34} {'seconds':>8} {'docs/s':>8} {'MB/s':>7} {'× raw':>6}")
    print(f"{'iscc-tika plain loop (baseline)':34} {raw:8.2f} {len(files) / raw:8.1f} "
          f"{mb / raw:7.2f} {1.0:6.2f}")
    for name, times in pipe_times.items():
        t = statistics.median(times)
        print(f"{name:34} {t:8.2f} {len(files) / t:8.1f} {mb / t:7.2f} {t / raw:6.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
