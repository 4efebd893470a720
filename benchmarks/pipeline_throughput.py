"""Whole-pipeline throughput against raw Tika, and what a second core buys, in one run.

    python benchmarks/pipeline_throughput.py [--corpus DIR] [--repeats 3] [--json FILE]

``--corpus``: a folder with a ``MANIFEST.csv`` (a ``path`` column): the shared
corpus (default; its deliberately broken files under ``bad/`` are left out) or
the large-document corpus (``benchmarks/large_docs.py build``). The files are
copied into one staging folder, so every variant sees exactly the same bytes.

Every variant runs as its own process, measured from launch to exit (wall) and
by the CPU time of its whole process tree (``wait4``: the process and every
child it waited for, Tika children included):

* ``raw 1 process``: iscc-tika alone, a plain loop (one ``Extractor``, XHTML
  output, the pipeline's string limit) over the files. **The baseline.** Its
  time is the loop's (Python start-up and the import are left out, in its favour).
* ``raw 1 process, no tesseract on PATH``: the same loop where no ``tesseract``
  can be found. iscc-tika starts ``tesseract`` four times a document to see
  whether it is installed, OCR on or off (about a third of the loop's CPU where
  Tesseract is installed); ragbeam's extraction children hide it the same way, so
  this is the library's own floor, the second baseline every CPU ratio is given
  against.
* ``raw 2 processes``: the same loop split over a ``multiprocessing.Pool(2)``
  (one file per task, taken in turn): what a user running Tika in a process
  pool gets; the ceiling for two cores.
* ``ragbeam run`` (defaults): the whole pipeline, every stage, Parquet written,
  ``run.json`` — on this machine's cores: one Tika child per core.
* ``ragbeam run --extract-processes 1``: one extraction child (the pipeline's
  own thread still works beside it on finished documents).
* ``ragbeam run`` pinned to one core (``sched_setaffinity``; the default then
  starts one child): the whole pipeline on one core.
* with ``--beam-workers``: ``--direct_running_mode multi_processing
  --direct_num_workers 2`` (Beam's own worker processes; one child each).
* with ``--with-ocr``: ``ragbeam run`` as shipped, OCR on (not in the ratios).
* with ``--baseline-code DIR``: each ``ragbeam run`` variant once more with the
  ragbeam package found in ``DIR`` (``DIR/ragbeam``, e.g. ``git archive COMMIT |
  tar -x -C DIR/ragbeam``, or that package folder itself; put first on
  ``PYTHONPATH``; a folder without the package is refused), named ``… [baseline]``,
  in the same rounds, so a change is measured against the code before it at the
  same load; its ratios are printed beside the current code's.

``--only NAME`` (repeatable) keeps the named variants (and their baselines);
``raw 1 process`` and its no-tesseract twin always run, as every ratio needs them.

Equal work: every ``ragbeam run`` variant above runs with ``--ocr off``, as the
raw loop does no OCR. With OCR on (the default), ragbeam also reads pages that
have no usable text layer with Tesseract, seconds a page: work the raw loop
never does (its cost: ``benchmarks/ocr_cost.py``).

The machine may be shared: the variants alternate within each round (the
order rotates from round to round), the median per variant is used, each ratio
comes from the same rounds, and the load average is printed with every run.
The start-up figure is ``run.json``'s ``first_document_after_s``: from the
launch of ``ragbeam run`` to the first document out of extraction.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import asdict, dataclass

from ragbeam.transforms.extract.backends import path_without

REPO = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
BROKEN_PREFIX = "bad/"  # the shared corpus's deliberately broken (and hanging) files

RAW_LOOP = textwrap.dedent("""
    import json, sys, time
    import iscc_tika
    paths = sys.argv[1:]
    started = time.perf_counter()
    extractor = (iscc_tika.Extractor().set_xml_output(True)
                 .set_extract_string_max_length(100_000_000))
    failed = 0
    for path in paths:
        try:
            with open(path, "rb") as f:
                extractor.extract_bytes_to_string(bytearray(f.read()))
        except Exception:
            failed += 1
    print(json.dumps({"seconds": time.perf_counter() - started, "failed": failed}))
