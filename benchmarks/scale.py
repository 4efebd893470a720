"""Scale: a first run and an unchanged re-run over 1×, 4× and 16× the shared corpus.

    python benchmarks/scale.py [--corpus ../shared/corpus] [--scales 1 4 16]
                               [--reruns 3] [--json FILE]

**Corpus.** Every document of ``MANIFEST.csv`` except ``bad/fuzzed-hang.one``
(it holds any run for the whole extraction timeout), copied N times into
``copyK/`` folders. Text formats get a small edit per copy (a sentence naming
the copy; in HTML inside ``<body>``), so their bytes and chunks differ; binary
formats are copied as they are (other paths, so other documents and ids, the
same extraction work). Every file is given a modification time an hour back:
settled, as a corpus is between nightly runs.

**Runs.** Each run is ``ragbeam run`` (the CLI's ``run()``: checks, claim, graph,
pipeline, run.json) in a fresh Python process, with one SDK worker process
(``--direct_running_mode multi_processing --direct_num_workers 1``), so that
the worker's memory is measured apart from the runner's. Wall time is that of
``run()``, without Python start-up and imports. Per scale: the first run, then
``--reruns`` unchanged re-runs with ``--previous`` the first (median reported).

**What is reported.**

* *bytes read*: input bytes read by the pipeline: ``Read`` (``ragbeam/bytes_read``)
  plus bytes hashed to detect changes (``ragbeam.incremental/bytes_hashed``);
  and, for re-runs, the size of the previous tables (Parquet files) they read;
* *shuffle bytes*: the bytes of every PCollection that crosses a
  ``GroupByKey`` (``CoGroupByKey`` included) or is a side input, from Beam's own
  per-PCollection metrics of the run (FnApiRunner monitoring infos): element count
  × mean encoded size. Beam samples element sizes (all of the first few, then a
  fraction), so this is an estimate within a few percent; it is what Dataflow
  calls a PCollection's estimated size. Matched to the pipeline proto to pick
  the GroupByKey inputs and side inputs;
* *peak RSS*: the kernel's high-water mark (VmHWM) of the SDK worker process,
  of the runner process (which, locally, also holds the shuffled data) and of
  the largest Tika extraction child, polled every 0.1 s (``workers.PeakWatcher``).

The machine is shared, so wall times carry the load of others (load average
printed per run); bytes and RSS do not depend on it.
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
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from workers import MIB, PeakWatcher

DEFAULT_CORPUS = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
HANG = "bad/fuzzed-hang.one"
EXTRACT_TIMEOUT_S = "10"
TEXT = (".txt", ".md", ".csv", ".log")
ONE_WORKER = ["--direct_running_mode", "multi_processing", "--direct_num_workers", "1"]
SETTLED_AGE_S = 3600


# --- the corpus --------------------------------------------------------------------

def edited(data: bytes, suffix: str, copy: int) -> bytes:
    """A copy's bytes: text formats get one sentence more, others stay as they are."""
    sentence = f"This is copy {copy} of the document, made for the scale benchmark."
    if suffix in TEXT:
        return data + f"\n\n{sentence}\n".encode()
    if suffix == ".html" and b"</body>" in data:
        return data.replace(b"</body>", f"<p>{sentence}</p></body>".encode(), 1)
    return data


def build_corpus(corpus: pathlib.Path, target: pathlib.Path, copies: int) -> tuple[int, int]:
    """``copies`` copies of the corpus under ``target``; returns (files, bytes)."""
    with open(corpus / "MANIFEST.csv", newline="", encoding="utf-8") as f:
        paths = [row["path"] for row in csv.DictReader(f) if row["path"] != HANG]
    settled = time.time() - SETTLED_AGE_S
    files = size = 0
    for copy in range(copies):
        for rel in paths:
            source = corpus / rel
            path = target / f"copy{copy}" / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            data = edited(source.read_bytes(), source.suffix.lower(), copy)
            path.write_bytes(data)
            os.utime(path, (settled, settled))
            files += 1
            size += len(data)
    return files, size


# --- one run, in its own process ---------------------------------------------------

