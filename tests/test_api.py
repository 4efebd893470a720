"""``ragbeam.chunk_text`` / ``ragbeam.chunk_file``: the notebook API, no Beam."""

from __future__ import annotations

import dataclasses
import pathlib
import shutil
import subprocess
import sys

import pytest

import ragbeam
from ragbeam.transforms.chunk.strategies import needs_embeddings, strategy_names
from ragbeam.transforms.extract.backends import ExtractionError

from conftest import SAMPLES
from helpers import read_table

ENGLISH = ("# Field station\n\nBoats leave the pier at nine. Wear a life jacket at all times. "
           "The radio is on channel 16.\n\n## Samples\n\nLabel every bottle with the date, the "
           "site and your initials. Store water samples in the cold room within two hours.\n")
FRENCH = ("La station de terrain se trouve au bord du lac. Les bateaux partent à neuf heures ; "
          "le gilet de sauvetage est obligatoire. Les échantillons d'eau sont étiquetés "
          "(date, site, initiales) et rangés en chambre froide dans les deux heures. ") * 4
CHINESE = ("湖畔野外站建于一九八五年，位于湖泊北岸。站内有气象观测场和水质实验室。"
           "每年夏季，研究人员在这里采集浮游生物样本。冬季湖面结冰，观测暂停。") * 6
# Every registered strategy but those that need the embedding model (test_semantic has them).
STRATEGIES = [*(n for n in strategy_names() if not needs_embeddings(n)), "auto"]


