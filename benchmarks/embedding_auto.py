"""Is the default embedding choice at least as fast as fp32 torch, on real chunk texts?

    python benchmarks/embedding_auto.py [--texts FILE | --corpus DIR] [--count 600]
                                        [--rounds 3] [--candidate onnx/fp32 ...]

The texts: each chunk's embedding text (``chunk_embedding_text``), each distinct
one once, of a ``ragbeam run --ocr off`` over ``--corpus`` (default: the shared
corpus without ``bad/``), or a JSON list in ``--texts``; ``--count`` of them,
taken evenly over the sorted list (the default 600; 0: all).

Variants, each a worker process of its own that loads its model first and then
waits (blocked on a pipe: an idle worker takes no CPU) until asked to encode,
all at the thread count a run gives its model on this machine (every core this
process may use, as ``--embedding-threads 0`` resolves on the local runner):

* ``plain encode``: sentence-transformers as shipped, ``SentenceTransformer(path)``,
  ``torch.set_num_threads(cores)``, ``model.encode(texts, batch_size=64,
  normalize_embeddings=True)``: the ceiling's encode (``sync_ceiling.py``);
* ``torch fp32``: ragbeam's ``encode_texts`` with ``--embedding-backend torch
  --embedding-precision fp32``;
* ``default``: ragbeam's ``encode_texts`` with the defaults (``auto``, resolved
  by the probe or its cached verdict, printed);
* ``--candidate B/P``: ragbeam's ``encode_texts`` with that backend/precision.

ragbeam's variants encode the texts in slices of 1,024 in input order, as the
Embed stage's RunInference batches (512–2,048) reach the model. Rounds
alternate the variants (the order rotates each round), one variant at a time;
each reports the wall time and the CPU time of its own process (all its
threads) for the encode alone, with the load average. The ratios are of
medians over rounds, and every vector is compared with ``torch fp32``'s (worst
cosine, and whether each text's 10 nearest neighbours among the texts are the
same).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from pipeline_throughput import (  # a sibling script, not a package
    DEFAULT_CORPUS,
    _timed,
    corpus_files,
    stage_files,
)

SLICE = 1024  # what one RunInference batch hands the model, about

WORKER = textwrap.dedent("""
    import json, os, sys, time
    import numpy as np
    kind, threads, texts_file, out_file = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    texts = json.load(open(texts_file, encoding="utf-8"))
    if kind == "plain":
        import torch
        from sentence_transformers import SentenceTransformer
        from ragbeam.transforms.embed.model import default_model_path
        torch.set_num_threads(threads)
        model = SentenceTransformer(default_model_path(), device="cpu").eval()
        encode = lambda some: model.encode(some, batch_size=64, normalize_embeddings=True,
                                           show_progress_bar=False)
        label = "sentence-transformers " + __import__("sentence_transformers").__version__
    else:
        from ragbeam.transforms.embed.model import (EmbeddingOptions, encode_texts,
                                                    load_sentence_model, resolve_precision)
        backend, precision = kind.split("/")
        options = resolve_precision(EmbeddingOptions(backend=backend, precision=precision,
                                                     torch_threads=threads))
        model = load_sentence_model(options)
        label = f"{options.backend}/{options.precision}"
        if options.auto_choice is not None:
            label += f" ({options.auto_choice.reason})"
        def encode(some):
            return np.concatenate([encode_texts(model, some[i:i + %(slice)d], 64)
                                   for i in range(0, len(some), %(slice)d)])
    encode(texts[:64])  # first calls allocate and pick kernels: not timed
    print(json.dumps({"ready": label}), flush=True)
    for line in sys.stdin:
        wall, cpu = time.perf_counter(), time.process_time()
        vectors = encode(texts)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        np.save(out_file, np.asarray(vectors, dtype=np.float32))
        print(json.dumps({"wall": wall, "cpu": cpu, "load": os.getloadavg()[0]}), flush=True)
