"""Beam metrics of a finished run, read back in one place.

The stages count what they do with Beam's ``Metrics`` (``ragbeam``,
``ragbeam.embed``, ``ragbeam.incremental``, ``ragbeam.sink`` namespaces); once the
pipeline has finished, run.json's sections that only the runner knows are read
back from its result here. A runner without metrics support gives None (its
run.json then lacks those sections, as it always did).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

MetricKey = tuple[str, str]  # (namespace, name)
# The result of a run that ran no pipeline (``pipeline/unchanged.py``): every metric
# empty, so its run.json has the sections a pipeline run's has, all zero.
NOTHING_RAN = object()


def query_metrics(result: Any, namespace: str | None = None) -> dict[str, list[Any]] | None:
    """The runner's ``{"counters", "gauges", "distributions"}`` results (of one
    namespace, or all), or None when the runner reports no metrics."""
    if result is NOTHING_RAN:
        return {"counters": [], "gauges": [], "distributions": []}
    from apache_beam.metrics.metric import MetricsFilter  # a runner's result: Beam is there

    metrics_filter = MetricsFilter()
    if namespace is not None:
        metrics_filter = metrics_filter.with_namespace(namespace)
    try:
        return result.metrics().query(metrics_filter)
    except Exception:  # a runner without metrics support
        return None


def committed_or_attempted(metric: Any) -> Any:
    """A metric result's value: the committed one where the runner has it."""
    return metric.committed if metric.committed is not None else metric.attempted


def counter_totals(result: Any, namespace: str | None = None) -> dict[MetricKey, int] | None:
    """Every counter (of one namespace, or all) summed over steps and workers, by
    ``(namespace, name)``; None when the runner reports no metrics."""
    metrics = query_metrics(result, namespace)
    return None if metrics is None else totals_of(metrics.get("counters", ()))


def totals_of(counters: Iterable[Any]) -> dict[MetricKey, int]:
    """Counter results (``query_metrics(...)["counters"]``) summed by ``(namespace, name)``."""
    totals: dict[MetricKey, int] = {}
    for counter in counters:
        key = (counter.key.metric.namespace, counter.key.metric.name)
        totals[key] = totals.get(key, 0) + int(committed_or_attempted(counter) or 0)
    return totals


def summed(totals: dict[MetricKey, int], wanted: dict[MetricKey, str]) -> dict[str, int]:
    """``{wanted[key]: total}`` for every wanted counter, 0 where none was counted."""
    section = dict.fromkeys(wanted.values(), 0)
    for key, label in wanted.items():
        section[label] += totals.get(key, 0)
    return section
