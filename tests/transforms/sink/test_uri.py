"""``--sink URI`` parsing, credentials from the environment or a file, and redaction."""

from __future__ import annotations

import dataclasses
import json
import logging
import pickle

import pytest

from ragbeam.transforms.sink.uri import (
    REDACTED,
    parse_sink_uri,
    redact_text,
    redact_uri,
    redacted_logs,
)

SECRET = "Sup3r-S3cret"


def test_local_and_server_forms():
    lite = parse_sink_uri("milvus:./index.db?collection=docs", environ={})
    assert (lite.kind, lite.local, lite.target, lite.collection) == (
        "milvus", True, "./index.db", "docs")
    absolute = parse_sink_uri("milvus:///var/index.db", environ={})
    assert absolute.target == "/var/index.db" and absolute.collection == "ragbeam"
    server = parse_sink_uri("milvus+https://db.example.org:443?collection=c&db=prod",
                            environ={})
    assert (server.local, server.target, server.option("db")) == (
        False, "https://db.example.org:443", "prod")
    qdrant = parse_sink_uri("qdrant://localhost:6333?collection=docs&grpc=true", environ={})
    assert (qdrant.kind, qdrant.target, qdrant.option("grpc")) == (
        "qdrant", "http://localhost:6333", "true")
    assert parse_sink_uri("qdrant:/tmp/q", environ={}).local
    lance = parse_sink_uri("lancedb:./lance?collection=docs", environ={})
    assert (lance.kind, lance.local, lance.target) == ("lancedb", True, "./lance")
    chroma = parse_sink_uri("chroma:///var/chroma", environ={})
    assert (chroma.kind, chroma.target, chroma.collection) == ("chroma", "/var/chroma", "ragbeam")


def test_a_store_s_key_is_stable():
    """State files are named by the key: one computed before stores had options of their
    own (kept from then) still names the same file, so the next run stays incremental."""
    spec = parse_sink_uri("milvus:///var/index.db?collection=docs", environ={})
    assert spec.key == "milvus-docs-fa9544a26d"  # as computed on main


@pytest.mark.parametrize("uri, reason", [
    ("pinecone://x", "unknown store"),
    ("milvus:index.sqlite", "must end in .db"),
    ("milvus://host:19530?token=abc", "credential_env=NAME"),
    ("milvus://host:19530?colection=x", "unknown option(s) colection"),
    ("qdrant://host:6333/docs", "?collection=NAME"),
    ("qdrant://host?collection=1bad", "letters, digits"),
    ("qdrant://host?batch_size=0", "batch_size"),
    ("qdrant://host?collection=a&collection=b", "given twice"),
    ("milvus://host?credential_env=RAGBEAM_TEST_UNSET", "not set"),
    ("qdrant://host?grpc=maybe", "grpc must be true or false"),
    ("lancedb://host:8000", "embedded store only"),
    ("chroma:dir?db=x", "unknown option(s) db"),
    ("lancedb:dir?credential_env=X", "unknown option(s) credential_env"),
    ("chroma:dir?collection=ab", "3 to 512 characters"),
    ("chroma:dir?collection=_docs", "starting and ending"),
])
def test_bad_uris_say_why(uri, reason):
    with pytest.raises(ValueError, match=None) as caught:
        parse_sink_uri(uri, environ={})
    assert reason in str(caught.value)


def test_credentials_from_environment_file_or_uri(tmp_path):
    spec = parse_sink_uri("qdrant://h:6333", environ={"QDRANT_API_KEY": SECRET})
    assert spec.credential.reveal() == SECRET and spec.credential.source == "env:QDRANT_API_KEY"
    named = parse_sink_uri("milvus://h?credential_env=MY_TOKEN", environ={"MY_TOKEN": SECRET})
    assert named.credential.reveal() == SECRET
    secret_file = tmp_path / "token"
    secret_file.write_text(SECRET + "\n")
    from_file = parse_sink_uri(f"milvus://h?credential_file={secret_file}", environ={})
    assert from_file.credential.reveal() == SECRET
    in_uri = parse_sink_uri(f"milvus://root:{SECRET}@h:19530", environ={})
    assert in_uri.credential.reveal() == f"root:{SECRET}"  # a Milvus token is user:password
    assert parse_sink_uri("milvus:x.db", environ={}).credential is None