def one_run(result_path: pathlib.Path, args: list[str]) -> None:
    """Run ``ragbeam run ARGS`` here and write what it did to ``result_path``."""
    import ragbeam.pipeline.graph as graph
    import ragbeam.pipeline.runner as runner
    from ragbeam.pipeline.cli import parse_run_args, run

    captured: dict = {}
    build, summarize = graph.build_pipeline, runner.metrics_summary

    def capture_pipeline(pipeline, *a, **k):
        captured["pipeline"] = pipeline
        return build(pipeline, *a, **k)

    def capture_result(result):
        captured["result"] = result
        return summarize(result)

    graph.build_pipeline, runner.metrics_summary = capture_pipeline, capture_result
    config, _, beam_args = parse_run_args(args)
    started = time.perf_counter()
    summary = run(config, beam_args)
    wall = time.perf_counter() - started
    figures = {"wall_s": wall, "documents": summary["files_matched"],
               "chunks": summary["chunks"], "unchanged": summary["documents_unchanged"],
               "changes": summary["changes_upsert"] + summary["changes_delete"],
               **counters(captured["result"]),
               **shuffle_bytes(captured["pipeline"], captured["result"])}
    result_path.write_text(json.dumps(figures))


def counters(result) -> dict[str, int]:
    from apache_beam.metrics.metric import MetricsFilter

    wanted = {("ragbeam", "bytes_read"): "bytes_read",
              ("ragbeam.incremental", "bytes_hashed"): "bytes_hashed"}
    out = dict.fromkeys(wanted.values(), 0)
    for counter in result.metrics().query(MetricsFilter())["counters"]:
        key = (counter.key.metric.namespace, counter.key.metric.name)
        if key in wanted:
            out[wanted[key]] += int(counter.committed or counter.attempted or 0)
    return out


def shuffle_bytes(pipeline, result) -> dict[str, int]:
    """Estimated bytes of the GroupByKey inputs and side inputs (see the docstring)."""
    from apache_beam.metrics import monitoring_infos as mi
    from apache_beam.portability import common_urns
    from apache_beam.portability.api import beam_runner_api_pb2

    proto = pipeline.to_runner_api()
    grouped: set[str] = set()
    side: set[str] = set()
    for transform in proto.components.transforms.values():
        if transform.spec.urn == common_urns.primitives.GROUP_BY_KEY.urn:
            grouped.update(transform.inputs.values())
        elif transform.spec.urn == common_urns.primitives.PAR_DO.urn:
            payload = beam_runner_api_pb2.ParDoPayload.FromString(transform.spec.payload)
            side.update(transform.inputs[tag] for tag in payload.side_inputs)
    counts: dict[str, int] = {}
    means: dict[str, float] = {}
    for info in result.monitoring_infos():
        pcollection = info.labels.get(mi.PCOLLECTION_LABEL)
        if info.urn == mi.ELEMENT_COUNT_URN:
            counts[pcollection] = mi.extract_metric_result_map_value(info)
        elif info.urn == mi.SAMPLED_BYTE_SIZE_URN:
            means[pcollection] = mi.extract_metric_result_map_value(info).mean or 0.0

    def total(pcollections: set[str]) -> int:
        return round(sum(counts.get(p, 0) * means.get(p, 0.0) for p in pcollections))

    return {"shuffle_bytes": total(grouped), "side_input_bytes": total(side),
            "shuffle_elements": sum(counts.get(p, 0) for p in grouped)}


