"""``ragbeam.chunk_text`` / ``ragbeam.chunk_file``: the notebook API, no Beam."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

import ragbeam

from conftest import SAMPLES

ENGLISH = ("# Field station\n\nBoats leave the pier at nine. Wear a life jacket at all times. "
           "The radio is on channel 16.\n\n## Samples\n\nLabel every bottle with the date, the "
           "site and your initials. Store water samples in the cold room within two hours.\n")
FRENCH = ("La station de terrain se trouve au bord du lac. Les bateaux partent à neuf heures ; "
          "le gilet de sauvetage est obligatoire. Les échantillons d'eau sont étiquetés "
          "(date, site, initiales) et rangés en chambre froide dans les deux heures. ") * 4
CHINESE = ("湖畔野外站建于一九八五年，位于湖泊北岸。站内有气象观测场和水质实验室。"
           "每年夏季，研究人员在这里采集浮游生物样本。冬季湖面结冰，观测暂停。") * 6
STRATEGIES = ("recursive", "fixed", "sliding", "structure", "parent_child", "code", "faq", "log",
              "table", "auto")


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
    chunks = ragbeam.chunk_text(ENGLISH, strategy="structure", size=200)
    samples = next(c for c in chunks if "cold room" in c.text)
    assert samples.heading_path == ("# Field station", "## Samples")
    assert samples.context == "# Field station > ## Samples"
    assert samples.text.startswith("## Samples")
    assert samples.embed_text == "# Field station\n\n" + samples.text  # the heading once
    assert dataclasses.asdict(samples)["start"] == samples.start


def test_parent_child_records_point_to_their_parents():
    chunks = ragbeam.chunk_text(FRENCH, strategy="parent_child", size=100, parent_size=400)
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
    chunked = ragbeam.chunk_file(SAMPLES / "handbook.md", size=300)
    assert chunked.strategy == "structure" and "headings" in chunked.reason
    assert chunked.media_type == "text/markdown" and len(chunked) > 3
    for chunk in chunked:
        assert chunked.text[chunk.start:chunk.end] == chunk.text and chunk.size <= 300
    pdf = ragbeam.chunk_file(SAMPLES / "boating-safety.pdf", strategy="recursive", size=400)
    assert all(c.page_start is not None for c in pdf)
    assert pdf == ragbeam.chunk_file(SAMPLES / "boating-safety.pdf", strategy="recursive",
                                     size=400)  # deterministic


def test_chunk_file_raises_what_extraction_refuses():
    with pytest.raises(Exception, match=r"(?i)pdf|parse|extract"):
        ragbeam.chunk_file(SAMPLES / "corrupt.pdf")


def test_a_fresh_interpreter_needs_nothing_but_import_ragbeam():
    code = ("import ragbeam, sys; c = ragbeam.chunk_text('Q: Why?\\nA: Because.\\n' * 5, "
            "strategy='faq', size=50); print(len(c), 'apitools' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.split()[0] == "5"