""")

RAW_POOL = textwrap.dedent("""
    import json, multiprocessing, sys, time
    import iscc_tika
    extractor = None
    def extract(path):
        global extractor
        if extractor is None:
            extractor = (iscc_tika.Extractor().set_xml_output(True)
                         .set_extract_string_max_length(100_000_000))
        try:
            with open(path, "rb") as f:
                extractor.extract_bytes_to_string(bytearray(f.read()))
            return 0
        except Exception:
            return 1
    if __name__ == "__main__":
        processes, paths = int(sys.argv[1]), sys.argv[2:]
        started = time.perf_counter()
        with multiprocessing.Pool(processes) as pool:
            failed = sum(pool.imap_unordered(extract, paths, chunksize=1))
        print(json.dumps({"seconds": time.perf_counter() - started, "failed": failed}))
""")


@dataclass
class Measured:
    variant: str
    seconds: float  # what the ratios use
    wall_s: float  # launch to exit
    cpu_s: float  # user + system of the whole process tree
    load: float  # 1-minute load average when it ended
    first_document_after_s: float | None = None
    documents_ok: int | None = None
    chunks: int | None = None
    own_cpu_s: float | None = None  # the ``ragbeam run`` process alone, not its children


def corpus_files(corpus: pathlib.Path) -> list[str]:
    with open(corpus / "MANIFEST.csv", newline="", encoding="utf-8") as f:
        return [r["path"] for r in csv.DictReader(f) if not r["path"].startswith(BROKEN_PREFIX)]


def compile_bytecode(package: pathlib.Path | None = None) -> str:
    """Write ragbeam's bytecode (``__pycache__``) before fresh processes are timed, as
    ``pip install`` does: with ``PYTHONDONTWRITEBYTECODE`` set (as on the shared dev
    machine) a source checkout is compiled again by every process, ~0.5 s of CPU that
    an installed ragbeam never pays. Returns a line saying what was done."""
    import compileall
    import importlib.util

    if package is None:
        package = pathlib.Path(importlib.util.find_spec("ragbeam").origin).parent
    skip = r"[/\\](tests|benchmarks|docs|samples|deploy|\.venv)[/\\]"
    ok = compileall.compile_dir(package, quiet=1, rx=re.compile(skip))
    return (f"bytecode: ragbeam's modules compiled under {package} (as pip install does)"
            + ("" if ok else " — some failed to compile"))


def code_folder(folder: pathlib.Path) -> pathlib.Path:
    """The folder to put first on ``PYTHONPATH`` so that ``import ragbeam`` finds the
    package in ``folder``: its parent when ``folder`` is the package itself. Given a
    folder holding no ``ragbeam`` package, the import would quietly find the current
    code and the baseline would measure it: that is an error."""
    folder = folder.resolve()
    if (folder / "__init__.py").is_file() and folder.name == "ragbeam":
        return folder.parent
    if not (folder / "ragbeam" / "__init__.py").is_file():
        raise SystemExit(f"--baseline-code {folder}: no ragbeam package there or in it")
    return folder


def stage_files(corpus: pathlib.Path, files: list[str], staging: pathlib.Path) -> list[str]:
    """Copy ``files`` (relative to ``corpus``) into ``staging``; their new paths."""
    for rel in files:
        target = staging / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(corpus / rel, target)
    return [str(staging / rel) for rel in files]


def _timed(cmd: list[str], one_core: bool = False, code: pathlib.Path | None = None,
           hide_tesseract: bool = False) -> tuple[float, float, str]:
    """Run ``cmd``; (wall seconds, CPU seconds of its process tree, stdout). ``code``:
    a folder holding another ``ragbeam`` package, put first on ``PYTHONPATH``;
    ``hide_tesseract``: no ``tesseract`` on the command's ``PATH``."""
    cpu = sorted(os.sched_getaffinity(0))[0] if one_core else None
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    if hide_tesseract:
        env["PATH"] = path_without("tesseract", env.get("PATH", os.defpath))
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(code), env.get("PYTHONPATH")]))
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, env=env,
                                preexec_fn=(lambda: os.sched_setaffinity(0, {cpu}))
                                if one_core else None)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode()
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[:4]}… exited {proc.returncode}: {text[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, text


RAW = "raw 1 process"
RAW_FLOOR = "raw 1 process, no tesseract on PATH"


def run_raw(paths: list[str], processes: int, hide_tesseract: bool = False) -> Measured:
    if processes == 1:
        cmd = [sys.executable, "-c", RAW_LOOP, *paths]
    else:
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
            script.write(RAW_POOL)
        cmd = [sys.executable, script.name, str(processes), *paths]
    try:
        wall, cpu, out = _timed(cmd, hide_tesseract=hide_tesseract)
    finally:
        if processes != 1:
            os.unlink(script.name)
    inner = json.loads(out.strip().splitlines()[-1])
    name = (f"raw {processes} processes" if processes != 1
            else RAW_FLOOR if hide_tesseract else RAW)
    return Measured(name, inner["seconds"], wall, cpu, os.getloadavg()[0])


# The raw loop does no OCR: neither do the pipeline variants that are compared to it.
EQUAL_WORK = ["--ocr", "off"]
# ``ragbeam run`` that prints its own process's CPU time (``getrusage(RUSAGE_SELF)``:
# not its extraction children's) last, so that a change to the run process can be
# told apart from the children's Tika, which varies with the machine's load.
OWN_CPU = "ragbeam run process CPU s: "
REPORT_OWN_CPU = f"""
import atexit, resource, runpy, sys
def report():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print("{OWN_CPU}" + str(usage.ru_utime + usage.ru_stime), flush=True)
atexit.register(report)
sys.argv = ["ragbeam", *sys.argv[1:]]
runpy.run_module("ragbeam.pipeline.cli", run_name="__main__", alter_sys=True)
"""


def run_pipeline(name: str, staging: pathlib.Path, extra: list[str], one_core: bool = False,
                 ocr: bool = False, code: pathlib.Path | None = None) -> Measured:
    with tempfile.TemporaryDirectory(prefix="ragbeam-bench-") as tmp:
        out = pathlib.Path(tmp) / "out"
        wall, cpu, printed = _timed([sys.executable, "-c", REPORT_OWN_CPU, "run",
                                     "--input", str(staging), "--output", str(out),
                                     *([] if ocr else EQUAL_WORK), *extra],
                                    one_core=one_core, code=code)
        summary = json.loads((out / "run.json").read_text())
    own = [line.removeprefix(OWN_CPU) for line in printed.splitlines()
           if line.startswith(OWN_CPU)]
    return Measured(name, wall, wall, cpu, os.getloadavg()[0],
                    summary.get("extraction", {}).get("first_document_after_s"),
                    summary["documents_ok"], summary["chunks"],
                    float(own[-1]) if own else None)


BASELINE = " [baseline]"


def variants(staging: pathlib.Path, paths: list[str], beam_workers: bool,
             with_ocr: bool = False, baseline_code: pathlib.Path | None = None,
             only: list[str] | None = None) -> dict:
    pipelines = {  # name: run_pipeline's keyword arguments
        "ragbeam run": {"extra": []},
        "ragbeam run --extract-processes 1": {"extra": ["--extract-processes", "1"]},
        "ragbeam run on one core": {"extra": [], "one_core": True},
    }
    if with_ocr:
        pipelines["ragbeam run, OCR on"] = {"extra": [], "ocr": True}
    if beam_workers:
        pipelines["ragbeam run, 2 Beam workers"] = {
            "extra": ["--direct_running_mode", "multi_processing", "--direct_num_workers", "2"]}
    found = {
        RAW: lambda: run_raw(paths, 1),
        RAW_FLOOR: lambda: run_raw(paths, 1, hide_tesseract=True),
        "raw 2 processes": lambda: run_raw(paths, 2),
    }
    for name, kwargs in pipelines.items():
        found[name] = lambda name=name, kwargs=kwargs: run_pipeline(name, staging, **kwargs)
        if baseline_code is not None:
            found[name + BASELINE] = lambda name=name, kwargs=kwargs: run_pipeline(
                name + BASELINE, staging, **kwargs, code=baseline_code)
    if only:
        found = {name: run for name, run in found.items()
                 if name in (RAW, RAW_FLOOR) or name.removesuffix(BASELINE) in only}
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--beam-workers", action="store_true",
                        help="also run with 2 multi_processing Beam workers")
    parser.add_argument("--with-ocr", action="store_true",
                        help="also run ragbeam as shipped, OCR on (not equal work)")
    parser.add_argument("--baseline-code", type=pathlib.Path, metavar="DIR",
                        help="also run each ragbeam variant with the ragbeam package in DIR")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="run only these variants (and the two raw loops); repeatable")
    parser.add_argument("--json", type=pathlib.Path, help="also write every run here")
    args = parser.parse_args(argv)
    if args.baseline_code:
        args.baseline_code = code_folder(args.baseline_code)
    print(compile_bytecode())
    if args.baseline_code:
        print(compile_bytecode(args.baseline_code / "ragbeam"))

    files = corpus_files(args.corpus)
    staging = pathlib.Path(tempfile.mkdtemp(prefix="ragbeam-bench-in-"))
    paths = stage_files(args.corpus, files, staging)
    total_mb = sum(os.path.getsize(p) for p in paths) / 1e6
    print(f"corpus: {args.corpus} — {len(files)} files, {total_mb:.1f} MB; "
          f"{len(os.sched_getaffinity(0))} cores; load average {os.getloadavg()[0]:.1f}",
          flush=True)

    todo = variants(staging, paths, args.beam_workers, args.with_ocr, args.baseline_code,
                    args.only)
    runs: dict[str, list[Measured]] = {name: [] for name in todo}
    try:
        for round_index in range(args.repeats):
            names = list(todo)
            shift = round_index % len(names)
            for name in names[shift:] + names[:shift]:  # rotate who goes first
                measured = todo[name]()
                runs[name].append(measured)
                print(f"  round {round_index + 1}: {name:36s} {measured.seconds:6.2f} s "
                      f"(wall {measured.wall_s:5.1f} s, CPU {measured.cpu_s:5.1f} s"
                      + (f", of which the run process {measured.own_cpu_s:.1f} s"
                         if measured.own_cpu_s is not None else "")
                      + (f", first document after {measured.first_document_after_s:.1f} s"
                         if measured.first_document_after_s is not None else "")
                      + f"; load {measured.load:.1f})", flush=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    report(runs, len(files), total_mb)
    if args.json:
        args.json.write_text(json.dumps({k: [asdict(m) for m in v] for k, v in runs.items()},
                                        indent=2))
    return 0


def report(runs: dict[str, list[Measured]], n_files: int, total_mb: float) -> None:
    med = {name: statistics.median(m.seconds for m in ms) for name, ms in runs.items() if ms}
    cpu = {name: statistics.median(m.cpu_s for m in ms) for name, ms in runs.items() if ms}
    own = {name: statistics.median(m.own_cpu_s for m in ms) for name, ms in runs.items()
           if ms and all(m.own_cpu_s is not None for m in ms)}
    raw = med[RAW]
    repeats = len(runs[RAW])
    loads = [m.load for ms in runs.values() for m in ms]
    print(f"\nmedians of {repeats} alternating rounds; load average during the runs "
          f"{min(loads):.1f}–{max(loads):.1f}")
    print(f"{'':38} {'seconds':>8} {'docs/s':>7} {'MB/s':>6} {'× raw':>6} {'CPU s':>6}"
          f" {'run process CPU s':>18}")
    for name, t in med.items():
        print(f"{name:38} {t:8.2f} {n_files / t:7.2f} {total_mb / t:6.2f} {t / raw:6.2f} "
              f"{cpu[name]:6.1f}" + (f" {own[name]:18.1f}" if name in own else ""))
    print("\nratios (same rounds):")
    suffixes = ("", BASELINE) if any(name.endswith(BASELINE) for name in med) else ("",)
    for suffix in suffixes:
        print_ratios(med, cpu, suffix)
    if "raw 2 processes" in med:
        print(f"  raw 2 processes vs raw 1 (Tika's own ceiling):    "
              f"{raw / med['raw 2 processes']:5.2f}×")
    for suffix in suffixes:
        firsts = [m.first_document_after_s for m in runs.get("ragbeam run" + suffix, [])
                  if m.first_document_after_s is not None]
        if firsts:
            print(f"  start-up, launch to first document extracted:     "
                  f"{statistics.median(firsts):5.2f} s (median){suffix}")


def print_ratios(med: dict[str, float], cpu: dict[str, float], suffix: str) -> None:
    """The ratios of the variants named ``NAME + suffix`` that ran."""
    raw, raw_cpu = med[RAW], cpu[RAW]
    default = med.get("ragbeam run" + suffix)
    one = med.get("ragbeam run --extract-processes 1" + suffix)
    pinned = med.get("ragbeam run on one core" + suffix)
    lines = []
    if default:
        lines.append(f"pipeline defaults (1 Beam worker) / raw 1 process: {default / raw:5.2f}×"
                     "  (target ≤ 1.25)")
    if one:
        one_cpu = cpu["ragbeam run --extract-processes 1" + suffix]
        lines.append(f"pipeline, 1 extraction process / raw 1 process:   {one / raw:5.2f}×")
        lines.append(f"pipeline CPU / raw CPU (all work, 1 process):     {one_cpu / raw_cpu:5.2f}×")
    if pinned:
        pinned_cpu = cpu["ragbeam run on one core" + suffix]
        lines.append(f"pipeline on one core / raw 1 process:             {pinned / raw:5.2f}×")
        lines.append(f"pipeline on one core, CPU / raw CPU:              "
                     f"{pinned_cpu / raw_cpu:5.2f}×  (issue 42's target ≤ 1.5)")
        if RAW_FLOOR in cpu:
            lines.append(f"pipeline on one core, CPU / raw CPU without the Tesseract "
                         f"checks: {pinned_cpu / cpu[RAW_FLOOR]:5.2f}×")
    if one and default:
        lines.append(f"2 extraction processes vs 1 (default vs flag):    {one / default:5.2f}×")
    if pinned and default:
        lines.append(f"2 cores vs 1 core (default run, pinned):          {pinned / default:5.2f}×"
                     "  (target ≥ 1.8)")
    if default and "raw 2 processes" in med:
        lines.append(f"pipeline default / raw 2 processes:               "
                     f"{default / med['raw 2 processes']:5.2f}×")
    workers = med.get("ragbeam run, 2 Beam workers" + suffix)
    if workers and one:
        lines.append(f"2 Beam workers (multi_processing) vs --extract-processes 1: "
                     f"{one / workers:5.2f}×")
    ocr = med.get("ragbeam run, OCR on" + suffix)
    if ocr and default:
        lines.append(f"OCR on (not equal work) vs --ocr off, defaults:   {ocr / default:5.2f}×")
    for line in lines:
        print(f"  {line}{suffix}")


if __name__ == "__main__":
    sys.exit(main())
