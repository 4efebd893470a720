"""Cost of isolated extraction vs in-process extraction, on the shared corpus, same run.

    python benchmarks/isolation_overhead.py [--corpus ../shared/corpus] [--rounds 5]

Both sides use embedded iscc-tika with the pipeline's settings; every corpus
file is extracted except ``bad/fuzzed-hang.one`` (it never returns in-process;
isolated, it costs exactly ``--extract-timeout``). Files Tika rejects count
too: rejecting is work. Per round, each side extracts the whole corpus once;
the sides alternate which goes first, so a noisy neighbour hurts both alike.
Reported: the median round per side, their ratio, the per-document overhead,
and the one-time cost of starting an extraction child (paid once per child,
and again after a timeout, crash, memory kill or recycle).

A third side, the pipeline's ``ExtractionPool`` with one child per core fed
all the files at once (what ``ExtractWithTika`` does), shows what the pool
buys over one isolated child in the same rounds.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import os
import pathlib
import statistics
import time

from ragbeam.pipeline.config import ExtractOptions
from ragbeam.transforms.cores import available_cores
from ragbeam.transforms.extract.backends import EmbeddedTika, ExtractionError
from ragbeam.transforms.extract.isolation import MIB, ExtractionPool, IsolatedExtractor

DEFAULT_CORPUS = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
SKIPPED = {"bad/fuzzed-hang.one"}


def load_corpus(corpus: pathlib.Path) -> list[tuple[str, bytes]]:
    with open(corpus / "MANIFEST.csv", newline="", encoding="utf-8") as f:
        paths = [row["path"] for row in csv.DictReader(f) if row["path"] not in SKIPPED]
    return [(pathlib.Path(p).name, (corpus / p).read_bytes()) for p in paths]


def extract_all(extract, files: list[tuple[str, bytes]]) -> float:
    started = time.perf_counter()
    for name, data in files:
        with contextlib.suppress(ExtractionError):  # a rejected file still cost its work
            extract(data, name)
    return time.perf_counter() - started


def extract_pooled(pool: ExtractionPool, files: list[tuple[str, bytes]]) -> float:
    started = time.perf_counter()
    futures = [pool.submit(lambda x, d=data, n=name: x.extract(d, n)) for name, data in files]
    for future in futures:
        with contextlib.suppress(ExtractionError):
            future.result()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    files = load_corpus(args.corpus)
    options = ExtractOptions()
    spec = options.backend_spec
    in_process = EmbeddedTika(**spec[1])

    start_began = time.perf_counter()
    isolated = IsolatedExtractor(spec, timeout_s=options.timeout_s,
                                 memory_limit_bytes=options.memory_limit_bytes)
    isolated.extract(b"warm up", "warm-up.txt")
    child_start_s = time.perf_counter() - start_began
    in_process.extract(b"warm up", "warm-up.txt")

    pool = ExtractionPool(spec, available_cores(), timeout_s=options.timeout_s,
                          memory_limit_bytes=options.memory_limit_bytes)
    extract_pooled(pool, [("warm-up.txt", b"warm up")] * pool.size)
    inside, outside, pooled = [], [], []
    tiny = [("tiny.txt", b"one line of text")] * 50
    try:
        tiny_in = extract_all(in_process.extract, tiny) / len(tiny)
        tiny_iso = extract_all(isolated.extract, tiny) / len(tiny)
        for round_index in range(args.rounds):
            sides = [(inside, lambda: extract_all(in_process.extract, files)),
                     (outside, lambda: extract_all(isolated.extract, files)),
                     (pooled, lambda: extract_pooled(pool, files))]
            shift = round_index % len(sides)
            for times, run in sides[shift:] + sides[:shift]:
                times.append(run())
        stats = isolated.stats
    finally:
        isolated.close()
        pool.close()

    in_s, iso_s = statistics.median(inside), statistics.median(outside)
    pool_s = statistics.median(pooled)
    print("rounds in-process:", " ".join(f"{t:.2f}" for t in inside))
    print("rounds isolated:  ", " ".join(f"{t:.2f}" for t in outside))
    print("rounds pool:      ", " ".join(f"{t:.2f}" for t in pooled))
    n = len(files)
    print(f"corpus: {n} files, {sum(len(d) for _, d in files) / MIB:.1f} MiB; "
          f"{args.rounds} rounds, median round per side")
    print(f"in-process extraction: {in_s:7.2f} s  ({in_s / n * 1000:6.1f} ms/document)")
    print(f"isolated extraction:   {iso_s:7.2f} s  ({iso_s / n * 1000:6.1f} ms/document)")
    print(f"ratio isolated / in-process: {iso_s / in_s:.3f}  "
          f"(overhead {(iso_s - in_s) / n * 1000:+.1f} ms/document)")
    print(f"pool of {pool.size} isolated children: {pool_s:7.2f} s  "
          f"({iso_s / pool_s:.2f}x one isolated child, {in_s / pool_s:.2f}x in-process; "
          f"load average {os.getloadavg()[0]:.1f})")
    print(f"fixed cost per document (a 16-byte text file, 50 times): in-process "
          f"{tiny_in * 1000:.1f} ms, isolated {tiny_iso * 1000:.1f} ms "
          f"({(tiny_iso - tiny_in) * 1000:+.1f} ms)")
    print(f"starting one extraction child (Python + iscc-tika + first call): "
          f"{child_start_s:.2f} s")
    print(f"child: {stats.starts} start(s), {stats.recycles} recycle(s), "
          f"peak RSS {stats.peak_rss_bytes / MIB:,.0f} MiB "
          f"(cap {options.memory_mb} MiB)")


if __name__ == "__main__":
    main()