def measured_run(work: pathlib.Path, args: list[str]) -> dict:
    """``one_run`` in a fresh process, its descendants' peak RSS watched."""
    result = work / f"result-{time.monotonic_ns()}.json"
    load = os.getloadavg()[0]
    with PeakWatcher() as watcher:
        subprocess.run([sys.executable, __file__, "--one-run", str(result), "--", *args],
                       check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"},
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    figures = json.loads(result.read_text())
    runner = [rss for rss, _, cmd in watcher.peaks.values() if "--one-run" in cmd]
    figures.update(worker_rss_mib=max(watcher.worker_peaks(), default=0) / MIB,
                   runner_rss_mib=max(runner, default=0) / MIB,
                   tika_child_rss_mib=max(watcher.extraction_peaks(), default=0) / MIB,
                   load=load)
    return figures


def tree_bytes(path: pathlib.Path, tables: tuple[str, ...]) -> int:
    return sum(f.stat().st_size for t in tables for f in (path / t).glob("*.parquet"))


# --- the benchmark -----------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--reruns", type=int, default=3)
    parser.add_argument("--json", type=pathlib.Path)
    parser.add_argument("--one-run", type=pathlib.Path, help=argparse.SUPPRESS)
    parser.add_argument("run_args", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one_run:
        one_run(args.one_run, args.run_args)
        return 0

    print(f"cpus: {os.cpu_count()}  load average at start: {os.getloadavg()[0]:.1f}")
    rows = []
    work = pathlib.Path(tempfile.mkdtemp(prefix="ragbeam-bench-scale-"))
    try:
        for scale in args.scales:
            corpus = work / f"corpus-{scale}"
            files, size = build_corpus(args.corpus, corpus, scale)
            common = ["--input", str(corpus), "--extract-timeout", EXTRACT_TIMEOUT_S,
                      *ONE_WORKER]
            first_out = work / f"first-{scale}"
            first = measured_run(work, [*common, "--output", str(first_out)])
            reruns = []
            for i in range(args.reruns):
                out = work / f"rerun-{scale}-{i}"
                reruns.append(measured_run(work, [*common, "--output", str(out),
                                                  "--previous", str(first_out)]))
                assert reruns[-1]["changes"] == 0, reruns[-1]  # nothing changed
                shutil.rmtree(out)
            rerun = dict(reruns[-1])
            for key in ("wall_s", "worker_rss_mib", "runner_rss_mib"):
                rerun[key] = statistics.median(r[key] for r in reruns)
            rerun["wall_runs"] = [r["wall_s"] for r in reruns]
            rerun["previous_tables_bytes"] = tree_bytes(first_out, ("documents", "chunks"))
            rows.append({"scale": scale, "files": files, "bytes": size,
                         "first": first, "rerun": rerun})
            report(rows[-1])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summary(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


def _mb(n: float) -> str:
    return f"{n / 1e6:.2f} MB"


def report(row: dict) -> None:
    first, rerun = row["first"], row["rerun"]
    print(f"\n{row['scale']}×: {row['files']} files, {_mb(row['bytes'])}, "
          f"{first['documents']} documents, {first['chunks']} chunks")
    for name, r in (("first run", first), ("unchanged re-run", rerun)):
        extra = (f", previous tables {_mb(r['previous_tables_bytes'])}"
                 if "previous_tables_bytes" in r else "")
        runs = (" (" + " ".join(f"{w:.1f}" for w in r["wall_runs"]) + ")"
                if "wall_runs" in r else "")
        print(f"  {name:17} {r['wall_s']:7.1f} s{runs}  read {_mb(r['bytes_read'])} + "
              f"hashed {_mb(r['bytes_hashed'])}{extra}; shuffle {_mb(r['shuffle_bytes'])} "
              f"({r['shuffle_elements']} elements) + side inputs {_mb(r['side_input_bytes'])}; "
              f"peak RSS worker {r['worker_rss_mib']:.0f} MiB, runner {r['runner_rss_mib']:.0f} "
              f"MiB, Tika child {r['tika_child_rss_mib']:.0f} MiB; load {r['load']:.1f}")


def summary(rows: list[dict]) -> None:
    print("\n| scale | files | input | run | wall | bytes read (+ hashed) | shuffle bytes "
          "| peak RSS: worker / runner / Tika child |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        for name in ("first", "rerun"):
            r = row[name]
            label = "first run" if name == "first" else "unchanged re-run"
            read = _mb(r["bytes_read"] + r["bytes_hashed"])
            if name == "rerun":
                read += f" (+ {_mb(r['previous_tables_bytes'])} previous tables)"
            shuffled = _mb(r["shuffle_bytes"] + r["side_input_bytes"])
            print(f"| {row['scale']}× | {row['files']} | {_mb(row['bytes'])} | {label} "
                  f"| {r['wall_s']:.1f} s | {read} | {shuffled} "
                  f"| {r['worker_rss_mib']:.0f} / {r['runner_rss_mib']:.0f} / "
                  f"{r['tika_child_rss_mib']:.0f} MiB |")


if __name__ == "__main__":
    sys.exit(main())