@pytest.mark.parametrize("text", [ENGLISH, FRENCH, CHINESE], ids=["en", "fr", "zh"])
@pytest.mark.parametrize("unit, size", [("chars", 120), ("tokens", 40), ("model", 40)])
def test_chunk_text_gives_exact_offsets_within_the_size(text, unit, size):
    chunks = ragbeam.chunk_text(text, size=size, unit=unit)
    assert len(chunks) > 1
    assert [c.index for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert text[chunk.start:chunk.end] == chunk.text
        assert 0 < chunk.size <= size and chunk.strategy == "recursive"
    covered = "".join(c.text for c in chunks)
    assert "".join(covered.split()) == "".join(text.split())  # nothing lost, nothing doubled


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_strategy_is_there_without_importing_it(strategy):
    chunks = ragbeam.chunk_text(ENGLISH, strategy=strategy, size=150)
    assert chunks and all(ENGLISH[c.start:c.end] == c.text for c in chunks)


def test_markdown_headings_give_structure_and_context():
    chunks = ragbeam.chunk_text(ENGLISH, strategy="structure", size=200, unit="chars")
    samples = next(c for c in chunks if "cold room" in c.text)
    assert samples.heading_path == ("# Field station", "## Samples")
    assert samples.context == "# Field station > ## Samples"
    assert samples.text.startswith("## Samples")
    assert samples.embed_text == "# Field station\n\n" + samples.text  # the heading once
    assert samples.sparse_text == "# Field station\n\n" + samples.text
    assert dataclasses.asdict(samples)["start"] == samples.start


def test_parent_child_records_point_to_their_parents():
    chunks = ragbeam.chunk_text(FRENCH, strategy="parent_child", size=100, unit="chars",
                                parent_size=400)
    parents = [c for c in chunks if c.level == "parent"]
    children = [c for c in chunks if c.level == "child"]
    assert parents and children
    for child in children:
        parent = chunks[child.parent]
        assert parent.level == "parent" and parent.start <= child.start < child.end <= parent.end


def test_strategy_parameters_are_checked():
    with pytest.raises(ValueError, match="no parameter"):
        ragbeam.chunk_text(ENGLISH, strategy="recursive", chunk_sise=10)


def test_chunk_file_extracts_cleans_routes_and_chunks():
    chunked = ragbeam.chunk_file(SAMPLES / "handbook.md", size=300, unit="chars")
    assert chunked.strategy == "structure" and "headings" in chunked.reason
    assert chunked.media_type == "text/markdown" and len(chunked) > 3
    for chunk in chunked:
        assert chunked.text[chunk.start:chunk.end] == chunk.text and chunk.size <= 300
    pdf = ragbeam.chunk_file(SAMPLES / "boating-safety.pdf", strategy="recursive", size=400,
                             unit="chars")
    assert all(c.page_start is not None for c in pdf)
    assert pdf == ragbeam.chunk_file(SAMPLES / "boating-safety.pdf", strategy="recursive",
                                     size=400, unit="chars")  # deterministic


def test_chunk_file_raises_what_extraction_refuses():
    # Tika's own parse error, after the PDF fallback failed too (the errors table's message).
    with pytest.raises(ExtractionError, match=r"TIKA-198.*pdfminer\.six fallback"):
        ragbeam.chunk_file(SAMPLES / "corrupt.pdf")


@pytest.fixture(scope="module")
def default_run(tmp_path_factory) -> pathlib.Path:
    """``ragbeam run`` with its defaults over three samples (the run's own time limit:
    a loaded machine must not turn this comparison into a timeout)."""
    from helpers import run_cli

    inputs = tmp_path_factory.mktemp("inputs")
    for name in COMPARED:
        shutil.copy(SAMPLES / name, inputs / name)
    out = tmp_path_factory.mktemp("default_run") / "out"
    run_cli(["--input", str(inputs), "--output", str(out)])
    return out


COMPARED = ("boating-safety.pdf", "handbook.md", "station-news.html")


@pytest.mark.parametrize("name", COMPARED)
def test_chunk_file_defaults_give_the_chunks_ragbeam_run_gives(default_run, name):
    """Same defaults (96 tokens, routing), same guarded extraction and cleaning."""
    chunked = ragbeam.chunk_file(SAMPLES / name)
    rows = sorted((r for r in read_table(default_run, "chunks").to_pylist()
                   if r["source_uri"].endswith("/" + name)), key=lambda r: r["char_start"])
    assert rows and [(c.start, c.end, c.text, c.strategy) for c in chunked] == [
        (r["char_start"], r["char_end"], r["text"], r["strategy"]) for r in rows]


def test_records_have_a_short_repr():
    chunked = ragbeam.chunk_file(SAMPLES / "boating-safety.pdf")
    assert len(repr(chunked)) < 200 and f"{len(chunked)} chunks" in repr(chunked)
    assert all(len(repr(c)) < 200 for c in chunked)
    assert repr(chunked[0]).startswith("TextChunk(0, [")


@pytest.mark.parametrize("call, error, argument", [
    (lambda: ragbeam.chunk_text(None), TypeError, "text"),
    (lambda: ragbeam.chunk_text(ENGLISH, size="100"), TypeError, "size"),
    (lambda: ragbeam.chunk_text(ENGLISH, size=True), TypeError, "size"),
    (lambda: ragbeam.chunk_text(ENGLISH, size=0), ValueError, "size"),
    (lambda: ragbeam.chunk_text(ENGLISH, overlap=96), ValueError, "overlap"),
    (lambda: ragbeam.chunk_text(ENGLISH, unit="words"), ValueError, "unit"),
    (lambda: ragbeam.chunk_text(ENGLISH, strategy="semantics"), ValueError, "strategy"),
    (lambda: ragbeam.chunk_text(ENGLISH, strategy=None), TypeError, "strategy"),
    (lambda: ragbeam.chunk_file(None), TypeError, "path"),
    (lambda: ragbeam.chunk_file(SAMPLES / "faq.txt", size=-1), ValueError, "size"),
])
def test_bad_arguments_name_the_argument(call, error, argument):
    with pytest.raises(error, match=rf"^{argument}: "):
        call()


def test_defaults_are_the_clis():
    from ragbeam.pipeline.settings import RunSettings

    defaults = RunSettings()
    one = ragbeam.chunk_text(FRENCH * 8)
    assert one == ragbeam.chunk_text(FRENCH * 8, size=defaults.chunk_size,
                                     unit=defaults.size_unit, overlap=defaults.chunk_overlap)
    assert len(one) > 1 and max(c.size for c in one) <= defaults.chunk_size == 96


def test_markdown_is_read_as_the_pipeline_reads_it():
    text = ("Guide\n=====\n\nBoats leave at nine.\n\n```python\n# a comment, not a heading\n"
            "x = 1\n```\n\nSafety\n------\n\nWear a life jacket.\n")
    chunks = ragbeam.chunk_text(text, strategy="structure", size=12, unit="tokens")
    assert {c.heading_path for c in chunks} == {("Guide",), ("Guide", "Safety")}
    comment = next(c for c in chunks if "# a comment" in c.text)
    assert comment.heading_path == ("Guide",)


def test_a_fresh_interpreter_needs_nothing_but_import_ragbeam():
    code = ("import ragbeam, sys; c = ragbeam.chunk_text('Q: Why?\\nA: Because.\\n' * 5, "
            "strategy='faq', size=50); print(len(c), 'apitools' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.split() == ["5", "False"]  # no Beam (nor its GCP warning) for text