""") % {"slice": SLICE}


def chunk_texts(corpus: pathlib.Path, work: pathlib.Path) -> list[str]:
    """Each distinct chunk embedding text of a ``ragbeam run --ocr off`` over ``corpus``."""
    from sync_ceiling import embedded_texts

    staging, out = work / "corpus", work / "out"
    stage_files(corpus, corpus_files(corpus), staging)
    _timed([sys.executable, "-m", "ragbeam.pipeline.cli", "run", "--input", str(staging),
            "--output", str(out), "--ocr", "off"])
    return embedded_texts(out)


class Worker:
    def __init__(self, name: str, kind: str, threads: int, texts_file: pathlib.Path,
                 work: pathlib.Path) -> None:
        self.name = name
        self.out = work / f"{len(list(work.glob('vectors-*')))}-{kind.replace('/', '-')}"
        self.out_file = work / f"vectors-{self.out.name}.npy"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WORKER, kind, str(threads), str(texts_file),
             str(self.out_file)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
        self.label = self._answer()["ready"]

    def _answer(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.name}: the worker exited ({self.proc.wait()})")
        return json.loads(line)

    def encode(self) -> dict:
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        return self._answer()

    def vectors(self):
        import numpy as np

        return np.load(self.out_file)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def agreement(reference, vectors, k: int = 10) -> tuple[float, float]:
    """(worst cosine to the reference's row, share of texts whose ``k`` nearest
    neighbours among the texts are the reference's)."""
    import numpy as np

    cosine = float(np.min(np.sum(reference * vectors, axis=1)))

    def top(v):
        scores = v @ v.T
        np.fill_diagonal(scores, -np.inf)
        return np.argsort(-scores, axis=1, kind="stable")[:, :k]

    same = [set(a) == set(b) for a, b in zip(top(reference), top(vectors), strict=True)]
    return cosine, float(np.mean(same))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--texts", type=pathlib.Path, help="a JSON list of texts")
    parser.add_argument("--count", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--candidate", action="append", default=[],
                        help="backend/precision, repeatable (e.g. onnx/fp32)")
    parser.add_argument("--no-plain", action="store_true", help="leave out the plain encode")
    args = parser.parse_args(argv)

    work = pathlib.Path(tempfile.mkdtemp(prefix="ragbeam-bench-auto-"))
    workers: list[Worker] = []
    try:
        texts = (json.loads(args.texts.read_text(encoding="utf-8")) if args.texts
                 else chunk_texts(args.corpus, work))
        texts = sorted(set(texts))
        if args.count and args.count < len(texts):
            step = len(texts) / args.count
            texts = [texts[int(i * step)] for i in range(args.count)]
        texts_file = work / "texts.json"
        texts_file.write_text(json.dumps(texts), encoding="utf-8")
        print(f"{len(texts)} chunk texts ({sum(map(len, texts)) / len(texts):.0f} characters "
              f"on average); {args.threads} threads; load average {os.getloadavg()[0]:.1f}",
              flush=True)
        kinds = {"torch fp32": "torch/fp32", "default": "auto/auto",
                 **{f"{c}": c for c in args.candidate}}
        if not args.no_plain:
            kinds = {"plain encode": "plain", **kinds}
        for name, kind in kinds.items():
            workers.append(Worker(name, kind, args.threads, texts_file, work))
            print(f"  {name}: {workers[-1].label}", flush=True)
        runs: dict[str, list[dict]] = {w.name: [] for w in workers}
        for round_index in range(args.rounds):
            shift = round_index % len(workers)
            for worker in workers[shift:] + workers[:shift]:
                measured = worker.encode()
                runs[worker.name].append(measured)
                print(f"  round {round_index + 1}: {worker.name:14s} wall {measured['wall']:7.2f} s"
                      f"  CPU {measured['cpu']:7.2f} s  ({len(texts) / measured['wall']:.1f} "
                      f"texts/s; load {measured['load']:.1f})", flush=True)
        reference = next(w for w in workers if w.name == "torch fp32").vectors()
        report(runs, {w.name: agreement(reference, w.vectors()) for w in workers})
    finally:
        for worker in workers:
            worker.close()
        shutil.rmtree(work, ignore_errors=True)
    return 0


def report(runs: dict[str, list[dict]], agree: dict[str, tuple[float, float]]) -> None:
    wall = {n: statistics.median(m["wall"] for m in ms) for n, ms in runs.items()}
    cpu = {n: statistics.median(m["cpu"] for m in ms) for n, ms in runs.items()}
    loads = [m["load"] for ms in runs.values() for m in ms]
    print(f"\nmedians of {len(runs['torch fp32'])} alternating rounds, load "
          f"{min(loads):.1f}–{max(loads):.1f}; speed against torch fp32 (> 1: faster)")
    print(f"{'':16} {'wall s':>8} {'CPU s':>8} {'speed wall':>11} {'speed CPU':>10} "
          f"{'min cosine':>11} {'same top-10':>12}")
    for name in runs:
        cosine, same = agree[name]
        print(f"{name:16} {wall[name]:8.2f} {cpu[name]:8.2f} "
              f"{wall['torch fp32'] / wall[name]:10.2f}x {cpu['torch fp32'] / cpu[name]:9.2f}x "
              f"{cosine:11.6f} {same:12.3f}")


if __name__ == "__main__":
    sys.exit(main())
