"""Where one core's time goes in ``ragbeam run --ocr off``: a py-spy profile by stage.

    python benchmarks/profile_run.py [--corpus DIR] [--rate 50] [--raw FILE] [--embed-chunks]
    python benchmarks/profile_run.py --corpus DIR --perf OUT [--two-cores [--raw-too]]

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

``--perf``: instead of py-spy, ``perf record -e cpu-clock`` (a sample per
millisecond of CPU actually spent, kernel included, in every process of the
tree) over the raw loop and over the pinned run, and their CPU seconds split by
process (the run process, its extraction children, the memory guard) and by
shared object (Tika's native image, the kernel, the interpreter, PDFium,
tiktoken, Arrow…): exact CPU time where py-spy's shares are of time runnable.
``--perf-summarise RAW RUN`` prints that split for two kept ``perf.data`` files.

``--perf DIR --two-cores [--rounds 2] [--raw-too | --baseline-code DIR]``: the
default run on two cores beside the run pinned to one, alternating, each under
``perf record``, in the same split (each extraction child's CPU apart too);
``--raw-too`` adds the raw loop in one process and in two (no ``tesseract`` on
their ``PATH``, as in the extraction children: Tika's own scaling),
``--baseline-code`` each run with another ragbeam beside. ``--perf-compare
DATA…`` prints kept ``perf.data`` files side by side.

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
    BASELINE,
    DEFAULT_CORPUS,
    OWN_CPU,
    RAW_LOOP,
    RAW_POOL,
    REPORT_OWN_CPU,
    _timed,
    code_folder,
    compile_bytecode,
    corpus_files,
    run_raw,
    stage_files,
)

import ragbeam
from ragbeam.transforms.extract.backends import path_without

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
        if any(f.startswith("EmbeddedTika.__init__") for f in frames):
            return "extraction child: start-up (Tika's VM and extractors)"
        if any(f.startswith("EmbeddedTika._extract_utf8_stream") for f in frames):
            return "extraction child: Tika's second, UTF-8 extraction"
        if any(f.startswith(("pdf_fallback", "pdfminer_pages")) for f in frames):
            return "extraction child: PDF fallback (pdfminer)"
        if any(f.startswith(("_write_message", "_read_message")) for f in frames):
            return "extraction child: messages (pickle, pipe)"
        if any(f.startswith("EmbeddedTika._extract") for f in frames) \
                or not any(PACKAGE_FRAME in f for f in frames):
            return "Tika (extraction child)"
        return "extraction child: other"
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
            # Beam's frames under the stage's (its file system calls are the stage's own).
            beam_below = [f for f in frames[depth + 1:]
                          if "(apache_beam/" in f and "(apache_beam/io/" not in f]
            if path.startswith("pipeline/") and beam_below:
                return "Beam: graph construction, runner start and stop"
            if beam_below:  # a stage's output handed on, a counter: the runner's work
                if any("(apache_beam/coders/" in f for f in beam_below):
                    return "Beam: coders (encoding, decoding)"
                return "Beam (runner, bundles, metrics)"
            for prefix, stage in RAGBEAM_STAGES:
                if path.startswith(prefix):
                    return stage
            return "other ragbeam"
    if any("(apache_beam/" in f for f in frames):
        if any("(apache_beam/coders/" in f for f in frames):
            return "Beam: coders (encoding, decoding)"
        return "Beam (runner, bundles, metrics)"
    return "other"


def summarise(text: str, main_cpu_s: float | None = None,
              children_cpu_s: float | None = None) -> str:
    """Shares by stage, of all working samples and of the ``ragbeam run`` process's
    own; with ``main_cpu_s`` (that process's CPU time, measured unprofiled) its
    shares also in CPU seconds, and with ``children_cpu_s`` (its children's: the
    extraction children and the memory guard) theirs likewise."""
    shares: collections.Counter[str] = collections.Counter()
    in_main: collections.Counter[str] = collections.Counter()
    in_children: collections.Counter[str] = collections.Counter()
    for processes, frames, samples in parse_collapsed(text):
        stage = stage_of(processes, frames)
        shares[stage] += samples
        (in_main if len(processes) <= 1 else in_children)[stage] += samples
    waiting = shares.pop("waiting", 0)
    in_main.pop("waiting", None)
    in_children.pop("waiting", None)
    working, main_working = sum(shares.values()), sum(in_main.values())
    children_working = sum(in_children.values())
    lines = [f"{working} samples of working threads ({waiting} more while waiting, left "
             f"out); {main_working} in the ragbeam run process itself",
             f"  {'stage':52} {'all':>6} {'ragbeam':>8}"
             + (f" {'CPU s':>6}" if main_cpu_s is not None else "")]
    for stage, samples in shares.most_common():
        share = in_main[stage] / main_working if main_working else 0.0
        line = f"  {stage:52} {samples / working:6.1%} {share:8.1%}"
        if main_cpu_s is not None:
            if in_main[stage] or children_cpu_s is None or not children_working:
                line += f" {share * main_cpu_s:6.2f}"
            else:  # a stage of the children: their CPU time spread over their samples
                line += f" {in_children[stage] / children_working * children_cpu_s:6.2f}"
        lines.append(line)
    tika = shares["Tika (extraction child)"]
    lines.append(f"  beyond Tika: {(working - tika) / working:.1%} of the samples")
    return "\n".join(lines)


# Shared objects by what they are (first match of a substring of the file name wins).
DSO_GROUPS = (
    ("libtika_native", "Tika (native image)"),
    ("libjvm", "Tika (native image)"), ("libawt", "Tika (native image)"),
    ("libfontmanager", "Tika (native image)"), ("libfreetype", "Tika (native image)"),
    ("liblcms", "Tika (native image)"), ("libmlib", "Tika (native image)"),
    ("libjava", "Tika (native image)"),
    ("_iscc_tika", "iscc-tika's Python binding"),
    ("[kernel", "kernel"),
    ("libpython", "Python interpreter"), ("python3", "Python interpreter"),
    ("libpdfium", "PDFium"), ("_pdfium_lines", "the C layout pass"),
    ("tiktoken", "tiktoken"),
    ("arrow", "Arrow / Parquet"), ("parquet", "Arrow / Parquet"),
    ("numpy", "numpy"), ("openblas", "numpy"), ("torch", "torch"),
    ("libc.so", "libc, loader"), ("libc-", "libc, loader"), ("ld-linux", "libc, loader"),
    ("libm.so", "libc, loader"), ("libstdc++", "libc, loader"),
    ("_regex", "regex"),
)
PERF_PERIOD_NS = 1_000_000  # one cpu-clock sample per millisecond of CPU
_PERF_SAMPLE = re.compile(r"^\s*(.*?)\s+(\d+)/(\d+)\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)$",
                          re.MULTILINE)
# The kernel's work of fork(): a process's page tables and mappings copied for the child.
_FORK_SYMBOLS = re.compile(r"copy_page_range|dup_mmap|anon_vma|vm_normal_page|copy_pte|"
                           r"__pte_alloc|copy_process|kernel_clone|dup_")


def perf_record(cmd: list[str], data: pathlib.Path, path: str | None = None,
                code: pathlib.Path | None = None) -> None:
    """``cmd`` under ``perf record``: a cpu-clock sample per CPU millisecond, children
    too; ``path``: its ``PATH`` (set by ``env`` under perf, as perf puts its own
    folders first on the ``PATH`` it hands on); ``code``: a folder holding another
    ``ragbeam`` package, put first on its ``PYTHONPATH``."""
    settings = ([f"PATH={path}"] if path is not None else []) + (
        [f"PYTHONPATH={os.pathsep.join(filter(None, [str(code), os.environ.get('PYTHONPATH')]))}"]
        if code is not None else [])
    if settings:
        cmd = [shutil.which("env") or "/usr/bin/env", *settings, *cmd]
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-c", str(PERF_PERIOD_NS),
                    "-o", str(data), "--", *cmd], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env={**os.environ, "HF_HUB_OFFLINE": "1"})


def perf_processes(data: pathlib.Path) -> list[tuple[str, str, collections.Counter[str]]]:
    """CPU seconds of a ``perf record`` by process: (kind, pid, CPU s by shared-object group).

    Processes by what they ran (pids wrap around in a long run, so not by order):
    one that spent over a second in Tika's native image is an extraction child (or
    the raw loop itself); a ``tesseract`` is one Tika started; one that ran Tika's
    image briefly, or only the kernel's code for under ``FORK_AT_MOST_S``, is a copy of
    an extraction process forked to start a program (Tika's, before its ``exec``);
    of the rest, the one with the most samples is the run process, any other the
    memory guard (or another small helper)."""
    out = subprocess.run(["perf", "script", "-i", str(data), "-F", "comm,pid,tid,ip,sym,dso"],
                         check=True, capture_output=True, text=True).stdout
    by_pid: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for match in _PERF_SAMPLE.finditer(out):  # one line a sample (a thread's comm, its pid)
        comm, pid, tid, symbol, dso = match.groups()
        name = dso.rsplit("/", 1)[-1]
        group = next((g for key, g in DSO_GROUPS if key in name), "other native code")
        if group == "kernel" and _FORK_SYMBOLS.search(symbol):
            group = "kernel: fork (page tables copied)"
        if comm == "Apache Tika" and pid != tid:  # iscc-tika's stream: the UTF-8 extraction
            group = "Tika's stream thread"
        by_pid[pid + (":tesseract" if comm == "tesseract" else "")][group] += \
            PERF_PERIOD_NS / 1e9
    tika = "Tika (native image)"
    others = [pid for pid, groups in by_pid.items() if not groups[tika]
              and not pid.endswith(":tesseract")]
    main = max(others, key=lambda pid: sum(by_pid[pid].values()), default=None)
    return [("extraction children" if groups[tika] > 1.0
             else "tesseract started by Tika" if pid.endswith(":tesseract")
             else "run process" if pid == main
             else "Tika's forks before exec" if groups[tika]
             or sum(groups.values()) < FORK_AT_MOST_S
             else "memory guard, others", pid, groups)
            for pid, groups in by_pid.items()]


def perf_split(data: pathlib.Path | list[tuple[str, str, collections.Counter[str]]]
               ) -> dict[tuple[str, str], float]:
    """CPU seconds of a ``perf record`` (or of its ``perf_processes``) by (process
    kind, shared-object group), and ``(kind, PROCESSES)``: how many processes."""
    processes = perf_processes(data) if isinstance(data, pathlib.Path) else data
    split: collections.Counter[tuple[str, str]] = collections.Counter()
    for kind, _, groups in processes:
        for group, seconds in groups.items():
            split[kind, group] += seconds
        split[kind, PROCESSES] += 1
    return dict(split)


FORK_AT_MOST_S = 0.05  # a fork that execs: milliseconds; the memory guard: 0.1 s or more
KINDS = ("run process", "extraction children", "Tika's forks before exec",
         "tesseract started by Tika", "memory guard, others")
PROCESSES = "processes"  # perf_split's count of processes of a kind, not seconds


def perf_summary(raw: dict[tuple[str, str], float], run: dict[tuple[str, str], float]
                 ) -> str:
    """The two splits side by side: the raw loop's process beside the run's children."""
    run = dict(run)
    counts = {kind: int(run.pop((kind, PROCESSES), 0)) for kind in KINDS}
    raw_counts = {kind: int(raw.get((kind, PROCESSES), 0)) for kind in KINDS}
    raw = {key: s for key, s in raw.items() if key[1] != PROCESSES}
    total_run, total_raw = sum(run.values()), sum(raw.values())
    lines = [f"perf cpu-clock: ragbeam run {total_run:.2f} CPU s, raw loop "
             f"{total_raw:.2f} CPU s ({total_run / total_raw:.2f}×); the raw loop's "
             "processes beside the run's children and Tika's own",
             f"  {'process':26} {'shared object':34} {'CPU s':>7} {'share':>6} {'raw loop':>8}"]
    for kind in KINDS:
        part = {g: s for (k, g), s in run.items() if k == kind}
        raw_part = {g: s for (k, g), s in raw.items() if k == kind}
        if not part and not raw_part:
            continue
        compare = kind != "run process"
        lines.append(f"  {kind:26} {f'(all: {counts[kind]} processes)':34} "
                     f"{sum(part.values()):7.2f} {sum(part.values()) / total_run:6.1%}"
                     + (f" {sum(raw_part.values()):8.2f} ({raw_counts[kind]})" if compare
                        else ""))
        for group in sorted(set(part) | set(raw_part), key=lambda g: -part.get(g, 0.0)):
            seconds = part.get(group, 0.0)
            if seconds < 0.005 and raw_part.get(group, 0.0) < 0.005:
                continue
            lines.append(f"  {'':26} {group:34} {seconds:7.2f} {seconds / total_run:6.1%}"
                         + (f" {raw_part.get(group, 0.0):8.2f}" if compare else ""))
    return "\n".join(lines)


def perf_compare(columns: dict[str, list[tuple[str, str, collections.Counter[str]]]]) -> str:
    """Runs' ``perf_processes`` side by side (e.g. the run on one core and on two):
    CPU s by process kind and shared object, one column a run, the last column the
    last run less the first; then each extraction child's CPU apart."""
    splits = {label: perf_split(processes) for label, processes in columns.items()}
    header = "".join(f" {label[:14]:>14}" for label in splits) + f" {'difference':>11}"
    lines = [f"  {'process':26} {'shared object':34}{header}"]

    def row(kind: str, group: str, values: list[float]) -> str:
        return (f"  {kind:26} {group:34}" + "".join(f" {v:14.2f}" for v in values)
                + f" {values[-1] - values[0]:+11.2f}")

    totals = [sum(s for (_, g), s in split.items() if g != PROCESSES)
              for split in splits.values()]
    lines.append(row("the whole process tree", "", totals))
    for kind in KINDS:
        parts = {label: {g: s for (k, g), s in split.items() if k == kind and g != PROCESSES}
                 for label, split in splits.items()}
        if not any(parts.values()):
            continue
        counts = "/".join(str(int(split.get((kind, PROCESSES), 0))) for split in splits.values())
        lines.append(row(kind, f"(all: {counts} processes)",
                         [sum(part.values()) for part in parts.values()]))
        groups = set().union(*parts.values())
        for group in sorted(groups, key=lambda g: -max(p.get(g, 0.0) for p in parts.values())):
            values = [part.get(group, 0.0) for part in parts.values()]
            if max(values) >= 0.005:
                lines.append(row("", group, values))
    for label, processes in columns.items():
        children = sorted((sum(groups.values()) for kind, _, groups in processes
                           if kind == "extraction children"), reverse=True)
        lines.append(f"  {label}: extraction children "
                     + ", ".join(f"{seconds:.2f}" for seconds in children) + " CPU s")
    return "\n".join(lines)


def perf_two_cores(run: list[str], paths: list[str], out: pathlib.Path, work: pathlib.Path,
                   rounds: int, raw_too: bool, baseline: pathlib.Path | None = None) -> None:
    """``--perf DIR --two-cores``: the run pinned to one core and on two cores
    (``taskset``), alternating for ``rounds`` rounds (the first round one core
    first, the next two cores first…), each under ``perf record``; with
    ``raw_too`` the raw loop in one process (one core) and in two (two cores)
    likewise, both with no ``tesseract`` on ``PATH`` (as the extraction children
    run Tika): Tika's own scaling, the floor's; with ``baseline`` (a folder holding
    another ``ragbeam``, ``pipeline_throughput.code_folder``) each run with that code
    too, beside this code's (the raw loops left out). Each round's runs side by side."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        sys.exit("--two-cores needs two cores")
    one, two = str(cores[0]), f"{cores[0]},{cores[1]}"
    taskset = shutil.which("taskset") or "taskset"  # by full path: the raw loops' PATH
    pool = work / "raw_pool.py"
    pool.write_text(RAW_POOL)
    variants = {"one core": [taskset, "-c", one, *run],
                "two cores": [taskset, "-c", two, *run]}
    if baseline is not None:
        variants = {f"{name}{suffix}": cmd for name, cmd in variants.items()
                    for suffix in (BASELINE, "")}
    elif raw_too:
        variants = {"raw 1 process": [taskset, "-c", one, sys.executable, "-c", RAW_LOOP,
                                      *paths],
                    "raw 2 processes": [taskset, "-c", two, sys.executable, str(pool), "2",
                                        *paths], **variants}
    floor = path_without("tesseract", os.environ.get("PATH", os.defpath))
    for number in range(1, rounds + 1):
        names = list(variants)
        order = names if number % 2 else [  # pairs swapped: (two, one), (raw 2, raw 1)
            name for pair in zip(names[1::2], names[::2], strict=True) for name in pair]
        recorded = {}
        for name in order:
            data = out / f"{name.replace(' ', '-')}-{number}.data"
            cmd = variants[name]
            if name.startswith("raw"):
                perf_record(cmd, data, floor)
            else:
                output = work / f"out-{number}"
                perf_record([*cmd, "--output", str(output)], data,
                            code=baseline if name.endswith(BASELINE) else None)
                shutil.rmtree(output, ignore_errors=True)
            print(f"round {number}: {name} recorded; load average "
                  f"{os.getloadavg()[0]:.1f}", flush=True)
            recorded[name] = perf_processes(data)
        print(f"round {number} (order: {', '.join(order)}), perf cpu-clock CPU s:")
        if baseline is not None:
            for name in ("one core", "two cores"):
                print(perf_compare({name + BASELINE: recorded[name + BASELINE],
                                    name: recorded[name]}))
        print(perf_compare({name: recorded[name] for name in ("one core", "two cores")}))
        if raw_too and baseline is None:
            print(perf_compare({name: recorded[name] for name in variants
                                if name.startswith("raw")}), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rate", type=int, default=50, help="py-spy samples per second")
    parser.add_argument("--raw", type=pathlib.Path, help="keep py-spy's collapsed stacks here")
    parser.add_argument("--summarise", type=pathlib.Path,
                        help="only print the shares of a kept --raw file")
    parser.add_argument("--main-cpu-s", type=float,
                        help="with --summarise: the run process's CPU seconds, as printed")
    parser.add_argument("--children-cpu-s", type=float,
                        help="with --summarise: its children's CPU seconds, as printed")
    parser.add_argument("--embed-chunks", action="store_true",
                        help="profile ragbeam run --embed-chunks (the model included)")
    parser.add_argument("--perf", type=pathlib.Path, metavar="DIR",
                        help="perf record (cpu-clock) the raw loop and the pinned run instead "
                             "of py-spy; keep raw.data and run.data in DIR")
    parser.add_argument("--perf-summarise", type=pathlib.Path, nargs=2,
                        metavar=("RAW", "RUN"), help="only print the split of two kept "
                                                     "perf.data files")
    parser.add_argument("--two-cores", action="store_true",
                        help="with --perf: the run on one core and on two, alternating")
    parser.add_argument("--rounds", type=int, default=2,
                        help="with --two-cores: alternating rounds (default 2)")
    parser.add_argument("--raw-too", action="store_true",
                        help="with --two-cores: the raw loop in one process and in two too")
    parser.add_argument("--baseline-code", type=pathlib.Path, metavar="DIR",
                        help="with --two-cores: each run with this ragbeam too (not the raw "
                             "loops)")
    parser.add_argument("--perf-compare", type=pathlib.Path, nargs="+", metavar="DATA",
                        help="only print kept perf.data files side by side")
    args = parser.parse_args(argv)
    if args.perf_compare:
        print(perf_compare({path.stem: perf_processes(path) for path in args.perf_compare}))
        return 0
    if args.summarise:
        print(summarise(args.summarise.read_text(), args.main_cpu_s, args.children_cpu_s))
        return 0
    if args.perf_summarise:
        print(perf_summary(*map(perf_split, args.perf_summarise)))
        return 0
    profiler = shutil.which("perf" if args.perf else "py-spy")
    if profiler is None:
        sys.exit("perf is not installed (linux-perf)" if args.perf
                 else "py-spy is not installed: pip install py-spy")

    print(compile_bytecode())
    if args.baseline_code:
        args.baseline_code = code_folder(args.baseline_code)
        print(compile_bytecode(args.baseline_code / "ragbeam"))
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
        if args.perf:
            args.perf.mkdir(parents=True, exist_ok=True)
            if args.two_cores:
                perf_two_cores(run, paths, args.perf, work, args.rounds, args.raw_too,
                               args.baseline_code)
                return 0
            perf_record(["taskset", "-c", str(core), sys.executable, "-c", RAW_LOOP, *paths],
                        args.perf / "raw.data")
            perf_record(["taskset", "-c", str(core), *run, "--output", str(work / "perf")],
                        args.perf / "run.data")
            print(f"load average {os.getloadavg()[0]:.1f}")
            print(perf_summary(perf_split(args.perf / "raw.data"),
                               perf_split(args.perf / "run.data")))
            return 0
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
        subprocess.run([profiler, "record", "--subprocesses", "--format", "raw",
                        "--rate", str(args.rate), "--output", str(collapsed), "--",
                        "taskset", "-c", str(core), *run, "--output", str(work / "profiled")],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env={**os.environ, "HF_HUB_OFFLINE": "1"})
        print(f"profile (py-spy, {args.rate} Hz; load average {os.getloadavg()[0]:.1f}):")
        print(summarise(collapsed.read_text(), main_cpu, cpu - main_cpu))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
