"""Where one core's time goes in ``ragbeam run --ocr off``: a py-spy profile by stage.

    python benchmarks/profile_run.py [--corpus DIR] [--rate 50] [--raw FILE] [--embed-chunks]

The corpus (default: the shared corpus without ``bad/``; ``--corpus DIR``: a
folder with a ``MANIFEST.csv``) is staged as in ``pipeline_throughput.py``. In
one run:

1. the plain iscc-tika loop in one process (``pipeline_throughput.py``'s), and
   ``ragbeam run --ocr off`` pinned to one core, each unprofiled: wall clock
   and the CPU time of the whole process tree, and their ratio; the run's own
   process's CPU time (``getrusage(RUSAGE_SELF)``) apart from its children's;
2. the same ``ragbeam run`` pinned to one core (``taskset -c``) under
   ``py-spy record --subprocesses --format raw`` (py-spy itself unpinned, so it
   does not take the run's core), which samples the run, its extraction
   children and the memory guard;
3. every sample put in one stage (``stage_of``) and the shares printed, as a
   percentage of the samples where a thread was working. Samples of threads
   blocked in a known wait (a pipe read, a semaphore, ``select``) are counted
   apart: py-spy counts a thread as active when the scheduler has it runnable,
   which on a loaded machine includes threads just woken from a wait. So
   the shares are of time runnable, close to CPU time only on a quiet machine;
   the column ``CPU s`` spreads the run process's measured CPU time over its
   own samples, which share that bias only among its own threads.

``--raw FILE`` keeps py-spy's collapsed stacks (``flamegraph.pl`` or
speedscope read them); ``--summarise FILE`` prints the shares of a kept file
without running anything. py-spy: ``pip install py-spy`` (a profiler, not a
dependency of ragbeam at run time; in the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import collections
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from pipeline_throughput import (  # a sibling script, not a package
    DEFAULT_CORPUS,
    OWN_CPU,
    REPORT_OWN_CPU,
    _timed,
    compile_bytecode,
    corpus_files,
    run_raw,
    stage_files,
)

import ragbeam

# Innermost frames of a thread that is waiting, not working.
WAITS = ("Semaphore.acquire", "Event.wait", "Condition.wait", "_wait_readable", "_read_exactly",
         "select (", "Thread.join", "Future.result", "wait (concurrent", "Queue.get",
         "sleep (", "_recv (", "Popen._wait",
         # The thread that forwards a child's stderr: blocked in readline (children write
         # nothing there on the mixed corpus's 291 files), sampled as runnable under load.
         "_log_child_output (")
# Stages by the module of the innermost ragbeam frame (first match wins).
RAGBEAM_STAGES = (
    ("transforms/extract/layout.py", "layout pass (PDFium, per line)"),
    ("transforms/extract/outline.py", "PDF outline (PDFium)"),
    ("transforms/extract/xhtml.py", "XHTML parsing and structure"),
    ("transforms/extract/html.py", "XHTML parsing and structure"),
    ("transforms/extract/document.py", "XHTML parsing and structure"),
    ("transforms/extract/markdown.py", "XHTML parsing and structure"),
    ("transforms/extract/mail.py", "XHTML parsing and structure"),
    ("transforms/extract/", "extraction plumbing (pool, early start, guards)"),
    ("transforms/clean/", "cleaning"),
    ("transforms/chunk/", "chunking"),
    ("transforms/route/", "routing"),
    ("transforms/match/", "matching and reading files"),
    ("transforms/write/", "Parquet writing"),
    ("transforms/embed/", "embedding"),
    ("transforms/", "other transforms (ids, progress, metrics)"),
    ("pipeline/", "run library (config, summary, run.json)"),
)
_FRAME_LINE = re.compile(r":\d+\)$")


def parse_collapsed(text: str) -> list[tuple[list[str], list[str], int]]:
    """py-spy's ``--format raw`` lines → (process command lines, frames, samples)."""
    stacks = []
    # A process segment's command line may hold newlines: a record ends at " <count>\n".
    for record in re.finditer(r"(.*?) (\d+)$", text, re.MULTILINE | re.DOTALL):
        processes, frames = [], []
        for part in record.group(1).strip("\n").split(";"):
            if part.startswith("process "):
                processes.append(part)
            elif not part.startswith("thread "):
                frames.append(_FRAME_LINE.sub(")", part))
        stacks.append((processes, frames, int(record.group(2))))
    return stacks


# py-spy names a frame's file by its last folders: "(ragbeam/transforms/…)" for an
# installed ragbeam, "(main/transforms/…)" for a checkout in a folder named "main".
PACKAGE_FRAME = f"({pathlib.Path(ragbeam.__file__).parent.name}/"


