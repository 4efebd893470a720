"""A night with nothing to do against the first night, from the shell (issue 42's
unchanged night without Beam's import).

    python benchmarks/unchanged_night.py [--corpus ../shared/corpus] [--files N]
                                         [--nights 5] [--work DIR] [--json FILE]

Nights of ``ragbeam sync --state S --input INPUT`` (``python -m ragbeam.pipeline.cli``),
each a fresh process, one after the other: the first builds the index, the next ones
build on it. ``INPUT`` is the shared corpus as it is, or with ``--files N`` that many
small real documents made from its text files (``small_files.build_files``: distinct
bytes, settled times). Per night: exit code, wall, CPU (user + system of the process
tree: Tika's children too), the load average before it, whether a pipeline ran, the
documents processed. The baseline is the first night of the same invocation: each
later night's ratio is first / it. Then one more night under ``python -X importtime``:
how many of Beam's modules it imported (0: none).

The shared corpus's transient failures (a file over the extraction memory cap, a scan
OCR could not read here) are retried by the nights after the first, until they fail
the same way three runs in a row: the nights with nothing to do follow.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from pipeline_throughput import DEFAULT_CORPUS  # a sibling script
from small_files import build_files


def night(state: pathlib.Path, inputs: pathlib.Path, name: str, importtime: bool = False
          ) -> dict:
    """One ``ragbeam sync`` in a fresh process, and what it did."""
    load = os.getloadavg()[0]
    command = [sys.executable, *(["-X", "importtime"] if importtime else []), "-m",
               "ragbeam.pipeline.cli", "sync", "--state", str(state), "--input", str(inputs),
               "--run-name", name]
    started = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err,
                                env={**os.environ, "HF_HUB_OFFLINE": "1"})
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    summary = json.loads((state / name / "run.json").read_text())
    out = {"night": name, "exit": os.waitstatus_to_exitcode(status), "wall_s": round(wall, 2),
           "cpu_s": round(usage.ru_utime + usage.ru_stime, 2), "load": round(load, 1),
           "pipeline": summary.get("pipeline", True),
           "processed": summary.get("documents_processed", 0)}
    if importtime:
        out["beam_modules"] = sum(1 for line in stderr.splitlines()
                                  if line.startswith("import time:") and "apache_beam" in line)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--files", type=int, default=0,
                        help="that many small documents made from the corpus (0: the corpus)")
    parser.add_argument("--nights", type=int, default=5)
    parser.add_argument("--work", type=pathlib.Path, default=None)
    parser.add_argument("--json", type=pathlib.Path, default=None)
    args = parser.parse_args(argv)
    work = args.work or pathlib.Path(tempfile.mkdtemp(prefix="unchanged-night-"))
    state = work / "state"
    shutil.rmtree(state, ignore_errors=True)
    inputs = args.corpus.resolve()
    if args.files:
        inputs = work / "files"
        shutil.rmtree(inputs, ignore_errors=True)
        _, size = build_files(args.corpus, inputs, args.files)
        print(f"{args.files} files, {size:,} bytes under {inputs}")
    nights = [night(state, inputs, f"2026-01-{day:02d}") for day in range(1, args.nights + 1)]
    nights.append(night(state, inputs, f"2026-01-{args.nights + 1:02d}", importtime=True))
    first = nights[0]
    print(f"{'night':<12}{'exit':>5}{'wall s':>9}{'CPU s':>8}{'load':>6}  pipeline  processed"
          f"  first/this (wall, CPU)")
    for n in nights:
        ratio = ("" if n is first else
                 f"  {first['wall_s'] / n['wall_s']:.1f}x, {first['cpu_s'] / n['cpu_s']:.1f}x")
        beam = f"  Beam modules imported: {n['beam_modules']}" if "beam_modules" in n else ""
        print(f"{n['night']:<12}{n['exit']:>5}{n['wall_s']:>9.2f}{n['cpu_s']:>8.2f}"
              f"{n['load']:>6.1f}  {n['pipeline']!s:<8}  {n['processed']:>9}{ratio}{beam}")
    if args.json:
        args.json.write_text(json.dumps({"inputs": str(inputs), "nights": nights}, indent=2))
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
