"""Boilerplate repeated across the documents of a run (transforms/clean/boilerplate.py)."""

from __future__ import annotations

import pathlib

from ragbeam.transforms.clean.boilerplate import (
    MIN_DOCUMENTS,
    block_fingerprints,
    remove_boilerplate,
)
from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.types import Block, BlockKind, ExtractedDocument, SourceFile

from helpers import lines_of, read_table, run_cli

NOTICE = ("This text may be copied and given away under the terms of the licence included "
          "with it; if you are not located in the country of origin, check your local laws.")
OTHER_NOTICE = ("Updated editions will replace the previous one, and the old editions will be "
                "renamed so that nobody confuses the versions of this work.")


def _story(n: int) -> list[str]:
    return [*_part(n), *_part(n + 100), *_part(n + 200)]


def _part(n: int) -> list[str]:
    return [f"Story {n} begins on a cold morning at station number {n} by the lake shore, "
            f"where the {n}th crew of the season checked every gauge twice.",
            f"The crew of story {n} then walked along the northern path for {n} hours and "
            "wrote down every reading they took in the logbook."]


def _doc(n: int, paragraphs: list[str]):
    text = "\n\n".join(paragraphs)
    blocks, at = [], 0
    for p in paragraphs:
        blocks.append(Block(BlockKind.PARAGRAPH, p, None, 0, at, at + len(p)))
        at += len(p) + 2
    extracted = ExtractedDocument(SourceFile(f"/in/{n}.txt", f"d{n}", len(text)), "h",
                                  "text/plain", text, tuple(blocks), {},
                                  lines=lines_of("text/plain"))
    return clean_document(extracted, CleanOptions())


def test_a_block_in_enough_documents_goes_and_offsets_stay_exact():
    docs = [_doc(n, [*_story(n), NOTICE]) for n in range(MIN_DOCUMENTS)]
    shared = set.intersection(*(block_fingerprints(d) for d in docs))
    assert len(shared) == 1
    cleaned = remove_boilerplate(docs[0], shared)
    assert NOTICE not in cleaned.text and cleaned.text == "\n\n".join(_story(0))
    assert cleaned.metadata["clean_boilerplate_blocks_removed"] == "1"
    for span in cleaned.spans:  # spans still point at their text, blocks renumbered
        assert cleaned.text[span.start:span.end].strip()
    assert [s.block for s in cleaned.spans] == list(range(6))


def test_copies_of_one_document_keep_their_text():
    doc = _doc(1, [*_story(1), NOTICE])
    everything = block_fingerprints(doc)
    assert remove_boilerplate(doc, everything).text == doc.text  # over MAX_SHARE: a copy


def test_pipeline_removes_a_notice_repeated_across_the_run_and_only_there(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    twice = ("A quotation both of the first two stories use, long enough to count as a block "
             "but found in two documents only, so it is no boilerplate.")
    for n in range(4):
        extra = [NOTICE, OTHER_NOTICE] if n < 3 else [OTHER_NOTICE]
        extra += [twice] if n < 2 else []
        (folder / f"story-{n}.txt").write_text("\n\n".join([*_story(n), *_story(n + 10),
                                                            *extra]) + "\n")
    (folder / "lone.txt").write_text("\n\n".join([*_story(7), NOTICE]) + "\n")
    runs = {}
    for name, extra in (("on", ["--clean-corpus-boilerplate"]), ("off", [])):
        out = tmp_path / name
        run_cli(["--input", str(folder), "--output", str(out), *extra])
        runs[name] = {pathlib.Path(d["source_uri"]).name: d
                      for d in read_table(out, "documents").to_pylist()}
    on, off = runs["on"], runs["off"]
    # NOTICE is in 4 documents, OTHER_NOTICE in 4: both go from every document with them.
    for name, doc in on.items():
        assert NOTICE not in doc["text"] and OTHER_NOTICE not in doc["text"], name
        assert _story(int(name.split("-")[-1].split(".")[0]) if "-" in name else 7)[0] \
            in doc["text"]
    assert all(NOTICE in off[f"story-{n}.txt"]["text"] for n in range(3))
    assert twice in on["story-0.txt"]["text"] and twice in on["story-1.txt"]["text"]
    assert dict(on["story-0.txt"]["metadata"])["clean_boilerplate_blocks_removed"] == "2"
