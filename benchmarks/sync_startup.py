"""A run into four vector stores against a plain run of the same files: wall and CPU
time, and where the launcher's time goes (issue 41: a sync into four stores spent
73-157 s in start-up against a 35 s plain run).

    python benchmarks/sync_startup.py [--input DIR] [--rounds N]

Each round runs, one after another and in a fresh process each, ``ragbeam run
--embed-chunks`` (the plain run: it embeds, as a run with stores does) and the
same run with ``--sparse`` and four local stores (Milvus Lite, Qdrant local mode,
LanceDB, Chroma), each into a new output and new stores. Printed per run: wall
seconds, CPU seconds of the command and its children (Tika children, Milvus
Lite's server), the summary's breakdown (start-up, stores, model load, store
checks, pipeline), the load average; then the stores run's ratios to the plain
run's, wall and CPU, the median over the rounds.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
STORES = ("milvus:{d}/index.db?collection=docs", "qdrant:{d}/qdrant-data?collection=docs",
          "lancedb:{d}/lance-data?collection=docs", "chroma:{d}/chroma-data?collection=docs")


def _run(argv: list[str]) -> tuple[float, float, str]:
    """Wall and CPU seconds (the command and its children) of ``ragbeam argv``, and
    its summary's time breakdown."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", "from ragbeam.pipeline.cli import "
                           "console_main; console_main()", *argv], capture_output=True,
                          text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"}, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"ragbeam {' '.join(argv)} exited {done.returncode}:\n"
                         f"{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    found = re.search(r"chunks in (.*)$", done.stdout, re.M)
    return wall, cpu, found.group(1) if found else "?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--input", type=pathlib.Path, default=REPO / "samples")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    walls, cpus = [], []
    with tempfile.TemporaryDirectory(prefix="ragbeam-sync-startup-") as work:
        for round_ in range(args.rounds):
            base = ["run", "--input", str(args.input), "--exclude", "*.py",
                    "--max-error-rate", "1"]
            plain = _run([*base, "--output", f"{work}/plain-{round_}", "--embed-chunks"])
            stores_dir = f"{work}/stores-{round_}"
            os.makedirs(stores_dir)
            sinks = [arg for uri in STORES for arg in ("--sink", uri.format(d=stores_dir))]
            stores = _run([*base, "--output", f"{stores_dir}/out", "--sparse", *sinks])
            load = os.getloadavg()[0]
            for name, (wall, cpu, breakdown) in (("plain", plain), ("4 stores", stores)):
                print(f"round {round_ + 1} {name:8}: wall {wall:6.1f} s, CPU {cpu:6.1f} s; "
                      f"{breakdown}; load {load:.1f}")
            walls.append(stores[0] / plain[0])
            cpus.append(stores[1] / plain[1])
    print(f"4 stores / plain, median of {args.rounds}: wall {statistics.median(walls):.2f}x, "
          f"CPU {statistics.median(cpus):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
