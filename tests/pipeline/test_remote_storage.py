"""``gs://`` end to end, against a GCS API emulator started on localhost.

Inputs, ``--output`` and ``--previous`` all on ``gs://``, through Beam's own GCS
filesystem (``tests/gcs_emulator.py`` says how it is pointed at the emulator):
a folder matched recursively with or without its trailing slash, include and
exclude, the tables and run.json written there, the output claim, an
incremental run against a ``gs://`` previous run, and the failures a user
meets first (a missing bucket, a prefix with no objects).
"""

from __future__ import annotations

import io
import json
import pathlib
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragbeam.pipeline.claim import OutputClaimed, claim_output, release_claim
from ragbeam.pipeline.cli import main
from ragbeam.transforms.write import rows

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT
from helpers import cli_in_fresh_process
from object_stores import gcs_emulator, s3_server

BUCKET = "ragbeam-test"
CORPUS = f"gs://{BUCKET}/corpus"
# Two levels, so a folder input must be matched recursively.
LAYOUT = {"faq.txt": "faq.txt", "handbook.md": "guides/handbook.md",
          "station-news.html": "guides/web/station-news.html", "corrupt.pdf": "corrupt.pdf",
          "equipment.csv": "data/equipment.csv"}


def _fs():
    from apache_beam.io.filesystems import FileSystems
    from apache_beam.options.pipeline_options import PipelineOptions

    FileSystems.set_options(PipelineOptions([]))  # S3 needs options (GCS does not care)
    return FileSystems


def _put(uri: str, data: bytes) -> None:
    with _fs().create(uri) as f:
        f.write(data)


def _list(prefix: str) -> list[str]:
    return sorted(m.path for m in _fs().match([f"{prefix}/**"])[0].metadata_list)


def _table(output: str, name: str) -> pa.Table:
    paths = sorted(m.path for m in _fs().match([f"{output}/{name}/*.parquet"])[0].metadata_list)
    assert paths, f"no {name} table under {output}"
    tables = []
    for path in paths:
        with _fs().open(path) as f:
            tables.append(pq.read_table(io.BytesIO(f.read())))
    return pa.concat_tables(tables)


def _run_json(output: str) -> dict:
    with _fs().open(f"{output}/run.json") as f:
        return json.loads(f.read().decode("utf-8"))


def _docs(output: str, corpus: str = CORPUS) -> dict[str, dict]:
    return {d["source_uri"].removeprefix(corpus + "/"): d
            for d in _table(output, "documents").to_pylist()}


def _run(*args: str, expected: int = 0) -> None:
    assert main(["run", "--extract-timeout", TEST_EXTRACT_TIMEOUT, *args]) == expected


@pytest.fixture(scope="module")
def gcs(tmp_path_factory):
    with gcs_emulator(tmp_path_factory.mktemp("gcs"), BUCKET) as endpoint:
        for name, key in LAYOUT.items():
            _put(f"{CORPUS}/{key}", (SAMPLES / name).read_bytes())
        yield endpoint


@pytest.fixture(scope="module")
def first_run(gcs) -> str:
    output = f"gs://{BUCKET}/runs/first"
    _run("--input", CORPUS, "--output", output)  # a folder, no trailing slash
    return output


def test_a_folder_is_matched_recursively_and_everything_lands_in_the_bucket(first_run):
    assert sorted(_docs(first_run)) == sorted(LAYOUT.values())
    summary = _run_json(first_run)
    assert (summary["files_matched"], summary["documents_error"]) == (len(LAYOUT), 1)
    assert summary["chunks"] == _table(first_run, "chunks").num_rows > 0
    # Only the finished tables and run.json: no claim and no temporary files left.
    assert {p.removeprefix(first_run + "/").split("/")[0] for p in _list(first_run)} == {
        "chunks", "documents", "errors", "changes", "terms", "run.json"}
    # The document text is read back from the bucket like any local output.
    assert "cold room" in _docs(first_run)["guides/handbook.md"]["text"]


def test_the_trailing_slash_makes_no_difference(first_run):
    output = f"gs://{BUCKET}/runs/slash"
    _run("--input", CORPUS + "/", "--output", output)
    ids = lambda out: sorted((k, d["doc_id"]) for k, d in _docs(out).items())  # noqa: E731
    assert ids(output) == ids(first_run)
    chunk_ids = lambda out: sorted(_table(out, "chunks").column("chunk_id").to_pylist())  # noqa: E731
    assert chunk_ids(output) == chunk_ids(first_run)


def test_include_and_exclude_apply_to_object_names(gcs):
    output = f"gs://{BUCKET}/runs/filtered"
    _run("--input", CORPUS, "--include", "*.md", "--include", "*.html",
         "--exclude", "*/web/*", "--output", output)
    assert sorted(_docs(output)) == ["guides/handbook.md"]


