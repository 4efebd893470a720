"""``IngestDocuments`` declares its output types: every table is a PCollection of its
row type (``ragbeam.schemas``), checked by Beam's pipeline type check when the graph
is built and, with ``runtime_type_check``, on every element of a real run.

Beam types every ``TypedDict`` row as ``Dict[str, Any]`` (``ROW``), so Beam's own
checks cannot tell a ``ChunkRow`` from a ``DocumentRow``. The row types are checked
here as declared, before Beam converts them: a DoFn's ``with_output_types``
arguments read from its source (``declared_outputs``), a ``Map`` step's row type
from its function's annotations, followed through the graph back to the step that
made the rows (``declared_row_type``).
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from collections.abc import Iterable
from typing import Any, get_args, get_origin, get_type_hints

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions, TypeOptions
from apache_beam.testing.util import assert_that, equal_to
from apache_beam.typehints import typehints
from apache_beam.typehints.decorators import TypeCheckError
from apache_beam.typehints.native_type_compatibility import convert_to_beam_type

import ragbeam
from ragbeam.pipeline.graph import IngestDocuments, Tables
from ragbeam.pipeline.runner import make_pipeline
from ragbeam.schemas import OUTPUT_TABLES, ROW_TYPES, ChangeRow, ChunkRow, DocumentRow, ErrorRow
from ragbeam.transforms.chunk.dofn import ChunkDocument
from ragbeam.transforms.chunk.semantic_dofn import EmbedAndCut
from ragbeam.transforms.embed.transforms import EMBED_FAILED, RetryFailedBatches
from ragbeam.transforms.embed.vectors import FailDocumentsWithoutVectors
from ragbeam.transforms.identity.identify import DUPLICATES, ResolveContent
from ragbeam.transforms.incremental.carry_previous_rows import (
    CARRIED_CHANGES,
    CARRIED_DOCUMENTS,
    CARRIED_ERRORS,
    CarryPreviousRows,
)
from ragbeam.transforms.incremental.reconcile_documents import ReconcileDocuments
from ragbeam.transforms.types import FAILURES, Failure

from conftest import SAMPLES

ROW = typehints.Dict[str, Any]  # what Beam makes of a TypedDict row type
ROW_TYPE_SET = frozenset(ROW_TYPES.values())


def declared_outputs(dofn: type) -> tuple[Any, dict[str, Any]]:
    """The main and tagged output types a DoFn class's ``with_output_types``
    decorator names, as written (evaluated in its module): what Beam converts to
    ``Dict[str, Any]`` and forgets."""
    (node,) = ast.parse(textwrap.dedent(inspect.getsource(dofn))).body
    names = vars(sys.modules[dofn.__module__])

    def value(expression: ast.expr) -> Any:
        return eval(compile(ast.Expression(expression), dofn.__module__, "eval"), names)

    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call) and \
                ast.unparse(decorator.func).endswith("with_output_types"):
            tagged: dict[str, Any] = {}
            for keyword in decorator.keywords:
                if keyword.arg is None:  # **{TAG: type}
                    tagged.update(value(keyword.value))
                else:
                    tagged[keyword.arg] = value(keyword.value)
            return value(decorator.args[0]), tagged
    raise AssertionError(f"{dofn.__name__} declares no output types")


def _element_type(hint: Any, flat: bool) -> Any:
    if flat:  # FlatMap: Iterable[row]
        assert get_origin(hint) in (Iterable, list, tuple) or hint is None, hint
        return get_args(hint)[0]
    return hint


def _first_parameter(fn: Any) -> Any:
    hints = get_type_hints(fn)
    parameters = [p for p in inspect.signature(fn).parameters if p != "self"]
    return hints.get(parameters[0]) if parameters else None


def declared_row_type(pcoll: beam.PCollection) -> Any:
    """The row type the step that makes ``pcoll`` declares, followed back through
    steps that pass rows on (``Flatten``, ``Filter``, ``Partition``); on the way, every step whose
    element parameter is annotated with a row type is checked to get that type."""
    applied = pcoll.producer
    transform = applied.transform
    inputs = list(applied.main_inputs.values())
    if isinstance(transform, beam.Flatten):
        found = {declared_row_type(p) for p in inputs}
        assert len(found) == 1, (applied.full_label, found)
        return found.pop()
    fn = transform.fn
    if isinstance(fn, beam.Partition.ApplyPartitionFnFn):  # elements pass unchanged
        return declared_row_type(inputs[0])
    if isinstance(fn, beam.transforms.core.CallableWrapperDoFn):
        wrapper = fn._fn
        kind = wrapper.__qualname__.split(".")[0]
        if kind == "Filter":  # elements pass unchanged
            return declared_row_type(inputs[0])
        # Map and MapTuple wrap the function they were given (their closure's ``fn``).
        original = inspect.getclosurevars(wrapper).nonlocals.get("fn", wrapper)
        made = _element_type(get_type_hints(original).get("return"), flat=kind not in (
            "Map", "MapTuple"))
        expected_in = _first_parameter(original) if kind != "MapTuple" else None
    else:
        main, tagged = declared_outputs(type(fn))
        made = main if pcoll.tag is None else tagged[pcoll.tag]
        expected_in = _first_parameter(type(fn).process)
    if expected_in in ROW_TYPE_SET:
        got = declared_row_type(inputs[0])
        assert got is expected_in, (f"{applied.full_label} takes {expected_in.__name__}, "
                                    f"gets {getattr(got, '__name__', got)}")
    return made


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
    """Beam's element types, and the row types as declared by the steps that make
    each table. Mutations caught: the errors table made by
    ``beam.Map(error_document_row, config_hash)`` (DocumentRow rows), and
    ``with_sparse_vector`` annotated to take a ``DocumentRow``."""
    if options.get("previous"):
        options = {**options, "previous": str(tmp_path)}
    pipeline = beam.Pipeline(options=_options())
    tables = pipeline | ragbeam.IngestDocuments(input=[str(SAMPLES / "faq.txt")], **options)
    assert tuple(tables) == OUTPUT_TABLES
    for table, pcoll in tables.items():
        assert pcoll.element_type == convert_to_beam_type(ROW_TYPES[table]) == ROW, table
        assert declared_row_type(pcoll) is ROW_TYPES[table], table
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
    """Each output's type as declared, not as Beam sees it: the mutation caught is
    ``EmbedAndCut`` declaring ``with_output_types(DocumentRow, documents=ChunkRow)``
    (Beam sees ``Dict[str, Any]`` either way)."""
    declared_main, declared_tagged = declared_outputs(dofn)
    if main is not None:
        assert declared_main is main, dofn.__name__
    for tag, row_type in tagged.items():
        assert declared_tagged[tag] == row_type, (dofn.__name__, tag)
    # The decorator read is the one Beam applied.
    hints = dofn.__new__(dofn).get_type_hints()
    assert hints.simple_output_type(dofn.__name__) == convert_to_beam_type(declared_main)
    assert hints.tagged_output_types() == {
        tag: convert_to_beam_type(hint) for tag, hint in declared_tagged.items()}


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
