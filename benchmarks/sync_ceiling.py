"""The sync at its ceiling: ``ragbeam run --embed-chunks`` against its two parts alone.

    python benchmarks/sync_ceiling.py [--corpus DIR] [--repeats 3] [--precision auto]
                                      [--no-sink] [--json FILE]

``--corpus``: a folder with a ``MANIFEST.csv`` (a ``path`` column), by default
the shared corpus without its deliberately broken files (``bad/``); the files
are copied into one staging folder, so every variant reads the same bytes.

In one run, every variant as its own fresh process, for each ``--precision``
(``auto``, the default: the run as shipped, backend and precision chosen by the
probe; ``fp32`` or ``bf16``: given to the run with ``--embedding-backend torch``):

a. ``raw Tika``: iscc-tika alone, one process per core
   (``pipeline_throughput.py``'s plain loop, or its ``multiprocessing.Pool``
   for more than one core), timed from its first file to its last (the
   import left out, in its favour);
b. ``plain encode``: sentence-transformers as shipped,
   ``SentenceTransformer(model)`` with ``torch.set_num_threads(cores)``,
   ``model.encode(texts, batch_size=64, normalize_embeddings=True)`` of exactly
   the texts the pipeline embedded (each chunk's ``chunk_embedding_text``, read
   back from the pipeline's own chunks table, each distinct text once), the
   model loaded beforehand, timed from the first text to the last (loading left
   out, in its favour); in fp32, and also in bf16 (``model.to(torch.bfloat16)``)
   where the CPU has native bf16 or a ``--precision bf16`` asks for it. The
   ceiling takes the faster of them: the fastest plain encode on this machine;
c. ``ragbeam run --embed-chunks --ocr off``: launch to exit (wall clock);
d. the same with ``--sink milvus:PATH.db`` (Milvus Lite, a fresh file each run;
   ``--no-sink`` leaves it out).

The target is (c) / ((a) + (b)) <= 1.0 and (d) / ((a) + (b)) <= 1.0: the
pipeline overlaps extraction and embedding instead of adding them. Each
stage's share of (a) + (b) is printed, and the CPU time of every variant's
process tree (``wait4``: Tika and Milvus children included).

The variants alternate within each round (the order rotates from round to
round; the first round starts with a pipeline run, whose chunks give the
texts for (b)); medians per variant; every pipeline run must give the same
chunk texts (checked). The load average is printed with every run: on a shared
machine wall-clock figures are only comparable within one run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import shutil
import statistics
import sys
import tempfile
import textwrap
from dataclasses import asdict

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from pipeline_throughput import (  # a sibling script, not a package
    DEFAULT_CORPUS,
    Measured,
    _timed,
    corpus_files,
    run_raw,
    stage_files,
)

PLAIN_ENCODE = textwrap.dedent("""
    import json, os, sys, time
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as ragbeam's runs set it
    import torch
    from sentence_transformers import SentenceTransformer
    from ragbeam.transforms.embed.model import default_model_path
    precision, threads, texts_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(texts_file, encoding="utf-8") as f:
        texts = json.load(f)
    torch.set_num_threads(threads)
    model = SentenceTransformer(default_model_path(), device="cpu").eval()
    if precision == "bf16":
        model = model.to(torch.bfloat16)
    model.encode(texts[:8], batch_size=64, show_progress_bar=False)  # kernels, allocator
    started, cpu = time.perf_counter(), time.process_time()
    model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
    print(json.dumps({"seconds": time.perf_counter() - started,
                      "cpu": time.process_time() - cpu}))
""")


def embedded_texts(output: pathlib.Path) -> list[str]:
    """What the pipeline embedded: each chunk's embedding text, each distinct one once."""
    from ragbeam.transforms.embed.text import chunk_embedding_text
    from ragbeam.transforms.write.read import read_table_columns

    table = read_table_columns(str(output), "chunks", ["text", "context", "embed_text"])
    rows = table.to_pylist() if table is not None else []
    return sorted({chunk_embedding_text(row) for row in rows})


def embedding_flags(precision: str) -> list[str]:
    """``auto``: the defaults (the run as shipped); else torch in that precision."""
    if precision == "auto":
        return []
    return ["--embedding-backend", "torch", "--embedding-precision", precision]


