"""Embedding on a GPU: ragbeam's embedding stage against a plain sentence-transformers
``encode`` on the same device, over the shared corpus's chunks.

    python benchmarks/gpu_embedding.py [--device cuda] [--max-texts 20000]
                                       [--repeats 3] [--batch-size 64]
                                       [--texts FILE] [--save-texts FILE] [--json FILE]

Texts: each chunk's embedding text (``chunk_embedding_text``, as ``--embed-chunks``
embeds it), each distinct text once, from ``ragbeam run --ocr off`` over the shared
corpus (``sync_ceiling.embedded_texts``), repeated with a running number appended
until ``--max-texts`` so a fast device has enough work, or read from ``--texts`` (a
JSON list, e.g. one written by ``--save-texts`` on a machine with Java and Tika, for a
GPU machine without them).

In one run, alternating ``--repeats`` rounds (the order rotates), best of each:

a. **plain encode**: ``SentenceTransformer(model, device=...)`` loaded beforehand,
   ``model.encode(texts, batch_size, normalize_embeddings=True)``;
b. **ragbeam stage**: a DirectRunner pipeline ``Create → RunInference(
   SentenceEmbeddingHandler(EmbeddingOptions(device=...))) → count``, timed from
   ``run()`` to the end (model load included; a 64-text run gives that fixed cost,
   reported apart).

Ratio = stage rate / plain rate (1.0: the stage adds nothing). Sized to finish within
5 minutes on one GPU (20,000 texts); ``--device cpu`` runs the same comparison here
(with a smaller ``--max-texts``), which is how its test runs it. ``--device cuda``
where CUDA is not available exits 2 with the reason (``cuda_unavailable``).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

REPO = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"


def corpus_chunk_texts(corpus: pathlib.Path) -> list[str]:
    """The distinct embedding texts of the corpus's chunks, from a real run over its
    files without the deliberately broken ones (``bad/``: a hanging file among them,
    which would cost the run its extraction time limit)."""
    from pipeline_throughput import corpus_files, stage_files  # sibling scripts
    from sync_ceiling import embedded_texts

    with tempfile.TemporaryDirectory(prefix="ragbeam-gpu-bench-") as tmp:
        out, staging = pathlib.Path(tmp) / "out", pathlib.Path(tmp) / "corpus"
        stage_files(corpus, corpus_files(corpus), staging)
        subprocess.run([sys.executable, "-m", "ragbeam.pipeline.cli", "run", "--input",
                        str(staging), "--output", str(out), "--ocr", "off", "-q"],
                       check=False, capture_output=True,
                       env={**os.environ, "HF_HUB_OFFLINE": "1"})
        texts = embedded_texts(out)
    if not texts:
        raise SystemExit(f"no chunks from {corpus}: is Tika (Java) available?")
    return texts


def sized(texts: list[str], count: int) -> list[str]:
    """``count`` distinct texts: the corpus's, then numbered copies of them."""
    found = list(texts[:count])
    copy = 1
    while len(found) < count:
        found.extend(f"{t} ({copy})" for t in texts[:count - len(found)])
        copy += 1
    return found


def plain_encode(model, texts: list[str], batch_size: int) -> float:
    import torch

    # sentence-transformers as shipped uses every core; loading ragbeam's model in this
    # process (the stage) sets torch's threads for its own passes (one a pass).
    torch.set_num_threads(len(os.sched_getaffinity(0)))
    started = time.perf_counter()
    model.encode(texts, batch_size=batch_size, normalize_embeddings=True,
                 show_progress_bar=False)
    _synchronize(str(model.device))
    return time.perf_counter() - started