def test_an_incremental_run_against_a_previous_run_in_the_bucket(first_run, monkeypatch):
    # The objects were written seconds before the first run, too recently for their
    # times to be trusted (rows.SETTLED_AFTER_S): that run recorded none, so this
    # one hashes every file once. Then a re-run trusts the times GCS lists.
    monkeypatch.setattr(rows, "SETTLED_AFTER_S", 1.0)
    time.sleep(1.5)
    second = f"gs://{BUCKET}/runs/second"
    _run("--input", CORPUS, "--output", second, "--previous", first_run)
    summary = _run_json(second)
    assert summary["documents_unchanged"] == len(LAYOUT) - 1  # all but the error, kept
    assert summary["changes_upsert"] == summary["changes_delete"] == 0
    assert summary["reads"]["files_hashed"] == len(LAYOUT)
    assert all(d[rows.SOURCE_MODIFIED_KEY] for d in
               (dict(doc["metadata"]) for doc in _docs(second).values()))

    # Edit one object, add one, delete one: only those are read.
    text = (SAMPLES / "faq.txt").read_bytes() + b"\n\nQ: Is this new?\nA: Yes.\n"
    _put(f"{CORPUS}/faq.txt", text)
    _put(f"{CORPUS}/logs/sonde-logger.log", (SAMPLES / "sonde-logger.log").read_bytes())
    _fs().delete([f"{CORPUS}/data/equipment.csv"])
    third = f"gs://{BUCKET}/runs/third"
    _run("--input", CORPUS, "--output", third, "--previous", second)
    summary = _run_json(third)
    statuses = {key: d["status"] for key, d in _docs(third).items()}
    assert statuses == {"faq.txt": "ok", "guides/handbook.md": "unchanged",
                        "guides/web/station-news.html": "unchanged", "corrupt.pdf": "error",
                        "data/equipment.csv": "deleted", "logs/sonde-logger.log": "ok"}
    assert summary["reads"]["files_hashed"] == 1  # faq.txt: the new one needs no hash
    assert summary["reads"]["files_unchanged_by_listing"] == 3
    assert summary["reads"]["bytes_read"] == len(text) + (
        SAMPLES / "sonde-logger.log").stat().st_size
    changes = _table(third, "changes").to_pylist()
    deleted_ids = {c["chunk_id"] for c in changes if c["op"] == "delete"}
    equipment = _docs(second)["data/equipment.csv"]["doc_id"]
    assert {r["chunk_id"] for r in _table(second, "chunks").to_pylist()
            if r["doc_id"] == equipment} <= deleted_ids


def test_a_sparse_run_s_term_frequencies_load_from_the_bucket(gcs):
    from ragbeam.api import load_term_frequencies
    from ragbeam.transforms.embed.term_table import ALL_CHUNKS_INDEX

    output = f"gs://{BUCKET}/runs/sparse"
    _run("--input", CORPUS, "--output", output, "--sparse")
    frequencies = load_term_frequencies(output)
    terms = _table(output, "terms").to_pylist()
    assert frequencies.chunks == _table(output, "chunks").num_rows > 0
    assert dict(frequencies.frequencies) == {
        t["index"]: t["chunks"] for t in terms if t["index"] != ALL_CHUNKS_INDEX}


def test_an_unchanged_night_in_the_bucket_does_not_import_beam(gcs):
    """Inputs, --previous and --output in the bucket, nothing changed: no pipeline, and
    no Beam at all (the files through google-cloud-storage's client: storage.py). Two
    text files and a generous time limit: the first night has nothing to retry."""
    corpus = f"gs://{BUCKET}/quiet-corpus"
    for name in ("faq.txt", "handbook.md"):
        _put(f"{corpus}/{name}", (SAMPLES / name).read_bytes())
    first, night = f"gs://{BUCKET}/runs/quiet-1", f"gs://{BUCKET}/runs/quiet-2"
    assert main(["run", "--extract-timeout", "300", "--input", corpus, "--output", first]) == 0
    code, beam = cli_in_fresh_process(["run", "--extract-timeout", "300", "--input", corpus,
                                       "--output", night, "--previous", first])
    summary = _run_json(night)
    assert code == 0 and summary["pipeline"] is False and beam == []
    assert summary["documents_unchanged"] == 2
    assert _table(night, "chunks").num_rows == _table(first, "chunks").num_rows


