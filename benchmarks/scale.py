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

**Runs.** Each run is ``ragbeam run`` (the run library's ``run_pipeline()``: checks, claim, graph,
pipeline, run.json) in a fresh Python process, with one SDK worker process
(``--direct_running_mode multi_processing --direct_num_workers 1``), so that
the worker's memory is measured apart from the runner's. Wall time is that of
``run()``, without Python start-up and imports. Per scale: the first run, then
``--reruns`` unchanged re-runs with ``--previous`` the first (median reported);
with ``--baseline-code DIR``, each re-run is followed by one of the code in DIR
against the same first run, for a before/after in the same run.

**What is reported.**

* *bytes read*: input bytes read by the pipeline: ``Read`` (``ragbeam/bytes_read``)
  plus bytes hashed to detect changes (``ragbeam.incremental/bytes_hashed``);
  and, for re-runs, the size of the previous tables (Parquet files) they read;
* *shuffle bytes*: the bytes of every element that crosses a ``GroupByKey``
  (``CoGroupByKey``'s included). For re-runs, exact: one more re-run, not timed,
  with a step before every GroupByKey that adds up the encoded size of each
  element, with the coder Beam gives the GroupByKey's input
  (``count_grouped_bytes``). For first runs (too long to run twice) Beam's own
  per-PCollection metrics of the run, element count × mean sampled size of the
  GroupByKey inputs (FnApiRunner monitoring infos, matched to the pipeline
  proto), marked ≈; what a first run shuffles is small and uniform (file
  names, shard names), so the sample is close. Side inputs (the verdicts) are
  estimated the same way and reported apart;
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

def count_grouped_bytes() -> None:
    """Put a step before every GroupByKey (``CoGroupByKey``'s included) of the
    pipelines built from now on that adds the encoded size of each element, with
    the coder Beam gives the GroupByKey's input, to the counter
    ``ragbeam.bench/grouped_bytes``. The exact shuffle size, at the cost of one
    more encoding of everything shuffled: used in runs that are not timed."""
    import apache_beam as beam
    from apache_beam.metrics import Metrics

    apply = beam.Pipeline.apply

    def counting_apply(self, transform, pvalueish=None, label=None):
        # Beam re-enters apply() without the label once it has set it: count there.
        if label is None and isinstance(transform, beam.GroupByKey) and \
                isinstance(pvalueish, beam.PCollection):
            coder = beam.coders.registry.get_coder(pvalueish.element_type)
            grouped = Metrics.counter("ragbeam.bench", "grouped_bytes")

            def count(element, coder=coder, grouped=grouped):
                grouped.inc(len(coder.encode(element)))
                return element

            pvalueish = apply(self, beam.Map(count), pvalueish, f"{transform.label} (bytes)")
        return apply(self, transform, pvalueish, label)

    beam.Pipeline.apply = counting_apply


def library_run(args: list[str]) -> dict:
    """``ragbeam run ARGS`` through the run library (or, for ``--baseline-code`` older
    than it, the CLI module's ``run()``). Returns run.json."""
    try:
        from ragbeam.pipeline.run import request_from_argv, run_pipeline
    except ImportError:  # baseline code from before pipeline/run.py
        from ragbeam.pipeline.cli import parse_run_args, run

        config, _, beam_args = parse_run_args(args)
        return run(config, beam_args)
    return dict(run_pipeline(request_from_argv(args)).summary)


def one_run(result_path: pathlib.Path, args: list[str], count_shuffle: bool = False) -> None:
    """Run ``ragbeam run ARGS`` here and write what it did to ``result_path``."""
    import ragbeam.pipeline.graph as graph
    import ragbeam.pipeline.runner as runner

    if count_shuffle:
        count_grouped_bytes()
    captured: dict = {}
    build, summarize = graph.build_pipeline, runner.metrics_summary

    def capture_pipeline(pipeline, *a, **k):
        captured["pipeline"] = pipeline
        return build(pipeline, *a, **k)

    def capture_result(result):
        captured["result"] = result
        return summarize(result)

    graph.build_pipeline, runner.metrics_summary = capture_pipeline, capture_result
    started = time.perf_counter()
    summary = library_run(args)
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
              ("ragbeam.incremental", "bytes_hashed"): "bytes_hashed",
              ("ragbeam.bench", "grouped_bytes"): "grouped_bytes"}
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