def test_a_credential_is_never_shown():
    spec = parse_sink_uri(f"milvus://root:{SECRET}@h:19530?collection=c", environ={})
    assert spec.display == f"milvus://root:{REDACTED}@h:19530?collection=c"
    # as an effective-config dump would write it
    dumped = json.dumps(dataclasses.asdict(spec), default=str)
    for shown in (repr(spec), str(spec), repr(spec.credential), str(spec.credential), dumped):
        assert SECRET not in shown
    assert pickle.loads(pickle.dumps(spec)).credential.reveal() == f"root:{SECRET}"
    assert SECRET in spec.secrets() and f"root:{SECRET}" in spec.secrets()


def test_redaction_of_uris_and_free_text():
    assert redact_uri(f"qdrant://:{SECRET}@h:6333") == f"qdrant://:{REDACTED}@h:6333"
    assert redact_uri("qdrant://h:6333") == "qdrant://h:6333"
    text = f"failed http://u:{SECRET}@h/x with key {SECRET} (encoded Sup3r%2DS3cret)"
    cleaned = redact_text(text, [SECRET, "Sup3r%2DS3cret"])
    assert SECRET not in cleaned and "Sup3r%2DS3cret" not in cleaned
    assert "http://u:***@h/x" in cleaned


def test_logs_are_redacted_while_a_sink_runs(caplog):
    logger = logging.getLogger("some.client.library")
    with caplog.at_level(logging.WARNING), redacted_logs([SECRET]):
        logger.warning("connect with api_key=%s failed", SECRET)
        try:
            raise RuntimeError(f"server said: bad key {SECRET}")
        except RuntimeError:
            logger.exception("oops")
    logger.warning("after: %s", "plain")
    assert caplog.records and SECRET not in caplog.text
    assert "api_key=***" in caplog.text and "after: plain" in caplog.text


@pytest.mark.parametrize("option", ["api_key", "token", "password", "client_secret",
                                    "credential", "auth", "X-Api-Key", "access_token"])
def test_the_value_of_a_secret_named_query_option_is_never_shown(option):
    secret = "Qu3ry-S3cret-v4lue"
    uri = f"qdrant://db.example:6333?collection=docs&{option}={secret}&batch_size=10"
    with pytest.raises(ValueError) as caught:  # unknown: refused, the value not echoed
        parse_sink_uri(uri, environ={})
    assert secret not in str(caught.value) and f"{option}=***" in str(caught.value)
    assert redact_uri(uri) == uri.replace(secret, "***")
    assert secret not in redact_text(f"could not reach {uri}: refused", [])
    # Where the secret is (a variable, a file) is not the secret: it stays readable.
    shown = redact_uri("qdrant:d?credential_env=QDRANT_KEY_PROD&credential_file=/run/k")
    assert shown == "qdrant:d?credential_env=QDRANT_KEY_PROD&credential_file=/run/k"


def test_a_secret_in_a_query_option_is_in_no_output_stream(tmp_path, capsys, caplog):
    from ragbeam.pipeline.cli import main

    secret = "Qu3ry-S3cret-v4lue"
    caplog.set_level(logging.DEBUG)
    for extra in ([], ["-v"], ["--dry-run"]):
        code = main(["run", *extra, "--input", str(tmp_path), "--output", str(tmp_path / "o"),
                     "--sink", f"qdrant://127.0.0.1:9?collection=docs&api_key={secret}",
                     "--sink", f"milvus:{tmp_path / 'i.db'}?token={secret}"])
        out, err = capsys.readouterr()
        assert code == 2 and "api_key=***" in err
        for text in (out, err, caplog.text):
            assert secret not in text