def test_the_sink_finalizes_many_shards_on_gcs_and_can_be_retried(gcs):
    """More shards than one GCS batch request holds (100), so the renames go in
    several batches at once; a retry after part of them finds them done."""
    from ragbeam.transforms.write.parquet import finalize_tables
    from ragbeam.transforms.write.shards import ParquetShard, temp_dir

    output = f"gs://{BUCKET}/runs/many-shards"
    schema = pa.schema([("n", pa.int64())])
    shards = []
    for k in range(230):
        shard = ParquetShard(f"{temp_dir(output)}/items-{k:04d}.parquet", schema)
        shard.write({"n": k})
        shards.append(("items", shard.close()))
    _fs().rename([shards[0][1]], [f"{output}/items/part-00000-of-00230.parquet"])
    finals = finalize_tables(output, {"items": schema}, shards)
    assert _list(output) == sorted(finals)
    assert sorted(_table(output, "items").column("n").to_pylist()) == list(range(230))
    assert finalize_tables(output, {"items": schema}, shards) == finals  # again: a no-op


def test_an_output_claimed_by_another_run_is_refused(gcs, capsys):
    output = f"gs://{BUCKET}/runs/claimed"
    claim = claim_output(output, ["ragbeam", "run", "elsewhere"])
    try:
        with pytest.raises(OutputClaimed):
            claim_output(output, attempts=1)
        _run("--input", CORPUS, "--output", output, expected=2)
        assert "is claimed by run" in capsys.readouterr().err
        assert not _list(output)[1:]  # nothing but the other run's claim
    finally:
        release_claim(claim)
    assert _list(output) == []


@pytest.mark.parametrize(("args", "message"), [
    (("--input", "gs://no-such-bucket/docs", "--output", f"gs://{BUCKET}/runs/e1"),
     "--input 'gs://no-such-bucket/docs': cannot list: not found: does the bucket exist?"),
    (("--input", f"gs://{BUCKET}/empty/", "--output", f"gs://{BUCKET}/runs/e2"),
     f"--input 'gs://{BUCKET}/empty/' matched no files"),
    (("--input", f"gs://{BUCKET}/corpus/nothing-here", "--output", f"gs://{BUCKET}/runs/e3"),
     f"--input 'gs://{BUCKET}/corpus/nothing-here' matched no files"),
    (("--input", CORPUS, "--output", "gs://no-such-bucket/runs/e4"),
     "--output 'gs://no-such-bucket/runs/e4' is not writable: not found: does the bucket "
     "exist?"),
    (("--input", CORPUS, "--output", f"gs://{BUCKET}/runs/e5",
      "--previous", f"gs://{BUCKET}/runs/never"),
     f"--previous 'gs://{BUCKET}/runs/never' is not a completed ragbeam run (no run.json)"),
])
def test_storage_mistakes_stop_before_the_run_with_exit_2(gcs, capsys, args, message):
    _run(*args, expected=2)
    assert message in capsys.readouterr().err
    assert not _list(f"gs://{BUCKET}/runs/e")  # nothing written anywhere


def test_local_inputs_into_a_bucket_and_back(gcs, tmp_path):
    """The other mixes: a local corpus with a gs:// output, then a local output with
    that gs:// run as --previous."""
    corpus = pathlib.Path(tmp_path / "local")
    corpus.mkdir()
    (corpus / "note.txt").write_text("A short note.\n\nIt has two paragraphs.\n")
    remote = f"gs://{BUCKET}/runs/from-local"
    _run("--input", str(corpus), "--output", remote)
    _run("--input", str(corpus), "--output", str(tmp_path / "out"), "--previous", remote)
    local = json.loads((tmp_path / "out" / "run.json").read_text())
    assert local["documents_unchanged"] == 1 and local["previous"] == remote


def test_s3_through_the_same_code(tmp_path):
    """``s3://`` (moto's S3 server): a full run from a folder, then an incremental
    run after an edit, both reading and writing the bucket. Slow: Beam's S3
    filesystem builds a boto3 client for every operation."""
    with s3_server("ragbeam-s3"):
        corpus = "s3://ragbeam-s3/corpus"
        for name in ("faq.txt", "handbook.md"):
            _put(f"{corpus}/{LAYOUT[name]}", (SAMPLES / name).read_bytes())
        _run("--input", corpus, "--output", "s3://ragbeam-s3/runs/1")
        assert sorted(_docs("s3://ragbeam-s3/runs/1", corpus)) == ["faq.txt", "guides/handbook.md"]
        _put(f"{corpus}/faq.txt", (SAMPLES / "faq.txt").read_bytes() + b"\n\nQ: New?\nA: Yes.\n")
        _run("--input", corpus + "/", "--output", "s3://ragbeam-s3/runs/2",
             "--previous", "s3://ragbeam-s3/runs/1")
        statuses = {k: d["status"] for k, d in _docs("s3://ragbeam-s3/runs/2", corpus).items()}
        assert statuses == {"faq.txt": "ok", "guides/handbook.md": "unchanged"}
        assert _run_json("s3://ragbeam-s3/runs/2")["changes_upsert"] > 0
        _run("--input", "s3://no-such-bucket/x", "--output", "s3://ragbeam-s3/runs/3",
             expected=2)
