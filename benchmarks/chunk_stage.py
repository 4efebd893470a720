"""The Chunk stage alone, on the documents a run gave it: CPU time and identical rows.

    python benchmarks/chunk_stage.py --capture CORPUS --documents FILE
    python benchmarks/chunk_stage.py --documents FILE [--baseline-code DIR] [--repeats 3]

``--capture``: runs ``ragbeam run --ocr off`` over CORPUS (output in a temporary
folder) with the Chunk stage's ``ChunkDocument.process`` wrapped so that every
``(Document, RouteDecision)`` it is given is kept, and pickles them to FILE: the
cleaned, routed documents of a real run, so the stage can be timed without Tika.

Without it: ``ChunkDocument.process`` over every kept document (default options,
the encoding loaded first), then the ``changes`` rows of the chunks and the Parquet
shards of the chunk and document rows, each timed in CPU seconds
(``time.process_time``), in a fresh process per measurement. With
``--baseline-code DIR`` (``DIR/ragbeam``, e.g. ``git archive COMMIT | tar -x -C
DIR/ragbeam``), the same again with that code, alternating, and a SHA-256 of every
row of both, which must match: a change to the stage's speed must not change a row.
Medians of ``--repeats`` rounds.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import textwrap

CAPTURE = textwrap.dedent("""
    import atexit, pickle, runpy, sys
    from ragbeam.transforms.chunk import dofn
    kept, target = [], sys.argv.pop(1)
    original = dofn.ChunkDocument.process
    def keeping(self, element):
        kept.append(element)
        yield from original(self, element)
    dofn.ChunkDocument.process = keeping
    def save():
        with open(target, "wb") as f:
            pickle.dump(kept, f, protocol=pickle.HIGHEST_PROTOCOL)
    atexit.register(save)
    sys.argv = ["ragbeam", *sys.argv[1:]]
    runpy.run_module("ragbeam.pipeline.cli", run_name="__main__", alter_sys=True)
""")

MEASURE = textwrap.dedent("""
    import hashlib, json, os, pickle, sys, tempfile, time
    import apache_beam as beam
    from ragbeam.schemas import CHANGE_SCHEMA, DOCUMENT_SCHEMA, chunk_schema
    from ragbeam.schemas.changes import upsert_row_for_chunk
    from ragbeam.transforms.chunk.base import ChunkOptions
    from ragbeam.transforms.chunk.dofn import DOCUMENTS, ChunkDocument
    from ragbeam.transforms.write.shards import ParquetShard
    from ragbeam.transforms.write.stats import TABLE_COUNTERS
    with open(sys.argv[1], "rb") as f:
        elements = pickle.load(f)
    stage = ChunkDocument(ChunkOptions(), "benchmark")
    stage.setup()
    stage._token_counter()  # the encoding loaded before the clock starts
    started = time.process_time()
    chunks, documents = [], []
    for element in elements:
        for out in stage.process(element):
            if isinstance(out, beam.pvalue.TaggedOutput):
                (documents if out.tag == DOCUMENTS else chunks).append(out.value)
            else:
                chunks.append(out)
    chunked = time.process_time()
    changes = [upsert_row_for_chunk(row) for row in chunks]
    with tempfile.TemporaryDirectory() as tmp:
        for table, rows, schema in (("chunks", chunks, chunk_schema()),
                                    ("changes", changes, CHANGE_SCHEMA),
                                    ("documents", documents, DOCUMENT_SCHEMA)):
            shard = ParquetShard(os.path.join(tmp, table + ".parquet"), schema)
            for row in rows:
                shard.write(row)
                TABLE_COUNTERS[table](row)
            shard.close()
    written = time.process_time()
    digest = hashlib.sha256()
    for row in chunks + documents:
        digest.update(repr(sorted(row.items())).encode("utf-8", "surrogatepass"))
    print(json.dumps({"documents": len(elements), "chunks": len(chunks),
                      "chunk_s": chunked - started, "write_s": written - chunked,
                      "digest": digest.hexdigest()}))
""")


def measure(documents: pathlib.Path, code: pathlib.Path | None) -> dict:
    import json

    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(code), env.get("PYTHONPATH")]))
    out = subprocess.run([sys.executable, "-c", MEASURE, str(documents)], env=env,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=pathlib.Path, required=True,
                        help="the pickled (Document, RouteDecision) pairs")
    parser.add_argument("--capture", type=pathlib.Path, metavar="CORPUS",
                        help="run ragbeam over CORPUS and keep what the Chunk stage gets")
    parser.add_argument("--baseline-code", type=pathlib.Path, metavar="DIR")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    if args.capture:
        with tempfile.TemporaryDirectory(prefix="ragbeam-chunk-stage-") as tmp:
            subprocess.run([sys.executable, "-c", CAPTURE, str(args.documents), "run",
                            "--input", str(args.capture), "--output", f"{tmp}/out",
                            "--ocr", "off"], check=False,
                           env={**os.environ, "HF_HUB_OFFLINE": "1"})
        print(f"kept the Chunk stage's input in {args.documents}")
        return 0
    codes = {"current": None}
    if args.baseline_code:
        codes["baseline"] = args.baseline_code
    runs: dict[str, list[dict]] = {name: [] for name in codes}
    for round_index in range(args.repeats):
        for name, code in codes.items():
            result = measure(args.documents, code)
            runs[name].append(result)
            print(f"  round {round_index + 1}: {name:8} Chunk stage {result['chunk_s']:.2f} s, "
                  f"changes, counters and Parquet {result['write_s']:.2f} s (CPU); "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)
    first = runs["current"][0]
    print(f"{first['documents']} documents, {first['chunks']} chunk rows; medians of "
          f"{args.repeats}:")
    for name, results in runs.items():
        print(f"  {name:8} Chunk stage {statistics.median(r['chunk_s'] for r in results):.2f} "
              f"CPU s, changes, counters and Parquet "
              f"{statistics.median(r['write_s'] for r in results):.2f} CPU s")
    digests = {r["digest"] for results in runs.values() for r in results}
    print("rows: identical" if len(digests) == 1 else f"rows DIFFER: {sorted(digests)}")
    return 0 if len(digests) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
