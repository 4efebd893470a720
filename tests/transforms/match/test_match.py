"""Matching: every matched path is accounted for, and ids do not depend on the mount point."""

from __future__ import annotations

import os
import pathlib
import shutil

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from ragbeam.transforms.ids import doc_id_for, doc_key
from ragbeam.transforms.match.dofn import MatchInputs
from ragbeam.transforms.match.patterns import expand_input, id_root
from ragbeam.transforms.read.dofn import ReadFile
from ragbeam.transforms.types import FAILURES, SourceFile

from conftest import SAMPLES
from helpers import read_table, run_cli


def _doc_ids(inputs: tuple[str, ...], expected: list[str], **kwargs) -> None:
    with beam.Pipeline() as p:
        ids = p | MatchInputs(inputs, **kwargs) | beam.Map(lambda source: source.doc_id)
        assert_that(ids, equal_to(expected))


def test_roots_of_each_kind_of_input(tmp_path):
    folder = expand_input(str(tmp_path))
    assert (folder.pattern, folder.root) == (f"{tmp_path}/**", str(tmp_path))
    glob = expand_input(f"{tmp_path}/docs/*.pdf")
    assert glob.root == f"{tmp_path}/docs"
    single = expand_input(f"{tmp_path}/docs/a.pdf")
    assert (single.pattern, single.root) == (f"{tmp_path}/docs/a.pdf", f"{tmp_path}/docs")
    remote = expand_input("gs://bucket/docs/")
    assert (remote.pattern, remote.root) == ("gs://bucket/docs/**", "gs://bucket/docs")
    # Without the slash it may be an object or a folder: matching decides, offline here;
    # as a root it is a folder, and an object there is keyed by its name.
    maybe = expand_input("gs://bucket/docs")
    assert maybe.object_or_folder and maybe.root == "gs://bucket/docs"
    assert doc_key("gs://bucket/docs/a/b.pdf", maybe.root) == "a/b.pdf"
    assert doc_key("gs://bucket/docs", maybe.root) == "docs"


def test_several_inputs_are_keyed_below_the_folder_they_share(tmp_path):
    def root(*inputs: str) -> str:
        return id_root([expand_input(i) for i in inputs])

    assert root(f"{tmp_path}/manuals", f"{tmp_path}/faq/") == str(tmp_path)
    assert root("gs://b/corpus/manuals/", "gs://b/corpus/faq/") == "gs://b/corpus"
    assert root("gs://b/manuals/", "gs://b/faq/") == "gs://b"
    assert root("gs://b/x/", "gs://c/y/") == ""  # nothing shared: whole URIs
    assert root(f"{tmp_path}/a/", "gs://b/y/") == ""


def test_ids_survive_a_move_and_overlapping_inputs_agree(tmp_path):
    for mount in ("a", "b"):
        (tmp_path / mount / "sub").mkdir(parents=True)
        shutil.copy(SAMPLES / "faq.txt", tmp_path / mount / "sub" / "faq.txt")
    # Two inputs with the same relative path are two documents: keyed below the
    # folder they share, never on top of each other.
    _doc_ids((str(tmp_path / "a"), str(tmp_path / "b")),
             [doc_id_for("a/sub/faq.txt"), doc_id_for("b/sub/faq.txt")])
    relative = doc_id_for("sub/faq.txt")
    _doc_ids((str(tmp_path / "a"),), [relative])
    _doc_ids((str(tmp_path / "b"),), [relative])
    # The same file through two inputs is one document, keyed below the outer root.
    _doc_ids((str(tmp_path / "a"), str(tmp_path / "a" / "sub")), [relative])
    _doc_ids((str(tmp_path / "a"),), [doc_id_for("sub/faq.txt", "team-x")], namespace="team-x")
    assert doc_id_for("sub/faq.txt", "team-x") != relative
    _doc_ids((str(tmp_path / "a"),), [doc_id_for(str(tmp_path / "a" / "sub" / "faq.txt"))],
             doc_ids="absolute")


