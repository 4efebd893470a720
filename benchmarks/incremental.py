"""Incremental re-indexing: an unchanged re-run with ``--previous`` vs the first run.

    python benchmarks/incremental.py [--corpus ../shared/corpus] [--repeats 3]
                                     [--extract-timeout S] [--without-hang] [--copies N]

Every corpus document (the rows of ``MANIFEST.csv``) is copied into one staging
folder (``--copies N``: N times, in N sub-folders, so N× the documents). Each
repetition runs, on the local default runner, with default options:

1. **first run**: a fresh ``ragbeam run`` (the baseline);
2. **unchanged re-run**: ``--previous`` the first run, nothing changed: the
   listing shows every file with the size and modification time the first run
   recorded, so nothing is read; the previous rows are carried over;
3. **one file edited**: a sentence appended to one text file, ``--previous``
   the first run: the nightly case, one document hashed and re-processed.

Staged files get a modification time an hour back (a corpus between nightly
runs), so the first run records it; the edited file gets a fresh one.

The machine is shared and noisy, so the three are interleaved and the median of
each is reported with its ratio to the first run, with the CPU time of this
process beside the wall time (Tika's extraction children are not in it; in a
re-run there are none). Timing is the run library's ``run_pipeline()`` (graph build, pipeline,
``run.json``), without Python start-up. The first run's
errors (the broken files in ``bad/``) are kept, not retried, on re-runs, so the
fuzzed file that hangs Tika costs the extraction timeout (default 60 s) in the
first run only; ``--without-hang`` leaves it out of the corpus, which leaves the
first run nothing but real work. A re-run's time is mostly Beam's fixed cost
per run (graph construction, runner start), which the first run pays too; per
document it only compares listings and carries rows, so the ratio grows with the
corpus (``--copies``).

``--shell``: also as a user runs it, each a fresh ``python -m ragbeam.pipeline.cli
run`` process timed from launch to exit (wall clock; CPU of its process tree,
Tika children included): ``first run (shell)`` and ``unchanged re-run (shell)``,
reported beside the in-process figures, with ``run.json``'s
``first_document_after_s`` (launch to the first document out of extraction)
and a start-up probe: a fresh process that does what ``ragbeam run`` does before
Beam is imported (the CLI's imports, argument parsing, settings, the early
start), timed from launch to the early start feeding the extraction pool its
first file. ragbeam's bytecode is written first, as ``pip install`` writes it
(``pipeline_throughput.compile_bytecode``), so a fresh process does not compile
ragbeam's sources where ``PYTHONDONTWRITEBYTECODE`` is set.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

HANG = "bad/fuzzed-hang.one"
SETTLED = time.time() - 3600  # staged files' modification time: an hour back
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
            os.utime(target, (SETTLED, SETTLED))
            staged.append(target)
    return staged


def timed_run(input_dir: pathlib.Path, out: pathlib.Path, extra: list[str]) -> tuple[float, dict]:
    from ragbeam.pipeline.run import request_from_argv, run_pipeline

    request = request_from_argv(["--input", str(input_dir), "--output", str(out), *extra])
    started, cpu = time.perf_counter(), time.process_time()
    summary = dict(run_pipeline(request).summary)
    summary["cpu_seconds"] = time.process_time() - cpu
    return time.perf_counter() - started, summary


# What ``ragbeam run`` does before Beam's import, up to the early start (cli.run_command).
STARTUP_PROBE = textwrap.dedent("""
    import argparse, json, sys, time
    from ragbeam.pipeline import cli
    parser = argparse.ArgumentParser(allow_abbrev=False)
    cli.add_run_arguments(parser)
    args, beam_args = parser.parse_known_args(sys.argv[1:])
    early = cli.start_early_extraction(cli.settings_from_args(args), beam_args)
    feeding, cpu = time.time(), time.process_time()
    print(json.dumps({"feeding_unix": feeding, "cpu_s": cpu, "started_early": early is not None}))
    if early is not None:
        early.close()
