"""Incremental re-indexing: an unchanged re-run with ``--previous`` vs the first run.

    python benchmarks/incremental.py [--corpus ../shared/corpus] [--repeats 3]
                                     [--extract-timeout S] [--without-hang] [--copies N]

Every corpus document (the rows of ``MANIFEST.csv``) is copied into one staging
folder (``--copies N``: N times, in N sub-folders, so N× the documents). Each
repetition runs, on the local default runner, with default options:

1. **first run**: a fresh ``ragbeam run`` (the baseline);
2. **unchanged re-run**: ``--previous`` the first run, nothing changed: every
   file is hashed, joined with the previous tables and carried over;
3. **one file edited**: a sentence appended to one text file, ``--previous``
   the first run: the nightly case, one document re-processed.

The machine is shared and noisy, so the three are interleaved and the median of
each is reported with its ratio to the first run. Timing is the CLI's ``run()``
(graph build, pipeline, ``run.json``), without Python start-up. The first run's
errors (the broken files in ``bad/``) are kept, not retried, on re-runs, so the
fuzzed file that hangs Tika costs the extraction timeout (default 60 s) in the
first run only; ``--without-hang`` leaves it out of the corpus, which leaves the
first run nothing but real work. A re-run's time is mostly Beam's fixed cost
per run (graph construction, runner start), which the first run pays too; per
document it only hashes bytes and carries rows, so the ratio grows with the
corpus (``--copies``).
"""

from __future__ import annotations

import argparse
import csv
import pathlib
import shutil
import statistics
import tempfile
import time

HANG = "bad/fuzzed-hang.one"
EDITED = "txt/"  # the first text file under this folder is the one edited


def stage_corpus(corpus: pathlib.Path, staging: pathlib.Path, without_hang: bool,
                 copies: int = 1) -> list[pathlib.Path]:
    with open(corpus / "MANIFEST.csv", newline="", encoding="utf-8") as f:
        paths = [r["path"] for r in csv.DictReader(f)]
    staged = []
    for copy in range(copies):
        for rel in paths:
            if without_hang and rel == HANG:
                continue
            target = staging / (f"copy{copy}" if copies > 1 else "") / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(corpus / rel, target)
            staged.append(target)
    return staged


def timed_run(input_dir: pathlib.Path, out: pathlib.Path, extra: list[str]) -> tuple[float, dict]:
    from ragbeam.pipeline.cli import parse_run_args, run

    config, _, beam_args = parse_run_args(
        ["--input", str(input_dir), "--output", str(out), *extra])
    started = time.perf_counter()
    summary = run(config, beam_args)
    return time.perf_counter() - started, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parents[2] / "shared" / "corpus")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--extract-timeout", help="seconds (default: ragbeam's default)")
    parser.add_argument("--without-hang", action="store_true")
    parser.add_argument("--copies", type=int, default=1)
    args = parser.parse_args()

    work = pathlib.Path(tempfile.mkdtemp(prefix="ragbeam-bench-incremental-"))
    staging = work / "corpus"
    files = stage_corpus(args.corpus, staging, args.without_hang, args.copies)
    edited = sorted(f for f in files if f"/{EDITED}" in f.as_posix())[0]
    original = edited.read_bytes()
    common = ["--extract-timeout", args.extract_timeout] if args.extract_timeout else []
    # Beam's fixed cost per run (graph construction, runner start-up), measured
    # the same way on a one-file corpus, so the per-document cost can be told apart.
    floor_input = work / "floor"
    floor_input.mkdir()
    (floor_input / "note.txt").write_text("A short note.\n\nIt has two paragraphs.\n")
    times: dict[str, list[float]] = {"first run": [], "unchanged re-run": [],
                                     "one file edited": [], "floor: first run": [],
                                     "floor: unchanged re-run": []}
    first: dict = {}
    rerun: dict = {}
    nightly: dict = {}
    try:
        for i in range(args.repeats):
            seconds, _ = timed_run(floor_input, work / f"floor-{i}", common)
            times["floor: first run"].append(seconds)
            seconds, _ = timed_run(floor_input, work / f"floor-rerun-{i}",
                                   [*common, "--previous", str(work / f"floor-{i}")])
            times["floor: unchanged re-run"].append(seconds)
            edited.write_bytes(original)
            first_out = work / f"first-{i}"
            seconds, first = timed_run(staging, first_out, common)
            times["first run"].append(seconds)
            seconds, rerun = timed_run(staging, work / f"rerun-{i}",
                                       [*common, "--previous", str(first_out)])
            times["unchanged re-run"].append(seconds)
            assert rerun["changes_upsert"] == rerun["changes_delete"] == 0, rerun
            assert rerun["documents_unchanged"] == first["documents_ok"], rerun
            assert rerun["chunks"] == first["chunks"], rerun
            edited.write_bytes(original + b"\n\nOne sentence added for the benchmark.\n")
            seconds, nightly = timed_run(staging, work / f"edited-{i}",
                                         [*common, "--previous", str(first_out)])
            times["one file edited"].append(seconds)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    base = statistics.median(times["first run"])
    print(f"corpus: {len(files)} files ({first['documents_ok']} ok, "
          f"{first['documents_error']} error, {first['chunks']} chunks), "
          f"--extract-timeout {args.extract_timeout or 'default'}; "
          f"median of {args.repeats} runs")
    print(f"{'':22} {'seconds':>8} {'× faster':>9}  runs")
    for name, values in times.items():
        t = statistics.median(values)
        runs = " ".join(f"{v:.2f}" for v in values)
        print(f"{name:22} {t:8.2f} {base / t:9.1f}  {runs}")
    print(f"one file edited: {nightly['documents_ok']} re-processed, "
          f"{nightly['documents_unchanged']} unchanged, {nightly['documents_error']} errors "
          f"(kept from the first run), {nightly['changes_upsert']} upserts, "
          f"{nightly['changes_delete']} deletes")
    med = {name: statistics.median(values) for name, values in times.items()}
    first_per_doc = (med["first run"] - med["floor: first run"]) / len(files)
    rerun_per_doc = max(med["unchanged re-run"] - med["floor: unchanged re-run"], 0.0) / len(files)
    print(f"beyond the fixed cost of a run: first run {first_per_doc * 1000:.0f} ms per "
          f"document, unchanged re-run {rerun_per_doc * 1000:.1f} ms per document"
          + (f" ({first_per_doc / rerun_per_doc:.0f}× less)" if rerun_per_doc else ""))


if __name__ == "__main__":
    main()
