"""A chunking change night: re-chunked from the previous run's ``documents.spans`` vs
re-extracted, and what the column costs in storage.

    python benchmarks/rechunk_night.py [--corpus ../shared/corpus] [--repeats 2]
                                       [--option --chunk-size --option 256]

The corpus is staged without the file that hangs Tika and ``bad/empty.pdf``. A first
run with the defaults, then, alternating, ``--repeats`` times each, ``ragbeam run
--previous FIRST OPTIONS`` (the night after a chunking change: documents chunked again
from their rows) and the same against a copy of FIRST without the ``spans`` column
(the baseline: what every run before the column did, re-extracting every document).
Each run is a ``ragbeam run`` from the shell, pinned to one core (``taskset -c 0``);
CPU is user + sys of the run and its children. Both nights' ``chunks`` and
``documents`` tables are compared (``spans`` aside). Prints the figures, the ratio
after/before, the load average, and the column's size next to the tables'.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.parquet as pq

REPO = pathlib.Path(__file__).resolve().parents[1]
LEFT_OUT = ("fuzzed-hang.one", "empty.pdf", "LICENSES", "MANIFEST.csv", "README.md",
            "headers_truth.json")


def run(corpus: pathlib.Path, out: pathlib.Path, *extra: str) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.time()
    proc = subprocess.run(["taskset", "-c", "0", sys.executable, "-m", "ragbeam.pipeline.cli",
                           "run", "--input", str(corpus), "--output", str(out), *extra],
                          capture_output=True, text=True)
    wall = time.time() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 3):  # 3: the broken files push the error rate over
        raise SystemExit(proc.stderr[-3000:])
    summary = json.loads((out / "run.json").read_text())
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    extracted = summary.get("extracted") or {}
    return {"cpu_s": cpu, "wall_s": wall, "chunks": summary["chunks"],
            "extracted": extracted.get("ok", 0) + extracted.get("failed", 0),
            "reused": extracted.get("reused", 0)}


def rows(out: pathlib.Path, table: str, key: str) -> dict[str, dict]:
    tables = [pq.read_table(f) for f in sorted((out / table).glob("*.parquet"))]
    out_rows = {r[key]: r for r in pa.concat_tables(tables).to_pylist()}
    for r in out_rows.values():
        r.pop("spans", None)
    return out_rows


def column_bytes(out: pathlib.Path) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for f in (out / "documents").glob("*.parquet"):
        metadata = pq.ParquetFile(f).metadata
        for g in range(metadata.num_row_groups):
            for c in range(metadata.num_columns):
                column = metadata.row_group(g).column(c)
                top = column.path_in_schema.split(".")[0]
                sizes[top] = sizes.get(top, 0) + column.total_compressed_size
    return sizes


def table_bytes(out: pathlib.Path, table: str) -> int:
    return sum(f.stat().st_size for f in (out / table).glob("*.parquet"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default=str(REPO.parent / "shared" / "corpus"))
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--option", action="append", default=None,
                        help="the night's option, one word per --option "
                        "(default: --chunk-size 256)")
    args = parser.parse_args()
    option = args.option or ["--chunk-size", "256"]
    work = pathlib.Path(tempfile.mkdtemp(prefix="rechunk-"))
    corpus = work / "corpus"
    shutil.copytree(args.corpus, corpus, ignore=shutil.ignore_patterns(*LEFT_OUT))
    first = work / "first"
    run(corpus, first)
    without = work / "first-without-spans"
    shutil.copytree(first, without)
    for f in (without / "documents").glob("*.parquet"):
        pq.write_table(pq.read_table(f).drop_columns(["spans"]), f, compression="zstd")
    figures: dict[str, list[dict]] = {"re-extracted": [], "re-chunked": []}
    for i in range(args.repeats):
        for name, previous in (("re-extracted", without), ("re-chunked", first)):
            out = work / f"{name}-{i}"
            figures[name].append(run(corpus, out, *option, "--previous", str(previous)))
    same = all(rows(work / "re-extracted-0", t, k) == rows(work / "re-chunked-0", t, k)
               for t, k in (("chunks", "chunk_id"), ("documents", "doc_id")))
    print(f"night: {' '.join(option)} --previous; load average {os.getloadavg()}")
    for name, runs in figures.items():
        print(f"{name:>13}: extracted {runs[0]['extracted']}, reused {runs[0]['reused']}, "
              f"chunks {runs[0]['chunks']}, CPU "
              + ", ".join(f"{r['cpu_s']:.1f} s" for r in runs) + ", wall "
              + ", ".join(f"{r['wall_s']:.1f} s" for r in runs))
    before = sorted(r["cpu_s"] for r in figures["re-extracted"])
    after = sorted(r["cpu_s"] for r in figures["re-chunked"])
    print(f"CPU after/before (medians): {after[len(after) // 2] / before[len(before) // 2]:.2f}")
    print(f"tables equal (spans aside): {same}")
    columns = column_bytes(first)
    documents, chunks = table_bytes(first, "documents"), table_bytes(first, "chunks")
    spans = columns.get("spans", 0)
    print(f"storage: spans {spans:,} B; text {columns.get('text', 0):,} B; documents "
          f"{documents:,} B ({spans / (documents - spans):+.0%} over the table without it); "
          f"chunks {chunks:,} B; both tables {spans / (documents + chunks - spans):+.0%}")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
