"""``IngestDocuments`` declares its output types: every table is a PCollection of its
row type (``ragbeam.schemas``), checked by Beam's pipeline type check when the graph
is built and, with ``runtime_type_check``, on every element of a real run."""

from __future__ import annotations

from typing import Any, get_type_hints

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions, TypeOptions
from apache_beam.testing.util import assert_that, equal_to
from apache_beam.typehints import typehints
from apache_beam.typehints.decorators import TypeCheckError
from apache_beam.typehints.native_type_compatibility import convert_to_beam_type

import ragbeam
from ragbeam.pipeline.graph import FailDocumentsWithoutVectors, IngestDocuments, Tables
from ragbeam.pipeline.runner import make_pipeline
from ragbeam.schemas import OUTPUT_TABLES, ROW_TYPES, ChangeRow, ChunkRow, DocumentRow, ErrorRow
from ragbeam.transforms.chunk.dofn import ChunkDocument
from ragbeam.transforms.chunk.semantic_dofn import EmbedAndCut
from ragbeam.transforms.embed.transforms import EMBED_FAILED, RetryFailedBatches
from ragbeam.transforms.incremental.dofn import (
    CARRIED_CHANGES,
    CARRIED_DOCUMENTS,
    CARRIED_ERRORS,
    DUPLICATES,
    CarryPreviousRows,
    ReconcileDocuments,
    ResolveContent,
)
from ragbeam.transforms.types import FAILURES, Failure

from conftest import SAMPLES

ROW = typehints.Dict[str, Any]  # what Beam makes of a TypedDict row type


def _options(*args: str) -> PipelineOptions:
    options = PipelineOptions(list(args))
    assert options.view_as(TypeOptions).pipeline_type_check  # Beam's default, kept
    return options


def test_ingest_documents_is_typed_as_a_transform_to_the_four_tables():
    assert IngestDocuments.__orig_bases__[0].__args__[1] is Tables
    assert get_type_hints(IngestDocuments.expand)["return"] is Tables
    assert get_type_hints(Tables) == {table: beam.PCollection[ROW_TYPES[table]]
                                      for table in OUTPUT_TABLES}


@pytest.mark.parametrize("options", [
    {},
    {"embed_chunks": True, "sparse": True},
    {"strategy": "semantic"},
    {"previous": "PREVIOUS", "embed_chunks": True, "sparse": True},
], ids=["default", "embed+sparse", "semantic", "incremental"])
def test_every_table_is_a_pcollection_of_its_row_type(options, tmp_path):
    if options.get("previous"):
        options = {**options, "previous": str(tmp_path)}
    pipeline = beam.Pipeline(options=_options())
    tables = pipeline | ragbeam.IngestDocuments(input=[str(SAMPLES / "faq.txt")], **options)
    assert tuple(tables) == OUTPUT_TABLES
    for table, pcoll in tables.items():
        assert pcoll.element_type == convert_to_beam_type(ROW_TYPES[table]) == ROW, table
    pipeline.to_runner_api()  # a coder for every PCollection


@pytest.mark.parametrize(("dofn", "main", "tagged"), [
    (ChunkDocument, ChunkRow, {"documents": DocumentRow, FAILURES: Failure}),
    (EmbedAndCut, ChunkRow, {"documents": DocumentRow, FAILURES: Failure}),
    (FailDocumentsWithoutVectors, DocumentRow, {FAILURES: Failure}),
    (RetryFailedBatches, ChunkRow, {EMBED_FAILED: tuple[str, str]}),
    (ResolveContent, None, {DUPLICATES: DocumentRow}),
    (CarryPreviousRows, ChunkRow, {CARRIED_DOCUMENTS: DocumentRow, CARRIED_ERRORS: ErrorRow,
                                   CARRIED_CHANGES: ChangeRow}),
    (ReconcileDocuments, ChangeRow, {"documents": DocumentRow, "chunks": ChunkRow,
                                     "errors": ErrorRow}),
], ids=lambda value: value.__name__ if isinstance(value, type) else "")
def test_dofns_that_make_rows_declare_them(dofn, main, tagged):
    hints = dofn.__new__(dofn).get_type_hints()
    if main is not None:
        assert hints.simple_output_type(dofn.__name__) == convert_to_beam_type(main)
    declared = hints.tagged_output_types()
    for tag, row_type in tagged.items():
        assert declared[tag] == convert_to_beam_type(row_type), (dofn.__name__, tag)


def test_a_step_that_expects_other_elements_is_refused_when_the_graph_is_built():
    pipeline = beam.Pipeline(options=_options())
    tables = pipeline | ragbeam.IngestDocuments(input=[str(SAMPLES / "faq.txt")])
    with pytest.raises(TypeCheckError):
        _ = tables["chunks"] | beam.Map(len).with_input_types(str)


@pytest.mark.parametrize("runner", ["default", "DirectRunner"])
def test_every_element_of_a_run_is_of_its_declared_type(runner):
    """``runtime_type_check`` checks each element a typed step outputs against its
    declaration, on ragbeam's default runner (``runner.py``) and on Beam's DirectRunner."""
    if runner == "default":
        pipeline = make_pipeline(_options("--runtime_type_check"))
    else:  # Beam's own DirectRunner, not ragbeam's shortcut to its FnApiRunner
        pipeline = beam.Pipeline(options=_options("--runtime_type_check", f"--runner={runner}"))
    pairs = [("mem://notes/a.txt", b"First note. It has two sentences."),
             ("mem://notes/empty.txt", b"")]
    with pipeline as p:
        tables = p | beam.Create(pairs) | ragbeam.IngestDocuments(strategy="recursive")
        assert_that(tables["chunks"] | beam.Map(lambda c: c["text"]),
                    equal_to(["First note. It has two sentences."]), label="chunks")
        assert_that(tables["documents"] | beam.Map(lambda d: d["status"]),
                    equal_to(["ok", "error"]), label="documents")
        assert_that(tables["errors"] | beam.Map(lambda e: e["source_uri"]),
                    equal_to(["mem://notes/empty.txt"]), label="errors")
        assert_that(tables["changes"] | beam.Map(lambda c: c["op"]),
                    equal_to(["upsert"]), label="changes")
