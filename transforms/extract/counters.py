"""The Extract stage's counters (``dofn.py`` counts them), and what run.json says of
them once a run has finished (``extraction_summary``), without Beam: a run written
without a pipeline reports the same sections, all zero."""

from __future__ import annotations

import os
import time
from typing import Any

from ragbeam.transforms.extract.guards import ArchiveBombError, TextTooLargeError
from ragbeam.transforms.extract.isolation import (
    ExtractionMemoryExceeded,
    ExtractionTimeout,
    ExtractorCrashed,
)
from ragbeam.transforms.metrics import committed_or_attempted, query_metrics, summed, totals_of

# Documents whose extraction began before the pipeline did (``early.py``).
EARLY_COUNTER = "extract_started_early"

# Failures worth their own counter (all failures are also in ``extract_failed``).
COUNTED_FAILURES: dict[type[Exception], str] = {
    ExtractionTimeout: "extract_timeouts",
    ExtractorCrashed: "extract_crashes",
    ExtractionMemoryExceeded: "extract_memory_kills",
    ArchiveBombError: "archive_bombs",
    TextTooLargeError: "text_too_large",
}


def process_started_unix() -> float | None:
    """When this process started (Unix seconds; Linux /proc), else None."""
    try:
        with open("/proc/self/stat", "rb") as f:
            ticks = int(f.read().rsplit(b")", 1)[1].split()[19])  # after boot, clock ticks
        with open("/proc/uptime", "rb") as f:  # seconds since boot, to 10 ms
            uptime = float(f.read().split()[0])
        # (/proc/stat's btime is whole seconds: up to a second off.)
        return time.time() - (uptime - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


def extraction_summary(result: Any) -> dict[str, float]:
    """Extraction counters of a finished run (for run.json), from Beam's metrics.

    Empty when the runner does not report metrics. Counters are summed over
    steps and workers; the peak child RSS is the largest any worker reported.
    ``first_document_after_s``: from the start of this process (``ragbeam
    run``) to the first document leaving extraction, i.e. start-up (imports,
    graph, runner, matching, the first Tika child) plus one document.
    ``started_early``: documents whose extraction began before the pipeline,
    while Beam was imported (``early.py``).
    """
    metrics = query_metrics(result, "ragbeam")
    if metrics is None:  # a runner without metrics support
        return {}
    totals = totals_of(metrics.get("counters", ()))
    summary: dict[str, float] = dict(summed(totals, {
        ("ragbeam", name): name.removeprefix("extract_")
        for name in (*COUNTED_FAILURES.values(), EARLY_COUNTER)}))
    peaks = [committed_or_attempted(g) for g in metrics.get("gauges", ())
             if g.key.metric.name == "extract_child_peak_rss_mib"]
    summary["child_peak_rss_mib"] = max((int(p.value) for p in peaks if p is not None),
                                        default=0)
    firsts = [committed_or_attempted(d) for d in metrics.get("distributions", ())
              if d.key.metric.name == "extract_first_output_unix_ms"]
    first = min((f.min for f in firsts if f is not None and f.count), default=None)
    started = process_started_unix()
    if first is not None and started is not None:
        summary["first_document_after_s"] = round(first / 1000 - started, 2)
    return summary
