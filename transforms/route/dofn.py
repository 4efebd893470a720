"""Route stage: ``Document`` → ``(Document, RouteDecision)``."""

from __future__ import annotations

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.transforms.route.router import RouteOptions, route_document
from ragbeam.transforms.types import FAILURES, Document, Failure, Stage


class RouteDocument(beam.DoFn):
    """Counts documents per chosen strategy (``ragbeam.route``/<strategy>) and per
    basis of the choice (``ragbeam.route_basis``/forced, rule:code, content:headings…)."""

    def __init__(self, options: RouteOptions) -> None:
        self._options = options

    def process(self, doc: Document):
        try:
            decision = route_document(doc, self._options)
        except Exception as exc:
            yield beam.pvalue.TaggedOutput(
                FAILURES,
                Failure(doc.source, Stage.ROUTE, type(exc).__name__, str(exc),
                        content_hash=doc.content_hash, media_type=doc.media_type),
            )
            return
        Metrics.counter("ragbeam.route", decision.strategy).inc()
        Metrics.counter("ragbeam.route_basis", decision.basis).inc()
        yield doc, decision