def stage_of(processes: list[str], frames: list[str]) -> str:
    """One sample's stage (see the module docstring); ``waiting`` for a blocked thread."""
    process = processes[-1] if processes else ""
    leaf = frames[-1] if frames else ""
    if any(wait in leaf for wait in WAITS):
        return "waiting"
    importing = any(f.startswith("_find_and_load") for f in frames)
    if "memory_guard" in process:
        return "memory guard process"
    if "extract.isolation" in process:  # an extraction child
        if importing:
            return "extraction child: start-up (imports)"
        if any(f.startswith("EmbeddedTika._extract") for f in frames) \
                or not any(PACKAGE_FRAME in f for f in frames):
            return "Tika (extraction child)"
        return "extraction child: other (messages, PDF fallback)"
    if importing:
        if any(f.startswith("<module> (apache_beam/") for f in frames):
            return "start-up: import apache_beam"
        return "start-up: other imports"
    if any("(tiktoken/" in f for f in frames):
        if any(f.startswith("load_encoding (") for f in frames):
            return "token counting: loading the encoding"
        return "token counting (tiktoken)"
    for depth in range(len(frames) - 1, -1, -1):
        frame = frames[depth]
        if PACKAGE_FRAME in frame:
            path = frame.split(PACKAGE_FRAME, 1)[1]
            if path.startswith("pipeline/") and any(
                    "(apache_beam/" in f for f in frames[depth + 1:]):
                return "Beam: graph construction, runner start and stop"
            for prefix, stage in RAGBEAM_STAGES:
                if path.startswith(prefix):
                    return stage
            return "other ragbeam"
    if any("(apache_beam/" in f for f in frames):
        return "Beam (runner, coders, bundles)"
    return "other"


def summarise(text: str, main_cpu_s: float | None = None) -> str:
    """Shares by stage, of all working samples and of the ``ragbeam run`` process's
    own; with ``main_cpu_s`` (that process's CPU time, measured unprofiled) its
    shares also in CPU seconds."""
    shares: collections.Counter[str] = collections.Counter()
    in_main: collections.Counter[str] = collections.Counter()
    for processes, frames, samples in parse_collapsed(text):
        stage = stage_of(processes, frames)
        shares[stage] += samples
        if len(processes) <= 1:
            in_main[stage] += samples
    waiting = shares.pop("waiting", 0)
    in_main.pop("waiting", None)
    working, main_working = sum(shares.values()), sum(in_main.values())
    lines = [f"{working} samples of working threads ({waiting} more while waiting, left "
             f"out); {main_working} in the ragbeam run process itself",
             f"  {'stage':50} {'all':>6} {'ragbeam':>8}"
             + (f" {'CPU s':>6}" if main_cpu_s is not None else "")]
    for stage, samples in shares.most_common():
        share = in_main[stage] / main_working if main_working else 0.0
        line = f"  {stage:50} {samples / working:6.1%} {share:8.1%}"
        if main_cpu_s is not None:
            line += f" {share * main_cpu_s:6.2f}"
        lines.append(line)
    tika = shares["Tika (extraction child)"]
    lines.append(f"  beyond Tika: {(working - tika) / working:.1%} of the samples")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rate", type=int, default=50, help="py-spy samples per second")
    parser.add_argument("--raw", type=pathlib.Path, help="keep py-spy's collapsed stacks here")
    parser.add_argument("--summarise", type=pathlib.Path,
                        help="only print the shares of a kept --raw file")
    parser.add_argument("--main-cpu-s", type=float,
                        help="with --summarise: the run process's CPU seconds, as printed")
    parser.add_argument("--embed-chunks", action="store_true",
                        help="profile ragbeam run --embed-chunks (the model included)")
    args = parser.parse_args(argv)
    if args.summarise:
        print(summarise(args.summarise.read_text(), args.main_cpu_s))
        return 0
    py_spy = shutil.which("py-spy")
    if py_spy is None:
        sys.exit("py-spy is not installed: pip install py-spy")

    print(compile_bytecode())
    work = pathlib.Path(tempfile.mkdtemp(prefix="ragbeam-bench-profile-"))
    try:
        files = corpus_files(args.corpus)
        staging = work / "corpus"
        paths = stage_files(args.corpus, files, staging)
        core = sorted(os.sched_getaffinity(0))[0]
        run = [sys.executable, "-m", "ragbeam.pipeline.cli", "run", "--input", str(staging),
               "--ocr", "off", *(["--embed-chunks"] if args.embed_chunks else [])]
        print(f"corpus: {args.corpus} — {len(files)} files; pinned to core {core}; load "
              f"average {os.getloadavg()[0]:.1f}", flush=True)
        raw = run_raw(paths, 1)
        wall, cpu, out = _timed([sys.executable, "-c", REPORT_OWN_CPU, *run[3:],
                                 "--output", str(work / "plain")], one_core=True)
        main_cpu = float(out.strip().splitlines()[-1].removeprefix(OWN_CPU))
        print(f"raw Tika loop, 1 process: {raw.seconds:.2f} s (CPU {raw.cpu_s:.1f} s); "
              f"ragbeam run on one core: {wall:.2f} s (CPU {cpu:.1f} s: the ragbeam run "
              f"process {main_cpu:.1f} s, its extraction children and memory guard "
              f"{cpu - main_cpu:.1f} s): {wall / raw.seconds:.2f}× wall, "
              f"{cpu / raw.cpu_s:.2f}× CPU; load average {os.getloadavg()[0]:.1f}",
              flush=True)
        collapsed = args.raw or work / "profile.txt"
        subprocess.run([py_spy, "record", "--subprocesses", "--format", "raw",
                        "--rate", str(args.rate), "--output", str(collapsed), "--",
                        "taskset", "-c", str(core), *run, "--output", str(work / "profiled")],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env={**os.environ, "HF_HUB_OFFLINE": "1"})
        print(f"profile (py-spy, {args.rate} Hz; load average {os.getloadavg()[0]:.1f}):")
        print(summarise(collapsed.read_text(), main_cpu))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
