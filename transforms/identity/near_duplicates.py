"""Beam side of near-duplicate reporting (``content.near_duplicate_groups``), after
the tables: documents of the same text from other bytes are counted and logged."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.transforms.identity.content import near_duplicate_groups, text_fingerprint


def _text_key(row: Mapping[str, Any]) -> Iterator[tuple[str, tuple[str, str, str | None]]]:
    fingerprint = text_fingerprint(row.get("text"))
    if fingerprint is not None:
        yield fingerprint, (fingerprint, row["source_uri"], row["content_hash"])


class ReportNearDuplicates(beam.PTransform):
    """Documents rows → nothing: documents whose text equals another's while their
    bytes differ are counted (``ragbeam.identity/near_duplicates``: every one after
    the first of its group) and logged, one line per group (``content.py``)."""

    def expand(self, documents: beam.PCollection[dict]) -> beam.PCollection:
        counter = Metrics.counter("ragbeam.identity", "near_duplicates")

        def report(element: tuple[str, Iterable[tuple[str, str, str | None]]]) -> None:
            for group in near_duplicate_groups(element[1]):
                counter.inc(len(group) - 1)
                logging.getLogger("ragbeam").info(
                    "near-duplicates (same text, other bytes): %s",
                    ", ".join(uri for uri, _ in group))

        return (documents
                | "By text" >> beam.FlatMap(_text_key)
                | "Group by text" >> beam.GroupByKey()
                | "Report" >> beam.Map(report))
