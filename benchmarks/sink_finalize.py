"""Finalizing the Parquet sink on an object store: listings and batched parallel
renames (``finalize_tables``) against one existence check per shard and one
sequential rename call (what the sink did before), in the same run.

    python benchmarks/sink_finalize.py [--shards 300] [--repeats 3]

Runs against the GCS API emulator on localhost (``tests/object_stores.py``:
``gcp-storage-emulator``, a test dependency), through Beam's GCS filesystem.
Each repetition writes the shards into a fresh emulator once per method and
times only the finalize; the order of the two alternates. An emulator on the same machine answers
in about a millisecond, so on a real bucket, where a request takes tens of
milliseconds, the difference per request weighs far more.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import tempfile
import time

import pyarrow as pa

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

BUCKET = "ragbeam-bench"
SCHEMA = pa.schema([("n", pa.int64())])


def write_shards(output: str, count: int) -> list[tuple[str, str]]:
    from ragbeam.transforms.write.shards import ParquetShard, temp_dir

    shards = []
    for k in range(count):
        shard = ParquetShard(f"{temp_dir(output)}/items-{k:05d}.parquet", SCHEMA)
        shard.write({"n": k})
        shards.append(("items", shard.close()))
    return shards


def one_check_per_shard(output: str, shards: list[tuple[str, str]]) -> None:
    """The sink's finalize before: two existence checks per shard, then one rename
    call (Beam batches it by 100, one batch after the other)."""
    from apache_beam.io.filesystems import FileSystems

    from ragbeam.transforms.write.parquet import remove_temp_dir
    from ragbeam.transforms.write.shards import final_shard_name

    paths = sorted(path for _, path in shards)
    pairs = [(p, final_shard_name(output, "items", i, len(paths))) for i, p in enumerate(paths)]
    pending = [(s, d) for s, d in pairs if FileSystems.exists(s) or not FileSystems.exists(d)]
    FileSystems.rename([s for s, _ in pending], [d for _, d in pending])
    remove_temp_dir(output)


def listed_and_batched(output: str, shards: list[tuple[str, str]]) -> None:
    from ragbeam.transforms.write.parquet import finalize_tables

    finalize_tables(output, {"items": SCHEMA}, shards)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shards", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from object_stores import gcs_emulator

    methods = {"one check per shard (before)": one_check_per_shard,
               "listings + parallel batches": listed_and_batched}
    times: dict[str, list[float]] = {name: [] for name in methods}
    requests_made: dict[str, int] = {}
    counted = _count_http_requests()
    for i in range(args.repeats):
        order = list(methods.items())
        for name, finalize in order if i % 2 == 0 else reversed(order):
            # A fresh emulator each time: its in-memory store slows as it fills.
            with tempfile.TemporaryDirectory() as work, gcs_emulator(pathlib.Path(work), BUCKET):
                output = f"gs://{BUCKET}/run"
                shards = write_shards(output, args.shards)
                before = counted[0]
                started = time.perf_counter()
                finalize(output, shards)
                times[name].append(time.perf_counter() - started)
                requests_made[name] = counted[0] - before
    base = statistics.median(times["one check per shard (before)"])
    print(f"finalize of {args.shards} shards on the GCS emulator, median of {args.repeats}")
    print(f"  {'':30} {'HTTP requests':>13} {'seconds':>8} {'×':>5}   runs")
    for name, values in times.items():
        t = statistics.median(values)
        print(f"  {name:30} {requests_made[name]:13} {t:8.2f} {base / t:5.1f}   "
              + " ".join(f"{v:.2f}" for v in values))


def _count_http_requests() -> list[int]:
    """Count the HTTP requests Google's storage client sends (all go through
    ``requests``); a batch request counts once, as on the wire."""
    import requests

    count = [0]
    send = requests.Session.send

    def counting_send(self, request, **kwargs):
        count[0] += 1
        return send(self, request, **kwargs)

    requests.Session.send = counting_send
    return count


if __name__ == "__main__":
    main()
