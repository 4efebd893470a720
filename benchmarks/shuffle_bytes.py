"""Bytes the pipeline shuffles, per byte of input, measured on a real run.

    python benchmarks/shuffle_bytes.py --input DIR [ragbeam run options…]

The graph is built as ``ragbeam run`` builds it; then every ``GroupByKey`` in
it (``CoGroupByKey``, ``Reshuffle`` and the sinks' groupings expand to one) gets
a side branch on its input that encodes each element with that PCollection's
own coder, as a runner does before it shuffles, and adds the size to a Beam
counter. The run is the ordinary local one (output thrown away). Printed: the
input bytes, the bytes into each grouping, and their sum per input byte.

It measures whatever ``ragbeam`` is importable, so the figure before a change
can be taken from an older checkout (``PYTHONPATH=/path/to/old/checkout/..``)
with this same script.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import apache_beam as beam
from apache_beam.metrics import Metrics
from apache_beam.metrics.metric import MetricsFilter
from apache_beam.pipeline import PipelineVisitor


class _Groupings(PipelineVisitor):
    def __init__(self) -> None:
        self.found: list[tuple[str, beam.PCollection]] = []

    def visit_transform(self, applied) -> None:
        if isinstance(applied.transform, beam.GroupByKey):
            (pcoll,) = applied.inputs
            self.found.append((applied.full_label, pcoll))


class _CountEncoded(beam.DoFn):
    def __init__(self, coder: beam.coders.Coder, counter: str) -> None:
        self._coder = coder
        self._counter = counter

    def setup(self) -> None:
        self._bytes = Metrics.counter("shuffle_bytes", self._counter)

    def process(self, element):
        self._bytes.inc(len(self._coder.encode(element)))


def measure(argv: list[str]) -> dict[str, int]:
    from ragbeam.pipeline.graph import build_pipeline
    from ragbeam.pipeline.run import check_inputs, request_from_argv
    from ragbeam.pipeline.runner import make_pipeline, pipeline_options

    with tempfile.TemporaryDirectory(prefix="ragbeam-shuffle-") as tmp:
        request = request_from_argv([*argv, "--output", os.path.join(tmp, "out")])
        config, beam_args = request.config, list(request.beam_args)
        check_inputs(config)
        pipeline = make_pipeline(pipeline_options(beam_args))
        build_pipeline(pipeline, config)
        visitor = _Groupings()
        pipeline.visit(visitor)
        for index, (label, pcoll) in enumerate(visitor.found):
            coder = beam.coders.registry.get_coder(pcoll.element_type)
            _ = pcoll | f"Measure shuffle {index}" >> beam.ParDo(_CountEncoded(coder, label))
        result = pipeline.run()
        result.wait_until_finish()
        counters = result.metrics().query(MetricsFilter().with_namespace("shuffle_bytes"))
        by_grouping: dict[str, int] = dict.fromkeys((label for label, _ in visitor.found), 0)
        for counter in counters["counters"]:
            by_grouping[counter.key.metric.name] += int(counter.committed or 0)
        bytes_read = result.metrics().query(MetricsFilter().with_name("bytes_read"))
        by_grouping["(input bytes read)"] = sum(int(c.committed or 0)
                                                for c in bytes_read["counters"])
    return by_grouping


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", action="append", required=True)
    args, rest = parser.parse_known_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    figures = measure([a for path in args.input for a in ("--input", path)] + rest)
    input_bytes = figures.pop("(input bytes read)")
    total = sum(figures.values())
    print(f"input: {input_bytes:,} bytes read")
    for label, n in sorted(figures.items(), key=lambda kv: -kv[1]):
        print(f"  {n:>14,} bytes into {label}")
    print(f"shuffled: {total:,} bytes = {total / max(input_bytes, 1):.3f} per input byte")
    return 0


if __name__ == "__main__":
    sys.exit(main())