def measured_run(work: pathlib.Path, args: list[str], code: pathlib.Path | None = None,
                 count_shuffle: bool = False) -> dict:
    """``one_run`` in a fresh process (with the ragbeam package under ``code`` if
    given), its descendants' peak RSS watched."""
    result = work / f"result-{time.monotonic_ns()}.json"
    flags = ["--count-shuffle"] if count_shuffle else []
    load = os.getloadavg()[0]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(code), env.get("PYTHONPATH")]))
    with PeakWatcher() as watcher:
        done = subprocess.run(
            [sys.executable, __file__, "--one-run", str(result), *flags, "--", *args],
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if done.returncode:
            raise RuntimeError(f"run failed: {args}\n{done.stderr.decode()[-3000:]}")
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
    parser.add_argument("--baseline-code", type=pathlib.Path, metavar="DIR",
                        help="also time re-runs with the ragbeam package in DIR/ragbeam "
                             "(e.g. `git archive REV | tar -x -C DIR/ragbeam`), alternating "
                             "with this code's, against the same first run")
    parser.add_argument("--one-run", type=pathlib.Path, help=argparse.SUPPRESS)
    parser.add_argument("--count-shuffle", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("run_args", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one_run:
        one_run(args.one_run, args.run_args, args.count_shuffle)
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
            codes = {"rerun": None}
            if args.baseline_code:
                codes["baseline rerun"] = args.baseline_code
            reruns: dict[str, list[dict]] = {name: [] for name in codes}
            for i in range(args.reruns):
                for name, code in codes.items():  # alternating, against the same first run
                    out = work / f"rerun-{scale}-{i}"
                    reruns[name].append(measured_run(
                        work, [*common, "--output", str(out), "--previous", str(first_out)],
                        code))
                    assert reruns[name][-1]["changes"] == 0, reruns[name][-1]  # nothing changed
                    shutil.rmtree(out)
            row = {"scale": scale, "files": files, "bytes": size, "first": first}
            for name, runs in reruns.items():
                # One more, not timed, counting the shuffled bytes exactly.
                out = work / f"rerun-{scale}-counted"
                counted = measured_run(work, [*common, "--output", str(out), "--previous",
                                              str(first_out)], codes[name], count_shuffle=True)
                shutil.rmtree(out)
                rerun = dict(runs[-1])
                rerun["exact_shuffle_bytes"] = counted["grouped_bytes"]
                for key in ("wall_s", "worker_rss_mib", "runner_rss_mib"):
                    rerun[key] = statistics.median(r[key] for r in runs)
                rerun["wall_runs"] = [r["wall_s"] for r in runs]
                rerun["previous_tables_bytes"] = tree_bytes(first_out, ("documents", "chunks"))
                row[name] = rerun
            rows.append(row)
            report(rows[-1])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summary(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


def _mb(n: float) -> str:
    return f"{n / 1e6:.2f} MB" if n >= 1e5 or n == 0 else f"{n / 1e3:.1f} kB"


def _shuffled(r: dict) -> str:
    """Exact when counted (re-runs), else Beam's sampled estimate (first runs)."""
    if "exact_shuffle_bytes" in r:
        return _mb(r["exact_shuffle_bytes"])
    return "≈" + _mb(r["shuffle_bytes"])


def report(row: dict) -> None:
    first, rerun = row["first"], row["rerun"]
    print(f"\n{row['scale']}×: {row['files']} files, {_mb(row['bytes'])}, "
          f"{first['documents']} documents, {first['chunks']} chunks")
    runs = [("first run", first), ("unchanged re-run", rerun)]
    if "baseline rerun" in row:
        runs.append(("baseline re-run", row["baseline rerun"]))
    for name, r in runs:
        extra = (f", previous tables {_mb(r['previous_tables_bytes'])}"
                 if "previous_tables_bytes" in r else "")
        runs = (" (" + " ".join(f"{w:.1f}" for w in r["wall_runs"]) + ")"
                if "wall_runs" in r else "")
        print(f"  {name:17} {r['wall_s']:7.1f} s{runs}  read {_mb(r['bytes_read'])} + "
              f"hashed {_mb(r['bytes_hashed'])}{extra}; shuffle {_shuffled(r)} "
              f"({r['shuffle_elements']} elements), side inputs ≈{_mb(r['side_input_bytes'])}; "
              f"peak RSS worker {r['worker_rss_mib']:.0f} MiB, runner {r['runner_rss_mib']:.0f} "
              f"MiB, Tika child {r['tika_child_rss_mib']:.0f} MiB; load {r['load']:.1f}")


def summary(rows: list[dict]) -> None:
    print("\n| scale | files | input | run | wall | bytes read (+ hashed) | shuffle bytes "
          "| peak RSS: worker / runner / Tika child |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    labels = {"first": "first run", "rerun": "unchanged re-run",
              "baseline rerun": "unchanged re-run, baseline code"}
    for row in rows:
        for name, label in labels.items():
            if name not in row:
                continue
            r = row[name]
            read = _mb(r["bytes_read"] + r["bytes_hashed"])
            if name != "first":
                read += f" (+ {_mb(r['previous_tables_bytes'])} previous tables)"
            shuffled = _shuffled(r)
            print(f"| {row['scale']}× | {row['files']} | {_mb(row['bytes'])} | {label} "
                  f"| {r['wall_s']:.1f} s | {read} | {shuffled} "
                  f"| {r['worker_rss_mib']:.0f} / {r['runner_rss_mib']:.0f} / "
                  f"{r['tika_child_rss_mib']:.0f} MiB |")


if __name__ == "__main__":
    sys.exit(main())
