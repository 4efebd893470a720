"""Incremental re-indexing (--previous): three successive real runs over a small corpus.

Run 1 is fresh; before run 2 one file is edited, one added and one deleted;
run 3 changes nothing. Every run's output is read back from Parquet.
"""

from __future__ import annotations

import pathlib
import shutil

import pytest

from ragbeam.pipeline.cli import main
from ragbeam.transforms.incremental.changes import apply_changes
from ragbeam.transforms.write.rows import ERROR_CARRIED_KEY

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import copy_samples, read_table, run_cli, settle

FILES = ("faq.txt", "handbook.md", "station-news.html", "corrupt.pdf", "站点简介.txt")
EDIT_BEFORE = "Calibration solutions are in the cold room, second shelf."
EDIT_AFTER = "Calibration solutions are on the top shelf of the left rack in the cold room."
# Small chunks, so one document has many and an edit touches only some of them.
CHUNK_SIZE = "200"


def _run(corpus: pathlib.Path, out: pathlib.Path, *extra: str) -> dict:
    return run_cli(["--input", str(corpus), "--output", str(out), "--chunk-size", CHUNK_SIZE,
                    "--size-unit", "chars",
                    "--extract-timeout", TEST_EXTRACT_TIMEOUT, *extra])


def _docs(out: pathlib.Path) -> dict[str, dict]:
    return {pathlib.Path(d["source_uri"]).name: d for d in read_table(out, "documents").to_pylist()}


def _chunks(out: pathlib.Path) -> dict[str, dict]:
    rows = read_table(out, "chunks").to_pylist()
    by_id = {r["chunk_id"]: r for r in rows}
    assert len(by_id) == len(rows), "a chunk id appears twice"
    return by_id


def _ids_of(out: pathlib.Path, name: str) -> list[str]:
    rows = [r for r in _chunks(out).values() if pathlib.Path(r["source_uri"]).name == name]
    return [r["chunk_id"] for r in sorted(rows, key=lambda r: r["chunk_index"])]


def _changes(out: pathlib.Path) -> list[dict]:
    return read_table(out, "changes").to_pylist()


def _check_snapshot(out: pathlib.Path, summary: dict) -> None:
    """Each output is complete on its own: offsets hold for carried chunks too."""
    docs = read_table(out, "documents").to_pylist()
    text_of = {d["doc_id"]: d["text"] for d in docs}
    per_doc: dict[str, int] = {}
    for c in _chunks(out).values():
        assert text_of[c["doc_id"]][c["char_start"]:c["char_end"]] == c["text"]
        per_doc[c["doc_id"]] = per_doc.get(c["doc_id"], 0) + 1
    for d in docs:
        assert d["chunk_count"] == per_doc.get(d["doc_id"], 0)
        assert d["config_hash"] == summary["config_hash"]
    errors = {e["doc_id"] for e in read_table(out, "errors").to_pylist()}
    assert errors == {d["doc_id"] for d in docs if d["status"] == "error"}
    assert summary["chunks"] == sum(per_doc.values())
    assert summary["changes_upsert"] == sum(c["op"] == "upsert" for c in _changes(out))
    assert summary["changes_delete"] == sum(c["op"] == "delete" for c in _changes(out))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, pathlib.Path]:
    root = tmp_path_factory.mktemp("incremental")
    corpus = copy_samples(root / "corpus", FILES)
    # Files settled long before the run: their modification times are recorded, so
    # later runs take the untouched ones as unchanged from the listing (and their
    # carried rows stay exactly as they were).
    settle(corpus)
    outs = {k: root / k for k in ("run1", "run2", "run3")}
    # One strategy for every document, so the edit test below is about recursive
    # chunking whatever the router would choose (structure: see the last test).
    recursive = ("--strategy", "recursive")
    summaries = {"run1": _run(corpus, outs["run1"], *recursive)}

    handbook = corpus / "handbook.md"
    text = handbook.read_text(encoding="utf-8")
    assert EDIT_BEFORE in text
    handbook.write_text(text.replace(EDIT_BEFORE, EDIT_AFTER), encoding="utf-8")
    shutil.copy(SAMPLES / "sonde-logger.log", corpus / "sonde-logger.log")
    settle(corpus / "sonde-logger.log")
    (corpus / "faq.txt").unlink()
    summaries["run2"] = _run(corpus, outs["run2"], *recursive, "--previous", str(outs["run1"]))
    # Run 3 on two worker processes: records crossing the joins must survive pickling.
    summaries["run3"] = _run(corpus, outs["run3"], *recursive, "--previous", str(outs["run2"]),
                             "--direct_num_workers", "2",
                             "--direct_running_mode", "multi_processing")
    for name, out in outs.items():
        _check_snapshot(out, summaries[name])
    return {"corpus": corpus, **outs, "summaries": summaries}


