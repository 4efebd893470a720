"""``similar_paragraphs`` (``chunk/similar_paragraphs.py``): the pure steps, and a real
pipeline run in which the routed name decides which embedding strategy cuts a
document (the branch of ``chunk/semantic_dofn.py`` is generic over them)."""

from __future__ import annotations

import pathlib
import textwrap

import numpy as np
import pytest

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.similar_paragraphs import (
    SimilarParagraphsStrategy,
    group_units,
    plan_paragraphs,
)
from ragbeam.transforms.chunk.sizing import make_sizer
from ragbeam.transforms.chunk.strategies import build_strategy, needs_embeddings

from helpers import read_table, run_cli

CHARS = make_sizer("chars")
CURLING = ("Curling is played on a sheet of ice with heavy granite stones. "
           "Sweepers brush the ice to make the stone travel further.")
STONES = "The team with the stone closest to the centre of the house scores."
COMPILERS = ("A compiler translates source code into machine instructions. "
             "An optimiser removes redundant computations from the code.")
TEXT = "\n\n".join([CURLING, STONES, COMPILERS])


def test_paragraphs_are_the_units_with_exact_offsets():
    units = plan_paragraphs("  " + TEXT + "\n\n \n", 500, CHARS)
    assert [("  " + TEXT)[s:e] for s, e in units] == [CURLING, STONES, COMPILERS]


def test_a_paragraph_over_the_size_is_split_into_units():
    units = plan_paragraphs(TEXT, 70, CHARS)
    assert len(units) > 3 and all(e - s <= 70 for s, e in units)


def test_similar_neighbours_join_within_the_size():
    units = plan_paragraphs(TEXT, 500, CHARS)
    vectors = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])  # cos: 0.8, then 0.6
    assert group_units(TEXT, units, vectors, 0.7, 500, CHARS) == [
        (units[0][0], units[1][1]), units[2]]
    assert group_units(TEXT, units, vectors, 0.5, 500, CHARS) == [(0, len(TEXT))]
    # 0+1 fits 200 characters, 0+1+2 does not.
    assert group_units(TEXT, units, vectors, 0.5, 200, CHARS) == [(units[0][0], units[1][1]),
                                                                  units[2]]
    with pytest.raises(ValueError, match="expected 3 unit vectors"):
        group_units(TEXT, units, vectors[:2], 0.5, 500, CHARS)


def test_it_is_a_registered_embedding_strategy_with_checked_parameters():
    assert needs_embeddings("similar_paragraphs")
    strategy = build_strategy("similar_paragraphs", ChunkOptions(), {"min_similarity": 0.3})
    assert isinstance(strategy, SimilarParagraphsStrategy) and strategy.min_similarity == 0.3
    with pytest.raises(ValueError, match="min_similarity"):
        build_strategy("similar_paragraphs", ChunkOptions(), {"min_similarity": 2})
    with pytest.raises(ValueError, match="no parameter"):
        build_strategy("similar_paragraphs", ChunkOptions(), {"threshold": "std"})


def test_the_stream_of_slices_assembles_as_the_whole():
    strategy = build_strategy("similar_paragraphs", ChunkOptions(size=500, unit="chars"))
    from ragbeam.transforms.ids import doc_id_for
    from ragbeam.transforms.types import Document, SourceFile

    doc = Document(SourceFile("/t.txt", doc_id_for("/t.txt"), len(TEXT)), "h", "text/plain",
                   TEXT)
    plan = strategy.plan(doc)
    vectors = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])
    stream = strategy.stream(doc, plan)
    stream.add(vectors[:2])
    stream.add(vectors[2:])
    assert stream.finish() == strategy.assemble(doc, plan, vectors)


def _own_chunks(name: str, text: str) -> list[str]:
    """What strategy ``name`` makes of ``text`` by itself (its model in this process)."""
    from ragbeam.transforms.ids import doc_id_for
    from ragbeam.transforms.types import Document, SourceFile

    doc = Document(SourceFile("/d.txt", doc_id_for("/d.txt"), len(text)), "h", "text/plain",
                   text)
    strategy = build_strategy(name, ChunkOptions(size=200, unit="chars"))
    return [chunk.text for chunk in strategy.chunk(doc).chunks]


def test_the_routed_name_decides_which_embedding_strategy_cuts(tmp_path: pathlib.Path):
    """One run, two files of the same text, one routed to ``semantic`` and one to
    ``similar_paragraphs`` (a routing table by path): each gets the chunks its own
    strategy makes of the text. Mutation caught: the branch building a
    ``SemanticStrategy`` whatever the route says (it did before)."""
    mixed = [CURLING.split(". ")[0] + ". " + COMPILERS.split(". ")[1],
             STONES, CURLING, COMPILERS, COMPILERS.split(". ")[0] + ". " + STONES]
    text = "\n\n".join(mixed)
    expected = {name: _own_chunks(name, text) for name in ("similar_paragraphs", "semantic")}
    assert expected["similar_paragraphs"] != expected["semantic"]  # the test can tell them
    for name in ("para", "sem"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "doc.txt").write_text(text, encoding="utf-8")
    config = tmp_path / "routing.yaml"
    config.write_text(textwrap.dedent("""\
        routing:
          rules:
            - name: paragraphs
              strategy: similar_paragraphs
              paths: ["*/para/*"]
            - name: sentences
              strategy: semantic
              paths: ["*/sem/*"]
        """), encoding="utf-8")
    out = tmp_path / "out"
    run_cli(["--input", str(tmp_path / "para"), "--input", str(tmp_path / "sem"),
             "--output", str(out), "--config", str(config), "--chunk-size", "200",
             "--size-unit", "chars"])
    got: dict[str, list[str]] = {}
    for row in sorted(read_table(out, "chunks").to_pylist(), key=lambda r: r["char_start"]):
        got.setdefault(row["strategy"], []).append(row["text"])
    assert got == expected
    documents = {d["strategy"] for d in read_table(out, "documents").to_pylist()}
    assert documents == {"similar_paragraphs", "semantic"}
