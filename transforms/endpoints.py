"""Whether a server ragbeam is about to use can be reached at all, in seconds.

Offline, the storage clients retry what cannot succeed: Google's storage client
retried a ``gs://`` state folder for its 120-second deadline before the one line
that said so, and a store that refused the connection was tried four times over
7 s of back-off. A refused connection or a host name that does not resolve is no
blip a retry rides out: before a run lists a bucket or opens a store, one TCP
connection to the server's address (``unreachable``: ``CONNECT_TIMEOUT_S`` at
most) tells a server that is there from one that is not, and the run stops in
seconds with one line saying which. Through a proxy (``HTTPS_PROXY``…), the
proxy is what must answer.

Object stores' addresses (``storage_endpoint``): Google Cloud Storage at
``storage.googleapis.com`` or ``STORAGE_EMULATOR_HOST``; S3 at ``--s3_endpoint_url``,
``AWS_ENDPOINT_URL_S3``, ``AWS_ENDPOINT_URL`` or ``s3.amazonaws.com``. Other
schemes (local paths, HDFS…) are not checked.
"""

from __future__ import annotations

import os
import socket
import urllib.request
from urllib.parse import urlsplit

CONNECT_TIMEOUT_S = 5.0
_DEFAULT_PORTS = {"http": 80, "https": 443, "grpc": 443}


def endpoint_of(url: str, default_port: int | None = None) -> tuple[str, int] | None:
    """``(host, port)`` of a server URL (``http://h:9``, ``https://h``, ``h:9``); without
    a port, ``default_port`` (a store's own), else the scheme's."""
    parts = urlsplit(url if "://" in url else f"tcp://{url}")
    if not parts.hostname:
        return None
    return parts.hostname, parts.port or default_port or _DEFAULT_PORTS.get(parts.scheme, 443)


def _via_proxy(scheme: str, host: str) -> tuple[str, int] | None:
    """The proxy a client would reach ``host`` through, if one is set for it."""
    proxy = urllib.request.getproxies().get(scheme)
    if not proxy or urllib.request.proxy_bypass(host):
        return None
    return endpoint_of(proxy)


def storage_endpoint(uri: str, s3_endpoint_url: str | None = None
                     ) -> tuple[str, int] | None:
    """The server a ``gs://`` or ``s3://`` URI is read from (None: not checked)."""
    scheme = uri.split("://", 1)[0].lower() if "://" in uri else ""
    if scheme == "gs":
        emulator = os.environ.get("STORAGE_EMULATOR_HOST")
        return endpoint_of(emulator) if emulator else ("storage.googleapis.com", 443)
    if scheme == "s3":
        configured = (s3_endpoint_url or os.environ.get("AWS_ENDPOINT_URL_S3")
                      or os.environ.get("AWS_ENDPOINT_URL"))
        return endpoint_of(configured) if configured else ("s3.amazonaws.com", 443)
    return None


def unreachable(host: str, port: int, scheme: str = "https",
                timeout_s: float = CONNECT_TIMEOUT_S) -> str | None:
    """Why a TCP connection to ``host:port`` (or the proxy for it) cannot be made
    now, in words; None when it can."""
    target = _via_proxy(scheme, host) or (host, port)
    shown = f"{target[0]}:{target[1]}" + (" (the proxy)" if target != (host, port) else "")
    try:
        with socket.create_connection(target, timeout=timeout_s):
            return None
    except socket.gaierror as exc:
        return f"{target[0]} is no host name this machine can resolve ({exc.strerror}): offline?"
    except ConnectionRefusedError:
        return f"{shown} refused the connection: is the server running there?"
    except TimeoutError:
        return f"{shown} did not answer within {timeout_s:g} s: offline, or a firewall?"
    except OSError as exc:
        return f"{shown} cannot be reached: {exc.strerror or exc}"


def not_transient(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) is a refused connection or an unknown host
    name: what retrying does not change."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError | socket.gaierror):
            return True
        current = current.__cause__ or current.__context__
    return False
