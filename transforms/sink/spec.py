"""What one ``--sink`` names (``SinkSpec``), its credential (``Secret``), and the
redaction that keeps credentials out of every text ragbeam shows (pure).

Apart from ``uri.py`` (the parser), which needs the stores' registry: the store
modules need ``SinkSpec``, so the parser cannot be below them.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

DEFAULT_COLLECTION = "ragbeam"
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
    """One ``--sink``: ``target`` is a server URL without credentials or a local path;
    ``options`` the store's own options (``db``, ``grpc``…: what its module declares)."""

    kind: str  # a key of sink/stores.py STORES
    target: str
    local: bool
    collection: str = DEFAULT_COLLECTION
    options: tuple[tuple[str, str], ...] = ()
    batch_size: int = 500
    display: str = ""  # the URI as shown anywhere: credentials redacted
    credential: Secret | None = field(default=None, compare=False)

    def __repr__(self) -> str:
        return f"SinkSpec({self.display})"

    __str__ = __repr__

    def option(self, name: str, default: str | None = None) -> str | None:
        return dict(self.options).get(name, default)

    @property
    def key(self) -> str:
        """Names this store and collection in file names (state files, metrics)."""
        where = self.target if not self.local else os.path.abspath(self.target)
        # The Milvus database is part of what a collection is (the key of a sink
        # without one is what it was before stores had options of their own).
        db = self.option("db")
        digest = hashlib.sha256(f"{self.kind}\0{where}\0{db}\0{self.collection}".encode())
        return f"{self.kind}-{self.collection}-{digest.hexdigest()[:10]}"

    def secrets(self) -> list[str]:
        """Strings to redact from any text: the credential, and the password alone
        when it is a Milvus ``user:password`` token."""
        if not self.credential:
            return []
        value = self.credential.reveal()
        return [value, value.partition(":")[2]] if ":" in value else [value]


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
