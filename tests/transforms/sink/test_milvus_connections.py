"""Milvus connections are closed when ragbeam is done with them (issue 32).

pymilvus shares one connection per address and keeps it open after its last client
closes. Left idle (the preflight's, for the ~100 s a run embeds), its keepalive
pings made Milvus Lite's server send GOAWAY (too_many_pings), and the next client's
connection recovery logged two chained tracebacks before ragbeam's retry succeeded:
a successful sync that read as a failure in cron mail.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from ragbeam.transforms.sink.stores import open_store
from ragbeam.transforms.sink.uri import parse_sink_uri


def _open_connections() -> int:
    from pymilvus.client.connection_manager import ConnectionManager

    manager = ConnectionManager.get_instance()
    # Private, but the one place pymilvus keeps its connections: shared and dedicated.
    return len(manager._registry) + len(manager._dedicated)


def test_a_closed_store_leaves_no_connection_open(tmp_path):
    """Fails before the fix: the shared connection stayed registered (and pinging)."""
    spec = parse_sink_uri(f"milvus:{tmp_path / 'index.db'}?collection=docs", environ={})
    before = _open_connections()
    with open_store(spec) as store:
        store.ensure_collection(4)
        assert _open_connections() == before + 1
    assert _open_connections() == before


def test_beam_s_writer_gets_connections_of_its_own():
    """Beam's Milvus writer opens a client per batch and closes it: dedicated, so that
    close really closes."""
    spec = parse_sink_uri("milvus:./index.db?collection=docs", environ={})
    config = open_store(spec).write_config(4)
    assert config.connection_params.kwargs.get("dedicated") is True


IDLE_SYNC = """
import time
from ragbeam.transforms.sink.stores import open_store
from ragbeam.transforms.sink.sync import new_run_token, prepare_sync
from ragbeam.transforms.sink.uri import parse_sink_uri

spec = parse_sink_uri("milvus:{path}?collection=docs", environ={{}})
plan = prepare_sync(spec, 4, None, new_run_token())
time.sleep({idle})  # the pipeline embedding; pymilvus's health check starts after 30 s
with open_store(spec) as store:
    print("count", store.count())
"""


@pytest.mark.slow
def test_a_sync_after_a_long_idle_gap_prints_no_client_warning(tmp_path):
    """Prepare, 45 s idle, then the next step: stdout and stderr (gRPC's C core writes
    to the file descriptor itself, hence a child process) hold no client warning,
    error or traceback. Before the fix: GOAWAY, 'Connection recovery failed', two
    tracebacks."""
    code = textwrap.dedent(IDLE_SYNC.format(path=tmp_path / "index.db", idle=45))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "count 0"
    for word in ("GOAWAY", "too_many_pings", "recovery failed", "Traceback", "WARNING",
                 "ERROR"):
        assert word not in done.stderr, done.stderr[-3000:]