def test_a_broken_link_and_a_vanished_file_become_error_rows(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(SAMPLES / "faq.txt", corpus / "faq.txt")
    os.symlink(corpus / "nowhere.pdf", corpus / "broken-link.pdf")
    os.symlink(corpus / "loop-b", corpus / "loop-a")
    os.symlink(corpus / "loop-a", corpus / "loop-b")
    summary = run_cli(["--input", str(corpus), "--output", str(tmp_path / "o"),
                       "--max-error-rate", "1"])
    documents = {pathlib.Path(d["source_uri"]).name: d
                 for d in read_table(tmp_path / "o", "documents").to_pylist()}
    assert set(documents) == {"faq.txt", "broken-link.pdf", "loop-a", "loop-b"}
    for name in ("broken-link.pdf", "loop-a", "loop-b"):
        assert documents[name]["status"] == "error"
        assert documents[name]["error"].startswith("read: BrokenLinkError: ")
    assert summary["files_matched"] == 4

    # A file listed, then deleted before it is read.
    gone = SourceFile(str(corpus / "vanished.txt"), "v", 10)
    with beam.Pipeline() as p:
        read = p | beam.Create([gone]) | beam.ParDo(ReadFile(1000)).with_outputs(
            FAILURES, main="ok")
        assert_that(read[FAILURES] | beam.Map(lambda f: (f.error_type, f.source.uri)),
                    equal_to([("FileNotFoundError", gone.uri)]))


def _linked_tree(corpus: pathlib.Path) -> pathlib.Path:
    """A folder linked from inside and from outside the corpus, a link back to its own
    folder (``sub/selfdir -> .``), a cycle of links and a link to the corpus's parent."""
    outside = corpus.parent / "outside"
    outside.mkdir()
    (outside / "far.txt").write_text("Ferries to the far island leave at noon.\n")
    (corpus / "real" / "sub").mkdir(parents=True)
    (corpus / "real" / "a.txt").write_text("Boats leave the harbour at nine.\n")
    (corpus / "top.txt").write_text("Trains leave the station at ten.\n")
    os.symlink("real", corpus / "dirlink")
    os.symlink(outside, corpus / "away")
    os.symlink(".", corpus / "real" / "sub" / "selfdir")
    os.symlink("..", corpus / "up")
    os.symlink("cyc2", corpus / "cyc1")
    os.symlink("cyc1", corpus / "cyc2")
    return corpus


def test_directory_links_are_followed_once_and_loops_are_named(tmp_path):
    from ragbeam.transforms.match.patterns import (
        BROKEN_LINK,
        DIRECTORY_LOOP,
        LINKED_FILE,
        expand_input,
        local_links,
    )

    corpus = _linked_tree(tmp_path / "corpus")
    found = {(kind, os.path.relpath(path, corpus))
             for kind, path, _, _ in local_links(expand_input(str(corpus)))}
    assert found == {
        (LINKED_FILE, "dirlink/a.txt"), (LINKED_FILE, "away/far.txt"),
        (DIRECTORY_LOOP, "real/sub/selfdir"), (DIRECTORY_LOOP, "dirlink/sub/selfdir"),
        (DIRECTORY_LOOP, "up"), (BROKEN_LINK, "cyc1"), (BROKEN_LINK, "cyc2")}


def test_every_path_below_directory_links_gets_one_row_and_loops_are_named_loops(tmp_path):
    corpus = _linked_tree(tmp_path / "corpus")
    out = tmp_path / "o"
    summary = run_cli(["--input", str(corpus), "--output", str(out), "--max-error-rate", "1"])
    rows = read_table(out, "documents").to_pylist()
    documents = {os.path.relpath(d["source_uri"], corpus): d for d in rows}
    assert len(documents) == len(rows) == summary["files_matched"] == 9
    for name in ("top.txt", "real/a.txt", "away/far.txt"):
        assert documents[name]["status"] == "ok", name
    # The same bytes under the followed link: indexed once, under real/a.txt.
    assert documents["dirlink/a.txt"]["status"] == "duplicate"
    for name in ("real/sub/selfdir", "dirlink/sub/selfdir", "up", "cyc1", "cyc2"):
        assert documents[name]["status"] == "error", name
        assert documents[name]["error"].startswith("read: BrokenLinkError: symbolic link loop"), (
            documents[name]["error"])
    assert not any("does not exist" in (d["error"] or "") for d in rows)


def test_ragbeam_s_own_folders_are_left_out_wherever_they_are(tmp_path):
    """An output (its run.json, by its keys; a partial one; a claim) or a sync state
    folder below the input is ragbeam's; a user's file named run.json is not."""
    import json

    from ragbeam.transforms.match.patterns import (
        expand_input,
        local_directory_files,
        matching_files,
        own_folders,
    )

    (tmp_path / "notes.txt").write_text("tea")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "run.json").write_text(json.dumps({"steps": []}))
    done = tmp_path / "old" / "run1"
    (done / "documents").mkdir(parents=True)
    (done / "documents" / "part-0.parquet").write_bytes(b"PAR1")
    (done / "run.json").write_text(json.dumps({"config_hash": "x", "outcome": "ok"}))
    (tmp_path / "state" / "_claims").mkdir(parents=True)
    (tmp_path / "state" / "_claims" / "r1.json").write_text("{}")
    (tmp_path / "state" / "2026-03-01" / "chunks").mkdir(parents=True)
    (tmp_path / "state" / "2026-03-01" / "chunks" / "a.parquet").write_bytes(b"PAR1")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "stray.txt").write_text("left by the user in the output")
    pattern = expand_input(str(tmp_path))
    own = (str(tmp_path / "out"),)
    listed = sorted(m.path for m in matching_files(pattern, (), (), own=own))
    walked = sorted(p for p, _, _ in local_directory_files(pattern, (), (), own=own))
    expected = [str(tmp_path / "app" / "run.json"), str(tmp_path / "notes.txt")]
    assert listed == walked == expected
    assert own_folders([str(done / "run.json"), str(tmp_path / "state/_claims/r1.json")]) == [
        str(done), str(tmp_path / "state")]