def texts_digest(texts: list[str]) -> str:
    return hashlib.sha256("\0".join(texts).encode()).hexdigest()[:16]


class Bench:
    """The staging folder, a work folder for outputs, and the texts the pipeline embeds."""

    def __init__(self, staging: pathlib.Path, paths: list[str], work: pathlib.Path) -> None:
        self.staging, self.paths, self.work = staging, paths, work
        self.cores = len(os.sched_getaffinity(0))
        self.texts_file = work / "texts.json"
        self.digest: str | None = None
        self.runs = 0
        self.inner_cpu: dict[str, list[float]] = {}  # plain encodes: the timed part's CPU
        self.choices: dict[str, str] = {}  # ragbeam runs: the backend/precision they used

    def raw(self) -> Measured:
        measured = run_raw(self.paths, self.cores)
        measured.variant = "raw Tika"
        return measured

    def encode(self, precision: str) -> Measured:
        if self.digest is None:
            raise RuntimeError("no pipeline run yet: nothing to encode")
        wall, cpu, out = _timed([sys.executable, "-c", PLAIN_ENCODE, precision,
                                 str(self.cores), str(self.texts_file)])
        inner = json.loads(out.strip().splitlines()[-1])
        name = f"plain encode {precision}"
        self.inner_cpu.setdefault(name, []).append(inner["cpu"])
        return Measured(name, inner["seconds"], wall, cpu, os.getloadavg()[0])

    def pipeline(self, precision: str, sink: bool) -> Measured:
        self.runs += 1
        out = self.work / f"out-{self.runs}"
        extra = ["--sink", f"milvus:{self.work / f'index-{self.runs}.db'}"] if sink else []
        try:
            wall, cpu, _ = _timed([sys.executable, "-m", "ragbeam.pipeline.cli", "run",
                                   "--input", str(self.staging), "--output", str(out),
                                   "--embed-chunks", "--ocr", "off",
                                   *embedding_flags(precision), *extra])
            summary = json.loads((out / "run.json").read_text())
            texts = embedded_texts(out)
        finally:
            shutil.rmtree(out, ignore_errors=True)
            shutil.rmtree(self.work / f"index-{self.runs}.db", ignore_errors=True)
            (self.work / f"index-{self.runs}.db").unlink(missing_ok=True)
        digest = texts_digest(texts)
        if self.digest is None:
            self.texts_file.write_text(json.dumps(texts), encoding="utf-8")
            self.digest = digest
        elif digest != self.digest:
            raise RuntimeError(f"chunk texts differ between pipeline runs ({digest} vs "
                               f"{self.digest}): the ceiling would not be the same work")
        name = f"ragbeam run {precision}" + (" --sink milvus" if sink else "")
        used = summary.get("embedding", {})
        self.choices[f"ragbeam run {precision}"] = (
            f"{used.get('backend')}/{used.get('precision')}"
            + (f" ({used['precision_choice']['reason']})" if "precision_choice" in used else ""))
        return Measured(name, wall, wall, cpu, os.getloadavg()[0],
                        summary.get("extraction", {}).get("first_document_after_s"),
                        summary["documents_ok"], summary["chunks"])


def plain_precisions(precisions: list[str]) -> list[str]:
    """The plain encodes the ceiling takes the fastest of: fp32, and bf16 where the CPU
    has native bf16 (emulated bf16 is slower than fp32) or a run asks for it."""
    from ragbeam.transforms.embed.precision import cpu_bf16_features

    return ["fp32"] + (["bf16"] if cpu_bf16_features() or "bf16" in precisions else [])