""")


def shell_run(input_dir: pathlib.Path, out: pathlib.Path, extra: list[str]) -> tuple[float, dict]:
    """``ragbeam run`` as a fresh process: (wall seconds, run.json + tree CPU seconds)."""
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "ragbeam.pipeline.cli", "run",
                                 "--input", str(input_dir), "--output", str(out), *extra],
                                stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 3):  # 3: over the error rate, every table written
            errors.seek(0)
            raise RuntimeError(f"ragbeam run exited {code}: {errors.read().decode()[-2000:]}")
    summary = json.loads((out / "run.json").read_text())
    summary["cpu_seconds"] = usage.ru_utime + usage.ru_stime
    return wall, summary


def startup_probe(input_dir: pathlib.Path, out: pathlib.Path) -> tuple[float, float]:
    """Launch → the early start feeding the extraction pool, in a fresh process:
    (wall seconds, CPU seconds of that process until then)."""
    launched = time.time()
    done = subprocess.run([sys.executable, "-c", STARTUP_PROBE, "--input", str(input_dir),
                           "--output", str(out)], check=True, capture_output=True, text=True)
    probe = json.loads(done.stdout.strip().splitlines()[-1])
    if not probe["started_early"]:
        raise RuntimeError("the early start did not start: nothing to time")
    return probe["feeding_unix"] - launched, probe["cpu_s"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parents[2] / "shared" / "corpus")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--extract-timeout", help="seconds (default: ragbeam's default)")
    parser.add_argument("--without-hang", action="store_true")
    parser.add_argument("--copies", type=int, default=1)
    parser.add_argument("--shell", action="store_true",
                        help="also time first and unchanged runs as fresh processes")
    args = parser.parse_args()
    if args.shell:  # fresh processes: timed as an installed ragbeam starts
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
        from pipeline_throughput import compile_bytecode  # a sibling script

        print(compile_bytecode())

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
    os.utime(floor_input / "note.txt", (SETTLED, SETTLED))
    times: dict[str, list[float]] = {"first run": [], "unchanged re-run": [],
                                     "one file edited": [], "floor: first run": [],
                                     "floor: unchanged re-run": []}
    if args.shell:
        times.update({"first run (shell)": [], "unchanged re-run (shell)": []})
    cpu: dict[str, list[float]] = {name: [] for name in times}
    first_document: list[float] = []
    feeding: list[tuple[float, float]] = []
    loads: list[float] = []
    first: dict = {}
    rerun: dict = {}
    nightly: dict = {}
    try:
        def timed(name: str, *run_args) -> dict:
            loads.append(os.getloadavg()[0])
            seconds, summary = (shell_run if "(shell)" in name else timed_run)(*run_args)
            times[name].append(seconds)
            cpu[name].append(summary["cpu_seconds"])
            return summary

        for i in range(args.repeats):
            timed("floor: first run", floor_input, work / f"floor-{i}", common)
            timed("floor: unchanged re-run", floor_input, work / f"floor-rerun-{i}",
                  [*common, "--previous", str(work / f"floor-{i}")])
            edited.write_bytes(original)
            os.utime(edited, (SETTLED, SETTLED))
            first_out = work / f"first-{i}"
            first = timed("first run", staging, first_out, common)
            rerun = timed("unchanged re-run", staging, work / f"rerun-{i}",
                          [*common, "--previous", str(first_out)])
            assert rerun["changes_upsert"] == rerun["changes_delete"] == 0, rerun
            assert rerun["documents_unchanged"] == first["documents_ok"], rerun
            assert rerun["chunks"] == first["chunks"], rerun
            assert rerun["reads"]["bytes_hashed"] == rerun["reads"]["bytes_read"] == 0, rerun
            if args.shell:
                feeding.append(startup_probe(staging, work / f"probe-{i}"))
                shell_out = work / f"shell-first-{i}"
                shell_first = timed("first run (shell)", staging, shell_out, common)
                if "first_document_after_s" in shell_first.get("extraction", {}):
                    first_document.append(shell_first["extraction"]["first_document_after_s"])
                shell_rerun = timed("unchanged re-run (shell)", staging, work / f"shell-rerun-{i}",
                                    [*common, "--previous", str(shell_out)])
                assert shell_rerun["chunks"] == first["chunks"], shell_rerun
                assert shell_rerun["reads"]["bytes_read"] == 0, shell_rerun
            edited.write_bytes(original + b"\n\nOne sentence added for the benchmark.\n")
            nightly = timed("one file edited", staging, work / f"edited-{i}",
                            [*common, "--previous", str(first_out)])
    finally:
        shutil.rmtree(work, ignore_errors=True)

    base = statistics.median(times["first run"])
    base_cpu = statistics.median(cpu["first run"])
    print(f"corpus: {len(files)} files ({first['documents_ok']} ok, "
          f"{first['documents_error']} error, {first['chunks']} chunks), "
          f"--extract-timeout {args.extract_timeout or 'default'}; "
          f"median of {args.repeats} runs; load average {min(loads):.1f}-{max(loads):.1f}")
    print(f"{'':24} {'seconds':>8} {'× faster':>9} {'CPU s':>7} {'× less':>7}  runs (wall)")
    for name, values in times.items():
        t, c = statistics.median(values), statistics.median(cpu[name])
        runs = " ".join(f"{v:.2f}" for v in values)
        print(f"{name:24} {t:8.2f} {base / t:9.1f} {c:7.2f} {base_cpu / c:7.1f}  {runs}")
    print(f"unchanged re-run read {rerun['reads']['bytes_read']} bytes and hashed "
          f"{rerun['reads']['bytes_hashed']}; {rerun['reads']['files_unchanged_by_listing']} "
          "files settled by the listing alone")
    print(f"one file edited: {nightly['documents_ok']} re-processed, "
          f"{nightly['documents_unchanged']} unchanged, {nightly['documents_error']} errors "
          f"(kept from the first run), {nightly['changes_upsert']} upserts, "
          f"{nightly['changes_delete']} deletes")
    if args.shell:
        shell_first = statistics.median(times["first run (shell)"])
        shell_rerun = statistics.median(times["unchanged re-run (shell)"])
        in_process = base / statistics.median(times["unchanged re-run"])
        print(f"from the shell (fresh process, wall clock): unchanged re-run "
              f"{shell_first / shell_rerun:.1f}× faster than the first run (in-process: "
              f"{in_process:.1f}×; target ≥ 5× on the shared corpus, ≥ 10× at 4 copies)")
        print(f"start-up (fresh process): launch to the early start feeding extraction "
              f"{statistics.median(f[0] for f in feeding):.2f} s (CPU "
              f"{statistics.median(f[1] for f in feeding):.2f} s)"
              + (f"; launch to the first document out of extraction "
                 f"{statistics.median(first_document):.2f} s (run.json, first run)"
                 if first_document else "") + " (target ≤ 1 s to the first document)")
    med = {name: statistics.median(values) for name, values in times.items()}
    first_per_doc = (med["first run"] - med["floor: first run"]) / len(files)
    rerun_per_doc = max(med["unchanged re-run"] - med["floor: unchanged re-run"], 0.0) / len(files)
    print(f"beyond the fixed cost of a run: first run {first_per_doc * 1000:.0f} ms per "
          f"document, unchanged re-run {rerun_per_doc * 1000:.1f} ms per document"
          + (f" ({first_per_doc / rerun_per_doc:.0f}× less)" if rerun_per_doc else ""))


if __name__ == "__main__":
    main()
