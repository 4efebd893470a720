"""``--sink URI``: which vector store, where, which collection, and its credential (pure).

The forms (``?collection=NAME`` everywhere; default ``ragbeam``)::

    milvus:PATH.db                      Milvus Lite, embedded, one file (tests, notebooks)
    milvus://HOST:19530                 a Milvus server over HTTP; milvus+https:// for TLS
    qdrant:DIR                          Qdrant local mode, one folder (tests, notebooks)
    qdrant://HOST:6333                  a Qdrant server (REST); qdrant+https:// for TLS,
                                        &grpc=true to use its gRPC port (6334)

Credentials (a Milvus token ``user:password`` or API key, a Qdrant API key) never
need to be on the command line: they are read from the environment
(``MILVUS_TOKEN``, ``QDRANT_API_KEY``, or the variable named by
``credential_env=NAME``) or from a file (``credential_file=PATH``, any Beam
filesystem). A password in the URI itself (``milvus://user:pw@host``) is accepted
but discouraged. Wherever a sink is shown (run.json, logs, errors, step names) it
is ``SinkSpec.display``: the URI with its password replaced by ``***``; the
credential's ``repr`` names only where it came from.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

DEFAULT_COLLECTION = "ragbeam"
KINDS = ("milvus", "qdrant")
# The environment variable each store's credential is read from by default.
DEFAULT_CREDENTIAL_ENV = {"milvus": "MILVUS_TOKEN", "qdrant": "QDRANT_API_KEY"}
_OPTIONS = {
    "milvus": {"collection", "db", "credential_env", "credential_file", "batch_size"},
    "qdrant": {"collection", "credential_env", "credential_file", "batch_size", "grpc"},
}
_COLLECTION_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,254}$")
REDACTED = "***"


class Secret:
    """A credential: its value never appears in ``repr``/``str``, only its source.

    Deliberately not a dataclass: ``dataclasses.asdict`` of a config that holds one
    (an effective-config dump) must not turn it into ``{"value": …}``; it copies it
    as it is, and a JSON dump with ``default=str`` shows ``Secret(from …)``.
    """

    __slots__ = ("_value", "source")

    def __init__(self, value: str, source: str) -> None:
        self._value = value
        self.source = source  # "uri", "env:NAME" or "file:PATH"

    def __repr__(self) -> str:
        return f"Secret(from {self.source})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Secret) and other._value == self._value
                and other.source == self.source)

    def __hash__(self) -> int:
        return hash((self._value, self.source))

    def __reduce__(self):  # workers need the value: Beam pickles the writer config
        return (Secret, (self._value, self.source))

    def reveal(self) -> str:
        return self._value


@dataclass(frozen=True)
class SinkSpec:
    """One ``--sink``: ``target`` is a server URL without credentials or a local path."""

    kind: str  # "milvus" | "qdrant"
    target: str
    local: bool
    collection: str = DEFAULT_COLLECTION
    db: str | None = None  # Milvus database
    grpc: bool = False  # Qdrant: gRPC instead of REST
    batch_size: int = 500
    display: str = ""  # the URI as shown anywhere: credentials redacted
    credential: Secret | None = field(default=None, compare=False)

    def __repr__(self) -> str:
        return f"SinkSpec({self.display})"

    __str__ = __repr__

    @property
    def key(self) -> str:
        """Names this store and collection in file names (state files, metrics)."""
        where = self.target if not self.local else os.path.abspath(self.target)
        digest = hashlib.sha256(f"{self.kind}\0{where}\0{self.db}\0{self.collection}".encode())
        return f"{self.kind}-{self.collection}-{digest.hexdigest()[:10]}"

    def secrets(self) -> list[str]:
        """Strings to redact from any text: the credential, and the password alone
        when it is a Milvus ``user:password`` token."""
        if not self.credential:
            return []
        value = self.credential.reveal()
        return [value, value.partition(":")[2]] if ":" in value else [value]


def _read_credential_file(path: str) -> str:
    from apache_beam.io.filesystems import FileSystems

    try:
        with FileSystems.open(path) as f:
            return f.read().decode("utf-8").strip()
    except Exception as exc:
        raise ValueError(f"credential_file {path!r} cannot be read: {type(exc).__name__}"
                         ) from None


def _credential(kind: str, password: str | None, options: Mapping[str, str],
                environ: Mapping[str, str]) -> Secret | None:
    if password:
        return Secret(password, "uri")
    if "credential_file" in options:
        return Secret(_read_credential_file(options["credential_file"]),
                      f"file:{options['credential_file']}")
    name = options.get("credential_env")
    if name is not None:
        if not environ.get(name):
            raise ValueError(f"credential_env={name}: that environment variable is not set")
        return Secret(environ[name], f"env:{name}")
    default = DEFAULT_CREDENTIAL_ENV[kind]
    return Secret(environ[default], f"env:{default}") if environ.get(default) else None


# A query option whose name says it holds a secret (api_key, token, password, secret,
# credential, auth…): its value is never shown. credential_env and credential_file name
# where the credential is (a variable, a path), not the credential, and stay readable.
_SECRET_OPTION = re.compile(
    r"([?&](?!credential_env=|credential_file=)[^=&#\s]*"
    r"(?:key|token|password|passwd|pwd|secret|credential|auth|signature)[^=&#\s]*=)"
    r"[^&#\s]*", re.IGNORECASE)


def _redact_secret_options(text: str) -> str:
    return _SECRET_OPTION.sub(
        lambda m: m.group(1) + REDACTED if len(m.group(0)) > len(m.group(1)) else m.group(0),
        text)


def redact_uri(uri: str) -> str:
    """``uri`` with any password in its user info, and the value of any query option
    whose name suggests a secret, replaced by ``***``."""
    uri = _redact_secret_options(uri)
    parts = urlsplit(uri)
    if parts.password is None:
        return uri
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{user}:{REDACTED}@{host}").geturl()


def redact_text(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret (as is, and URL-encoded), every URI password and every
    secret-named query option's value replaced by ``***``: for messages that came from
    elsewhere (a client library)."""
    for secret in secrets:
        if secret:
            for form in {secret, quote(secret, safe=""), quote(secret)}:
                text = text.replace(form, REDACTED)
    text = _redact_secret_options(text)
    return re.sub(r"(://[^/\s:@]*:)[^@\s/]+@", rf"\g<1>{REDACTED}@", text)


