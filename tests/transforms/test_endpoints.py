"""Servers that cannot be reached are told apart in one connection attempt
(``transforms/endpoints.py``); a refused connection is never retried. 127.0.0.1 only."""

from __future__ import annotations

import socket

import pytest

from ragbeam.transforms.endpoints import (
    endpoint_of,
    not_transient,
    storage_endpoint,
    unreachable,
)
from ragbeam.transforms.sink.base import SinkError, retrying
from ragbeam.transforms.sink.uri import parse_sink_uri

from helpers import closed_port


def test_addresses_of_urls_and_object_stores(monkeypatch):
    assert endpoint_of("http://127.0.0.1:9000") == ("127.0.0.1", 9000)
    assert endpoint_of("https://store.example") == ("store.example", 443)
    monkeypatch.delenv("STORAGE_EMULATOR_HOST", raising=False)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.delenv("AWS_ENDPOINT_URL_S3", raising=False)
    assert storage_endpoint("gs://b/x") == ("storage.googleapis.com", 443)
    assert storage_endpoint("s3://b/x") == ("s3.amazonaws.com", 443)
    assert storage_endpoint("s3://b/x", "http://127.0.0.1:9000") == ("127.0.0.1", 9000)
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", "http://127.0.0.1:4443")
    assert storage_endpoint("gs://b/x") == ("127.0.0.1", 4443)
    assert storage_endpoint("/local/path") is None and storage_endpoint("hdfs://x/y") is None
    qdrant = parse_sink_uri("qdrant://127.0.0.1?collection=docs&grpc=true")
    from ragbeam.transforms.sink.stores import store_type

    assert store_type("qdrant").server_address(qdrant) == ("127.0.0.1", 6334)
    milvus = parse_sink_uri("milvus://127.0.0.1?collection=docs")
    assert store_type("milvus").server_address(milvus) == ("127.0.0.1", 19530)
    assert store_type("milvus").server_address(parse_sink_uri("milvus:x.db")) is None


def test_a_closed_port_and_a_listening_one(monkeypatch):
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    port = closed_port()
    assert unreachable("127.0.0.1", port) == (
        f"127.0.0.1:{port} refused the connection: is the server running there?")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        assert unreachable("127.0.0.1", server.getsockname()[1]) is None
        # Through a proxy, the proxy is what must answer.
        monkeypatch.setenv("https_proxy", f"http://127.0.0.1:{port}")
        monkeypatch.setenv("no_proxy", "")
        assert "(the proxy) refused" in unreachable("127.0.0.1", server.getsockname()[1])


def test_a_refused_connection_is_not_retried():
    spec = parse_sink_uri(f"qdrant://127.0.0.1:{closed_port()}?collection=docs")
    attempts = []

    def connect() -> None:
        attempts.append(1)
        try:
            socket.create_connection(("127.0.0.1", closed_port()), timeout=5)
        except OSError as exc:
            raise RuntimeError("the client's own wrapper") from exc

    with pytest.raises(SinkError, match="prepare failed: RuntimeError"):
        retrying(spec, "prepare", connect)
    assert len(attempts) == 1
    assert not_transient(ConnectionRefusedError()) and not not_transient(TimeoutError())
