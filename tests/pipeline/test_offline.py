"""Offline, a run, a sync, ``ragbeam runs`` and a store fail in seconds with one line
(issue 41): a ``gs://`` state folder whose server refuses the connection waited out
the storage client's 120-second retry deadline, and a store that refused it was
tried four times over 7 s of back-off. "Unreachable" here is a closed port of
127.0.0.1, the object store's address (``STORAGE_EMULATOR_HOST``) or the store's."""

from __future__ import annotations

import json
import logging

import pytest

from ragbeam.pipeline.cli import main

from conftest import TEST_EXTRACT_TIMEOUT
from helpers import closed_port

OFFLINE_CREDENTIALS = {"type": "authorized_user", "client_id": "x", "client_secret": "x",
                       "refresh_token": "x", "token": "x", "expiry": "2999-01-01T00:00:00Z"}


@pytest.fixture
def no_bucket(tmp_path, monkeypatch) -> int:
    """gs:// at a closed port of 127.0.0.1; a note to index."""
    port = closed_port()
    credentials = tmp_path / "credentials.json"
    credentials.write_text(json.dumps(OFFLINE_CREDENTIALS))
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(credentials))
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "offline")
    for name in ("http_proxy", "HTTP_PROXY"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "note.txt").write_text("Boats leave the harbour at nine.\n")
    monkeypatch.chdir(tmp_path)
    return port


def _one_line(err: str, port: int) -> str:
    lines = [line for line in err.splitlines() if "·" not in line]  # not progress lines
    assert len(lines) == 1, lines
    assert f"127.0.0.1:{port} refused the connection" in lines[0]
    assert "RetryError" not in err and "Timeout of 120" not in err
    return lines[0]


def test_an_unreachable_bucket_stops_a_sync_a_run_and_runs_at_once(no_bucket, capsys):
    assert main(["sync", "--state", "gs://bucket/state", "--input", "in"]) == 2
    assert _one_line(capsys.readouterr().err, no_bucket).startswith(
        "ragbeam sync: error: gs://bucket/state: its store cannot be reached")
    assert main(["run", "--input", "in", "--output", "gs://bucket/out"]) == 2
    assert "gs://bucket/out: its store cannot be reached" in _one_line(
        capsys.readouterr().err, no_bucket)
    assert main(["runs", "gs://bucket/state"]) == 2
    _one_line(capsys.readouterr().err, no_bucket)


@pytest.mark.parametrize("kind", ["qdrant", "milvus"])
def test_a_store_that_refuses_the_connection_is_not_retried(no_bucket, kind, capsys, caplog):
    port = closed_port()
    with caplog.at_level(logging.WARNING):
        assert main(["run", "--input", "in", "--output", "out", "-q", "--extract-timeout",
                     TEST_EXTRACT_TIMEOUT, "--sink",
                     f"{kind}://127.0.0.1:{port}?collection=docs"]) == 2
    err = capsys.readouterr().err
    assert f"sink {kind}://127.0.0.1:{port}?collection=docs: 127.0.0.1:{port} refused the " \
           "connection: is the server running there?" in err
    assert not [r for r in caplog.records if "retrying" in r.getMessage()]
