"""Beam metrics read back from a finished run (``transforms/metrics.py``), on a real
local runner."""

from __future__ import annotations

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.pipeline.runner import make_pipeline, pipeline_options
from ragbeam.transforms.metrics import counter_totals, query_metrics, summed


def _counted(n: int):
    pipeline = make_pipeline(pipeline_options([]))
    seen = Metrics.counter("test.metrics", "seen")
    odd = Metrics.counter("test.other", "odd")

    def count(x: int) -> int:
        seen.inc()
        if x % 2:
            odd.inc()
        return x

    _ = pipeline | beam.Create(range(n)) | "Count" >> beam.Map(count) | "Again" >> beam.Map(
        lambda x: seen.inc() or x)
    result = pipeline.run()
    result.wait_until_finish()
    return result


def test_counters_are_summed_over_steps_by_namespace_and_name():
    result = _counted(5)
    totals = counter_totals(result)
    assert totals[("test.metrics", "seen")] == 10  # two steps count it
    assert totals[("test.other", "odd")] == 2
    assert counter_totals(result, "test.other") == {("test.other", "odd"): 2}
    assert summed(totals, {("test.metrics", "seen"): "seen",
                           ("test.metrics", "never"): "never"}) == {"seen": 10, "never": 0}


def test_a_runner_without_metrics_gives_none():
    class NoMetrics:
        def metrics(self):
            raise NotImplementedError

    assert query_metrics(NoMetrics()) is None
    assert counter_totals(NoMetrics(), "ragbeam") is None