def test_a_fresh_run_lists_every_chunk_as_an_upsert(runs):
    changes = _changes(runs["run1"])
    assert {c["op"] for c in changes} == {"upsert"}
    assert sorted(c["chunk_id"] for c in changes) == sorted(_chunks(runs["run1"]))


def test_second_run_statuses(runs):
    statuses = {name: d["status"] for name, d in _docs(runs["run2"]).items()}
    assert statuses == {
        "faq.txt": "deleted",
        "handbook.md": "ok",  # edited
        "sonde-logger.log": "ok",  # added
        "station-news.html": "unchanged",
        "站点简介.txt": "unchanged",
        "corrupt.pdf": "error",  # same bytes: the error is kept, not retried
    }
    docs = _docs(runs["run2"])
    assert dict(docs["corrupt.pdf"]["metadata"])[ERROR_CARRIED_KEY] == "true"
    assert docs["faq.txt"]["chunk_count"] == 0 and docs["faq.txt"]["text"] is None
    s = runs["summaries"]["run2"]
    assert (s["files_matched"], s["documents_ok"], s["documents_error"],
            s["documents_unchanged"], s["documents_deleted"]) == (5, 2, 1, 2, 1)
    errors = read_table(runs["run2"], "errors").to_pylist()
    assert errors == read_table(runs["run1"], "errors").to_pylist()


def test_unchanged_documents_carry_their_rows_over_as_they_were(runs):
    before, after = _docs(runs["run1"]), _docs(runs["run2"])
    chunks1, chunks2 = _chunks(runs["run1"]), _chunks(runs["run2"])
    for name in ("station-news.html", "站点简介.txt"):
        assert {**after[name], "status": "ok"} == before[name]
        ids = _ids_of(runs["run1"], name)
        assert ids and ids == _ids_of(runs["run2"], name)
        assert all(chunks2[i] == chunks1[i] for i in ids)


def _moved(before: dict[str, dict], after: dict[str, dict]) -> set[str]:
    """Chunk ids in both runs whose rows differ (positions shifted by an edit above)."""
    return {i for i in set(before) & set(after) if before[i] != after[i]}


def test_changes_are_exactly_the_chunks_that_came_went_or_moved(runs):
    before, after = _chunks(runs["run1"]), _chunks(runs["run2"])
    old, new = set(before), set(after)
    changes = _changes(runs["run2"])
    assert len(changes) == len({c["chunk_id"] for c in changes})
    assert {c["chunk_id"] for c in changes if c["op"] == "delete"} == old - new
    assert {c["chunk_id"] for c in changes if c["op"] == "upsert"} == \
        (new - old) | _moved(before, after)
    touched = {(c["op"], pathlib.Path(c["source_uri"]).name) for c in changes}
    assert touched == {("delete", "faq.txt"), ("delete", "handbook.md"),
                       ("upsert", "handbook.md"), ("upsert", "sonde-logger.log")}
    deleted_faq = {c["chunk_id"] for c in changes if c["source_uri"].endswith("faq.txt")}
    assert deleted_faq == set(_ids_of(runs["run1"], "faq.txt"))


def test_applying_the_changes_to_the_previous_chunks_gives_the_new_chunks(runs):
    previous, current = _chunks(runs["run1"]), _chunks(runs["run2"])
    store = apply_changes(dict(previous), _changes(runs["run2"]), current)
    assert set(store) == set(current)
    content = ("chunk_id", "doc_id", "level", "strategy", "text", "source_uri", "config_hash")
    for chunk_id, row in store.items():
        assert {k: row[k] for k in content} == {k: current[chunk_id][k] for k in content}
    # Every column, positions included: a store keeping them all equals the new table.
    assert store == current


def test_an_edit_changes_only_the_chunks_around_it(runs):
    before, after = _ids_of(runs["run1"], "handbook.md"), _ids_of(runs["run2"], "handbook.md")
    assert len(before) >= 6
    gone, came = set(before) - set(after), set(after) - set(before)
    # Recursive chunking repacks from the edit until the next strong boundary
    # (here a heading), so a few neighbouring chunks change, contiguously…
    assert 1 <= len(gone) <= 3 and 1 <= len(came) <= 3
    positions = sorted(before.index(i) for i in gone)
    assert positions == list(range(positions[0], positions[0] + len(gone)))
    # …while the chunks before it keep their ids, and after it the ids realign.
    assert after[:positions[0]] == before[:positions[0]]
    assert after[-2:] == before[-2:] and positions[-1] < len(before) - 2
    edited = _chunks(runs["run2"])
    assert any(EDIT_AFTER in edited[i]["text"] for i in came)