def variants(bench: Bench, precisions: list[str], sink: bool) -> dict:
    found = {}
    for precision in precisions:  # a pipeline run first: its chunks are (b)'s texts
        found[f"ragbeam run {precision}"] = lambda p=precision: bench.pipeline(p, sink=False)
        if sink:
            found[f"ragbeam run {precision} --sink milvus"] = (
                lambda p=precision: bench.pipeline(p, sink=True))
    for precision in plain_precisions(precisions):
        found[f"plain encode {precision}"] = lambda p=precision: bench.encode(p)
    found["raw Tika"] = bench.raw
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--precision", action="append", choices=("auto", "fp32", "bf16"),
                        help="repeatable; default: auto (the run as shipped)")
    parser.add_argument("--no-sink", action="store_true",
                        help="leave out the runs with --sink milvus")
    parser.add_argument("--json", type=pathlib.Path, help="also write every run here")
    args = parser.parse_args(argv)
    precisions = args.precision or ["auto"]

    files = corpus_files(args.corpus)
    work = pathlib.Path(tempfile.mkdtemp(prefix="ragbeam-bench-ceiling-"))
    staging = work / "corpus"
    bench = Bench(staging, stage_files(args.corpus, files, staging), work)
    total_mb = sum(os.path.getsize(p) for p in bench.paths) / 1e6
    print(f"corpus: {args.corpus} — {len(files)} files, {total_mb:.1f} MB; {bench.cores} "
          f"cores; load average {os.getloadavg()[0]:.1f}", flush=True)

    todo = variants(bench, precisions, sink=not args.no_sink)
    runs: dict[str, list[Measured]] = {name: [] for name in todo}
    try:
        for round_index in range(args.repeats):
            names = list(todo)
            shift = round_index % len(names)
            for name in names[shift:] + names[:shift]:
                measured = todo[name]()
                runs[name].append(measured)
                print(f"  round {round_index + 1}: {name:34s} {measured.seconds:7.2f} s "
                      f"(wall {measured.wall_s:6.1f} s, CPU {measured.cpu_s:6.1f} s; "
                      f"load {measured.load:.1f})", flush=True)
        texts = json.loads(bench.texts_file.read_text(encoding="utf-8"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report(runs, precisions, len(texts), bench)
    if args.json:
        args.json.write_text(json.dumps({k: [asdict(m) for m in v] for k, v in runs.items()},
                                        indent=2))
    return 0


def report(runs: dict[str, list[Measured]], precisions: list[str], n_texts: int,
           bench: Bench) -> None:
    med = {name: statistics.median(m.seconds for m in ms) for name, ms in runs.items()}
    cpu = {name: statistics.median(m.cpu_s for m in ms) for name, ms in runs.items()}
    loads = [m.load for ms in runs.values() for m in ms]
    any_run = next(m for name, ms in runs.items() if name.startswith("ragbeam") for m in ms)
    print(f"\n{any_run.documents_ok} documents, {any_run.chunks} chunks, {n_texts} distinct "
          f"texts embedded; medians of {len(runs['raw Tika'])} alternating rounds; load "
          f"average during the runs {min(loads):.1f}–{max(loads):.1f}")
    for name, choice in bench.choices.items():
        print(f"{name}: {choice}")
    print(f"{'':36} {'seconds':>8} {'CPU s':>7} {'timed CPU s':>12}")
    for name in runs:
        inner = bench.inner_cpu.get(name)
        timed = f"{statistics.median(inner):12.1f}" if inner else ""
        print(f"{name:36} {med[name]:8.2f} {cpu[name]:7.1f} {timed}")
    raw = med["raw Tika"]
    plain = min((n for n in runs if n.startswith("plain encode")), key=lambda n: med[n])
    encode = med[plain]
    parts = raw + encode
    print(f"\nceiling: (a) raw Tika + (b) the fastest plain encode ({plain}) = {parts:.2f} s "
          f"(Tika {raw / parts:.0%}, embedding {encode / parts:.0%})")
    parts_cpu = cpu["raw Tika"] + cpu[plain]
    # (b) as a process: launch to exit, importing sentence-transformers and loading the
    # model included, the fixed cost the pipeline pays too (on a small corpus it is
    # most of the gap to the target).
    encode_process = statistics.median(m.wall_s for m in runs[plain])
    parts_process = raw + encode_process
    for precision in precisions:
        for name in (f"ragbeam run {precision}", f"ragbeam run {precision} --sink milvus"):
            if name not in runs:
                continue
            print(f"  {name:34} / ((a) + (b)): {med[name] / parts:5.2f}×  (target ≤ 1.0); "
                  f"CPU {cpu[name] / parts_cpu:5.2f}× (whole processes: imports and model "
                  f"loading in both); / ((a) + (b) as a process, {encode_process:.1f} s with "
                  f"its model load): {med[name] / parts_process:5.2f}×")


if __name__ == "__main__":
    sys.exit(main())