def parse_sink_uri(uri: str, environ: Mapping[str, str] | None = None) -> SinkSpec:
    """``--sink URI`` → ``SinkSpec``; ``ValueError`` with a reason for anything unknown."""
    environ = os.environ if environ is None else environ
    shown = redact_uri(uri)
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    kind, _, transport = scheme.partition("+")
    if kind not in KINDS or transport not in ("", "http", "https"):
        raise ValueError(f"--sink {shown!r}: unknown store; use milvus:PATH.db, "
                         "milvus://HOST:PORT, qdrant:DIR or qdrant://HOST:PORT")
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    options = dict(pairs)
    if len(options) != len(pairs):
        raise ValueError(f"--sink {shown!r}: an option is given twice")
    unknown = sorted(set(options) - _OPTIONS[kind])
    if unknown:
        hint = (" (credentials go in an environment variable or a file: credential_env=NAME, "
                "credential_file=PATH)"
                if any(k in ("token", "api_key", "password", "key") for k in unknown) else "")
        raise ValueError(f"--sink {shown!r}: unknown option(s) {', '.join(unknown)}; known: "
                         f"{', '.join(sorted(_OPTIONS[kind]))}{hint}")
    collection = options.get("collection", DEFAULT_COLLECTION)
    if not _COLLECTION_NAME.match(collection):
        raise ValueError(f"--sink {shown!r}: collection {collection!r} must be letters, digits "
                         "and underscores, not starting with a digit")
    try:
        batch_size = int(options.get("batch_size", SinkSpec.batch_size))
    except ValueError:
        batch_size = 0
    if batch_size <= 0:
        raise ValueError(f"--sink {shown!r}: batch_size must be a positive integer")
    grpc = options.get("grpc", "false").lower()
    if grpc not in ("true", "false"):
        raise ValueError(f"--sink {shown!r}: grpc must be true or false")
    local = not parts.netloc
    if local:
        if transport:
            raise ValueError(f"--sink {shown!r}: {scheme} needs a host (HOST:PORT)")
        target = unquote(parts.path)
        if not target:
            raise ValueError(f"--sink {shown!r}: no path for the local store")
        if kind == "milvus" and not target.endswith(".db"):
            raise ValueError(f"--sink {shown!r}: a Milvus Lite file must end in .db")
        password = None
    else:
        if parts.path not in ("", "/"):
            raise ValueError(f"--sink {shown!r}: the collection goes in ?collection=NAME, "
                             "not in the path")
        host = parts.netloc.rpartition("@")[2]
        target = f"{transport or 'http'}://{host}"
        password = unquote(parts.password) if parts.password else None
        if kind == "milvus" and password is not None and parts.username:
            password = f"{unquote(parts.username)}:{password}"  # Milvus token: user:password
    return SinkSpec(
        kind=kind, target=target, local=local, collection=collection, db=options.get("db"),
        grpc=grpc == "true", batch_size=batch_size, display=shown,
        credential=_credential(kind, password, options, environ),
    )


@contextlib.contextmanager
def redacted_logs(secrets: Iterable[str]) -> Iterator[None]:
    """While active, every log record (message and traceback) has ``secrets`` and URI
    passwords replaced by ``***`` before any handler sees it: client libraries and
    Beam's workers log exception texts that ragbeam does not write itself."""
    secrets = [s for s in secrets if s]
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: leave it to the handler to complain
            return record
        record.msg, record.args = redact_text(message, secrets), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = redact_text(
                logging.Formatter().formatException(record.exc_info), secrets)
        return record

    logging.setLogRecordFactory(factory)
    try:
        yield
    finally:
        logging.setLogRecordFactory(previous)