def test_a_run_with_nothing_changed_has_no_changes(runs):
    assert _changes(runs["run3"]) == []
    assert _chunks(runs["run3"]) == _chunks(runs["run2"])
    statuses = {name: d["status"] for name, d in _docs(runs["run3"]).items()}
    # The tombstone of faq.txt was reported once, in run 2; it is not repeated.
    assert statuses == {"handbook.md": "unchanged", "sonde-logger.log": "unchanged",
                        "station-news.html": "unchanged", "站点简介.txt": "unchanged",
                        "corrupt.pdf": "error"}
    s = runs["summaries"]["run3"]
    assert (s["changes_upsert"], s["changes_delete"], s["documents_deleted"]) == (0, 0, 0)


def test_a_config_change_reprocesses_everything(runs, tmp_path):
    out = tmp_path / "bigger-chunks"
    summary = run_cli(["--input", str(runs["corpus"]), "--output", str(out),
                       "--chunk-size", "300", "--extract-timeout", TEST_EXTRACT_TIMEOUT,
                       "--strategy", "recursive", "--previous", str(runs["run3"])])
    _check_snapshot(out, summary)
    assert summary["config_hash"] != runs["summaries"]["run3"]["config_hash"]
    statuses = {name: d["status"] for name, d in _docs(out).items()}
    assert statuses == {"handbook.md": "ok", "sonde-logger.log": "ok",
                        "station-news.html": "ok", "站点简介.txt": "ok", "corrupt.pdf": "error"}
    assert ERROR_CARRIED_KEY not in dict(_docs(out)["corrupt.pdf"]["metadata"])
    old, new = set(_chunks(runs["run3"])), set(_chunks(out))
    assert not old & new
    changes = _changes(out)
    assert {c["chunk_id"] for c in changes if c["op"] == "delete"} == old
    assert {c["chunk_id"] for c in changes if c["op"] == "upsert"} == new


def test_retry_errors_reprocesses_failed_documents(runs, tmp_path):
    out = tmp_path / "retry"
    # The one document retried fails again: 100 % of the processed documents.
    summary = _run(runs["corpus"], out, "--strategy", "recursive", "--previous",
                   str(runs["run3"]), "--retry-errors", "--max-error-rate", "1")
    _check_snapshot(out, summary)
    corrupt = _docs(out)["corrupt.pdf"]
    assert corrupt["status"] == "error" and corrupt["error"].startswith("extract: ")
    assert ERROR_CARRIED_KEY not in dict(corrupt["metadata"])
    assert summary["documents_unchanged"] == 4 and _changes(out) == []


def test_previous_must_be_a_completed_run_other_than_the_output(runs, tmp_path, capsys):
    corpus = str(runs["corpus"])
    code = main(["run", "--input", corpus, "--output", str(tmp_path / "o"),
                 "--previous", str(tmp_path / "nothing-here")])
    assert code == 2 and "not a completed ragbeam run" in capsys.readouterr().err
    code = main(["run", "--input", corpus, "--output", str(runs["run3"]), "--overwrite",
                 "--previous", str(runs["run3"])])
    assert code == 2 and "must differ from --output" in capsys.readouterr().err
    assert (runs["run3"] / "run.json").exists()


SECTIONS = {
    "Arrival": "Check in at the front desk before noon. Keys are handed out against a signature. "
               "Parking is behind the boathouse; the lot by the jetty is for deliveries only. "
               "Visitors without a booking wait in the library until the manager is free. "
               "The canteen serves lunch from twelve to two, and dinner on request.",
    "Boats": "Boats may only be taken out between sunrise and one hour before sunset. File a trip "
             "plan at the desk. Carry the radio that hangs next to the boat keys at all times. "
             "Life jackets are mandatory for everyone on board, without exception. "
             "Fuel is logged in the boathouse book after every trip.",
    "Samples": "Label every container with the project code, the date and the site. Nutrient "
               "samples go to the freezer within two hours. Ethanol goes in the flammables "
               "cabinet. Never store samples in the walk-in fridge with food. "
               "Shipping boxes and dry ice are ordered through the office.",
    "Departure": "Return keys and radios to the desk. Clean the bench you used and empty the bins. "
                 "Report any damage, however minor, before you leave the station grounds. "
                 "Leave the room key in the box by the door. Safe travels home.",
}
INTRO = "This guide covers a stay at the station, from arrival to departure."


