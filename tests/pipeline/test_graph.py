"""``IngestDocuments`` (``pipeline/graph.py``): a pure ``expand`` (what the graph needs
from files or servers is read when the transform is made, ``RunConfig.resolve``), and
the settings types ``ragbeam`` exports accepted as its configuration."""

from __future__ import annotations

import builtins
import contextlib
import gc
import importlib
import io
import os
import socket
import threading
from collections.abc import Iterator

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.util import assert_that, equal_to

import ragbeam
from ragbeam.pipeline.runner import make_pipeline

from conftest import SAMPLES

LAZILY_IMPORTED = ("ragbeam.transforms.chunk.semantic_dofn", "ragbeam.transforms.embed.transforms",
                   "ragbeam.transforms.embed.sparse")


@contextlib.contextmanager
def reads_recorded(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every file opened, folder listed or connection made meanwhile, recorded (and
    refused), whether or not the caller catches the refusal."""
    seen: list[str] = []
    # The graph is built on this thread; another (an earlier test's run flushing its
    # progress file) is not the graph's and keeps its files.
    builder = threading.get_ident()

    def refuse(name: str, real):
        def call(*args, **kwargs):
            if threading.get_ident() != builder:
                return real(*args, **kwargs)
            seen.append(f"{name}{args[:1]!r}")
            raise OSError(f"{name} while the graph is built")
        return call

    # Finalisers of earlier tests' objects (a run's progress tally flushes its file when
    # collected) run on whichever thread the collector interrupts: collect them first,
    # and let no collection run while the graph is built.
    gc.collect()
    gc.disable()
    with contextlib.ExitStack() as stack, monkeypatch.context() as patch:
        stack.callback(gc.enable)
        patch.setattr(builtins, "open", refuse("open", builtins.open))
        patch.setattr(io, "open", refuse("io.open", io.open))
        patch.setattr(os, "scandir", refuse("scandir", os.scandir))
        patch.setattr(os, "listdir", refuse("listdir", os.listdir))
        patch.setattr(socket.socket, "connect", refuse("connect", socket.socket.connect))
        yield seen


@pytest.mark.parametrize("options", [
    {},
    {"embed_chunks": True, "sparse": True},
    {"strategy": "semantic"},
    {"previous": "PREVIOUS", "embed_chunks": True},
], ids=["default", "embed+sparse", "semantic", "incremental+embed"])
def test_expand_reads_nothing(options, tmp_path, monkeypatch):
    """Mutations caught: the previous run's ``run.json`` read in ``expand`` again
    (``VectorsForKeptChunks`` calling the old ``previous_model_differs``, whose
    refused read it swallows), or ``config.config_hash`` left to ``expand``."""
    if options.get("previous"):
        previous = tmp_path / "previous"
        previous.mkdir()
        (previous / "run.json").write_text('{"embedding": {"model": "another"}}')
        options = {**options, "previous": str(previous)}
    transform = ragbeam.IngestDocuments(input=[str(SAMPLES / "faq.txt")], **options)
    # Code is not data: the modules expand imports lazily (torch) are loaded first.
    for module in LAZILY_IMPORTED:
        importlib.import_module(module)
    pipeline = beam.Pipeline()
    with reads_recorded(monkeypatch) as seen:
        _ = pipeline | transform
    assert seen == []


def test_a_previous_run_of_another_model_is_read_before_the_graph(tmp_path):
    previous = tmp_path / "previous"
    previous.mkdir()
    (previous / "run.json").write_text('{"embedding": {"model": "another"}}')
    transform = ragbeam.IngestDocuments(input=[str(SAMPLES / "faq.txt")],
                                        previous=str(previous), embed_chunks=True)
    assert transform._redo_kept_vectors is True


def test_run_settings_configure_a_real_run():
    """``ragbeam.RunSettings`` is exported: ``IngestDocuments`` takes it (it raised an
    ``AttributeError`` in ``expand``)."""
    settings = ragbeam.RunSettings(input=[str(SAMPLES / "faq.txt")], strategy="recursive",
                                   chunk_size=1000)
    with make_pipeline(PipelineOptions([])) as p:
        tables = p | ragbeam.IngestDocuments(settings)
        assert_that(tables["documents"] | beam.Map(lambda d: (d["status"], d["strategy"])),
                    equal_to([("ok", "recursive")]), label="documents")
        assert_that(tables["chunks"] | beam.combiners.Count.Globally(),
                    lambda counts: counts[0] > 0 or (_ for _ in ()).throw(
                        AssertionError("no chunks")), label="chunks")


def test_settings_and_options_together_are_refused():
    settings = ragbeam.RunSettings(input=[str(SAMPLES / "faq.txt")])
    with pytest.raises(TypeError, match="not both"):
        ragbeam.IngestDocuments(settings, chunk_size=100)


@pytest.mark.parametrize("options", [{}, {"embed_chunks": True}], ids=["default", "embed"])
def test_failures_are_counted_in_the_stage_that_fails_them(options):
    """The progress line's error count is ticked by a step fused into the stage that
    failed the document. Counted after the Flatten of every stage's failures, a local
    runner ran the count once all of them were done: "0 errors" until the run's end."""
    pipeline = beam.Pipeline()
    _ = pipeline | ragbeam.IngestDocuments(input=[str(SAMPLES / "faq.txt")], **options)
    producers = {}
    counters = []

    class Visitor(beam.pipeline.PipelineVisitor):
        def visit_transform(self, node):
            for output in node.outputs.values():
                producers[id(output)] = node
            if "Count failures" in node.full_label:
                counters.append(node)

    pipeline.visit(Visitor())
    assert len(counters) >= 4
    for node in counters:
        (source,) = node.inputs
        assert not isinstance(producers[id(source)].transform, beam.Flatten), node.full_label