def ragbeam_stage(texts: list[str], device: str, batch_size: int) -> float:
    import apache_beam as beam
    from apache_beam.metrics import Metrics
    from apache_beam.metrics.metric import MetricsFilter
    from apache_beam.ml.inference.base import KeyedModelHandler, RunInference

    from ragbeam.pipeline.runner import make_pipeline, pipeline_options
    from ragbeam.transforms.embed.handler import SentenceEmbeddingHandler, forget_process_models
    from ragbeam.transforms.embed.model import EmbeddingOptions

    def count(_: object) -> None:
        Metrics.counter("benchmark", "embedded").inc()

    forget_process_models()  # each run loads its model, as a fresh worker does
    options = EmbeddingOptions(device=device, backend="torch", precision="fp32",
                               batch_size=batch_size, torch_threads=0)
    pipeline = make_pipeline(pipeline_options([]))
    _ = (pipeline
         | "Texts" >> beam.Create(list(enumerate(texts)))
         | "Embed" >> RunInference(KeyedModelHandler(SentenceEmbeddingHandler(options)))
         | "Count" >> beam.Map(count))
    started = time.perf_counter()
    result = pipeline.run()
    result.wait_until_finish()
    elapsed = time.perf_counter() - started
    counters = result.metrics().query(MetricsFilter().with_name("embedded"))["counters"]
    if sum(c.committed for c in counters) != len(texts):
        raise RuntimeError(f"the stage embedded {counters}, not {len(texts)} texts")
    return elapsed


def _synchronize(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def device_name(device: str) -> str:
    if device.startswith("cuda"):
        import torch

        return torch.cuda.get_device_name(int(device.partition(":")[2] or 0))
    from ragbeam.transforms.embed.precision import cpu_identity

    return f"{cpu_identity()[0]}, {len(os.sched_getaffinity(0))} core(s)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda", help="cuda, cuda:N or cpu")
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--texts", type=pathlib.Path, help="a JSON list of texts to embed")
    parser.add_argument("--save-texts", type=pathlib.Path, help="write the texts used here")
    parser.add_argument("--max-texts", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--json", type=pathlib.Path, help="write the figures here")
    args = parser.parse_args(argv)

    from ragbeam.transforms.embed.model import (
        EmbeddingOptions,
        cuda_unavailable,
        resolve_model_path,
    )

    try:
        EmbeddingOptions(device=args.device)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if why := cuda_unavailable(args.device):
        print(f"error: {why}", file=sys.stderr)
        return 2
    began = time.perf_counter()
    texts = (json.loads(args.texts.read_text(encoding="utf-8")) if args.texts
             else corpus_chunk_texts(args.corpus))
    corpus_count = len(texts)
    texts = sized(texts, args.max_texts)
    if args.save_texts:
        args.save_texts.write_text(json.dumps(texts), encoding="utf-8")

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(resolve_model_path(EmbeddingOptions.model), device=args.device)
    model.eval()
    plain_encode(model, texts[:64], args.batch_size)  # warm-up: kernels, allocator
    plain: list[float] = []
    staged: list[float] = []
    for round_ in range(args.repeats):
        variants = [("plain", plain), ("stage", staged)]
        for name, times in variants[round_ % 2:] + variants[:round_ % 2]:
            times.append(plain_encode(model, texts, args.batch_size) if name == "plain"
                         else ragbeam_stage(texts, args.device, args.batch_size))
        print(f"round {round_ + 1}: plain {len(texts) / plain[-1]:.0f} texts/s, "
              f"ragbeam stage {len(texts) / staged[-1]:.0f} texts/s "
              f"(load {os.getloadavg()[0]:.1f})", flush=True)
    fixed = min(ragbeam_stage(texts[:64], args.device, args.batch_size)
                for _ in range(max(1, min(args.repeats, 2))))
    figures = {
        "device": args.device, "device_name": device_name(args.device),
        "texts": len(texts), "corpus_texts": corpus_count, "batch_size": args.batch_size,
        "plain_per_s": round(len(texts) / min(plain), 1),
        "stage_per_s": round(len(texts) / min(staged), 1),
        "stage_fixed_s": round(fixed, 2),
        "load_average": round(os.getloadavg()[0], 2),
        "benchmark_s": round(time.perf_counter() - began, 1),  # sized for < 300 on a GPU
    }
    figures["ratio"] = round(figures["stage_per_s"] / figures["plain_per_s"], 3)
    figures["ratio_without_fixed_cost"] = round(
        len(texts) / max(min(staged) - fixed, 1e-9) / figures["plain_per_s"], 3)
    print(json.dumps(figures, indent=1))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