def _guide_html(sections: dict[str, str]) -> str:
    body = "".join(
        f"<h2>{title}</h2>" + "".join(f"<p>{s.strip(' .')}.</p>" for s in text.split(". ") if s)
        for title, text in sections.items())
    return ("<html><head><title>Guide</title></head><body><h1>Guide</h1>"
            f"<p>{INTRO}</p>{body}</body></html>")


def test_an_edit_in_one_section_changes_only_that_sections_chunks(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    guide = corpus / "guide.html"
    guide.write_text(_guide_html(SECTIONS), encoding="utf-8")
    args = ("--strategy", "structure")
    _run(corpus, tmp_path / "run1", *args)
    edited = dict(SECTIONS, Boats=SECTIONS["Boats"].replace(
        "File a trip plan at the desk.", "File a written trip plan, with your route and expected "
        "return time, at the front desk."))
    guide.write_text(_guide_html(edited), encoding="utf-8")
    _run(corpus, tmp_path / "run2", "--previous", str(tmp_path / "run1"), *args)

    def by_section(out: pathlib.Path) -> dict[str, set[str]]:
        sections: dict[str, set[str]] = {}
        for row in _chunks(out).values():
            assert row["strategy"] == "structure"
            sections.setdefault(row["heading_path"][-1], set()).add(row["chunk_id"])
        return sections

    before, after = by_section(tmp_path / "run1"), by_section(tmp_path / "run2")
    assert set(before) == {"Guide", *SECTIONS}
    assert all(len(before[t]) >= 2 for t in SECTIONS), "each section spans several chunks"
    for title in before:
        if title != "Boats":
            assert before[title] == after[title], f"section {title!r} was not edited"
    changes = _changes(tmp_path / "run2")
    deleted = {c["chunk_id"] for c in changes if c["op"] == "delete"}
    upserted = {c["chunk_id"] for c in changes if c["op"] == "upsert"}
    assert deleted and deleted == before["Boats"] - after["Boats"]
    # New chunks of the edited section, and kept chunks after it, whose offsets moved…
    moved = _moved(_chunks(tmp_path / "run1"), _chunks(tmp_path / "run2"))
    assert upserted == (after["Boats"] - before["Boats"]) | moved
    assert moved <= after["Samples"] | after["Departure"] | after["Boats"]
    # …and nothing before it.
    assert not upserted & (after["Guide"] | after["Arrival"])


def test_peek_shows_carried_and_deleted_documents(runs, capsys):
    from ragbeam.pipeline.peek import peek

    peek(str(runs["run2"]))
    out = capsys.readouterr().out
    assert "- faq.txt: deleted" in out
    assert "✓ station-news.html:" in out and "(recursive, unchanged)" in out
    assert "✗ corrupt.pdf: error: extract: " in out


def test_embeddings_of_unchanged_chunks_are_reused_not_recomputed(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    corpus = copy_samples(tmp_path / "corpus", ("handbook.md", "faq.txt"))
    args = ("--strategy", "recursive", "--embed-chunks")
    _run(corpus, tmp_path / "run1", *args)
    # Mark every vector of run 1, so that a reused vector can be told from a
    # recomputed one (the model is deterministic: recomputing gives the same floats).
    for part in (tmp_path / "run1" / "chunks").glob("*.parquet"):
        table = pq.read_table(part)
        field = table.schema.field("embedding")
        dims = len(table.column("embedding")[0].as_py())
        marked = pa.array([[0.5] * dims] * table.num_rows, type=field.type)
        pq.write_table(table.set_column(table.schema.get_field_index("embedding"), field,
                                        marked), part)
    handbook = corpus / "handbook.md"
    handbook.write_text(handbook.read_text(encoding="utf-8").replace(EDIT_BEFORE, EDIT_AFTER),
                        encoding="utf-8")
    _run(corpus, tmp_path / "run2", "--previous", str(tmp_path / "run1"), *args)

    before, after = _chunks(tmp_path / "run1"), _chunks(tmp_path / "run2")
    marker = [0.5] * dims
    edited = {i for i, r in after.items() if r["source_uri"].endswith("handbook.md")}
    kept_in_edited, new = edited & set(before), edited - set(before)
    assert kept_in_edited and new
    assert all(after[i]["embedding"] == marker for i in kept_in_edited)  # reused
    assert all(after[i]["embedding"] != marker and len(after[i]["embedding"]) == dims
               for i in new)  # embedded now
    untouched = set(after) - edited
    assert untouched and all(after[i]["embedding"] == marker for i in untouched)  # carried
