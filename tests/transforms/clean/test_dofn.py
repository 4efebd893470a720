"""The clean stage in a real Beam pipeline: the Extract stage's cleaned documents out,
refusals routed as clean failures, counters summed."""

from __future__ import annotations

import apache_beam as beam
from apache_beam.metrics.metric import MetricsFilter
from apache_beam.testing.util import assert_that, equal_to

from ragbeam.transforms.clean.document import CleanOptions
from ragbeam.transforms.clean.dofn import FAILURES, CleanDocument
from ragbeam.transforms.extract.document import clean_extracted
from ragbeam.transforms.types import Block, BlockKind, ExtractedDocument, SourceFile

from helpers import lines_of


def _extracted(name: str, *blocks: Block) -> ExtractedDocument:
    return ExtractedDocument(SourceFile(f"/{name}", name, 1), "h", "application/pdf", "",
                             blocks, {}, lines=lines_of("application/pdf"))


def test_clean_stage_emits_documents_routes_empty_ones_and_counts_steps():
    pages = [Block(BlockKind.PARAGRAPH, text, page=page) for page, text in (
        (1, "Results of the first page"), (2, "2"), (2, "Text on the second page"),
        (3, "3"), (3, "Text on the third page with a manip-\nulated word"))]
    good = _extracted("good", *pages)
    empty = _extracted("empty", Block(BlockKind.PARAGRAPH, " \u200b ", page=1))
    pipeline = beam.Pipeline()
    cleaned = [clean_extracted(doc, CleanOptions()) for doc in (good, empty)]
    out = (pipeline | beam.Create(cleaned)
           | beam.ParDo(CleanDocument(CleanOptions())).with_outputs(FAILURES, main="ok"))
    assert_that(out.ok | "ids" >> beam.Map(lambda d: d.doc_id), equal_to(["good"]), label="ok")
    assert_that(out[FAILURES] | "failed" >> beam.Map(lambda f: (f.source.doc_id, str(f.stage))),
                equal_to([("empty", "clean")]), label="failures")
    result = pipeline.run()
    result.wait_until_finish()
    counters = {c.key.metric.name: c.committed
                for c in result.metrics().query(MetricsFilter().with_namespace("ragbeam"))
                ["counters"]}
    assert counters["clean_ok"] == 1 and counters["clean_failed"] == 1
    assert counters["clean_furniture_lines_removed"] == 2
    assert counters["clean_hyphenations_joined"] == 1
