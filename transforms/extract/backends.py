"""Tika backends: embedded (iscc-tika, native, in this process) and server (HTTP).

Both return ``(xhtml, metadata)`` where metadata maps each Tika key to a list
of values, exactly as iscc-tika does.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Protocol

from ragbeam.transforms.extract.xhtml import parse_tika_xhtml

# iscc-tika's default string limit (500,000 chars) silently truncates long
# documents; our own text-size guard runs after extraction instead.
DEFAULT_MAX_STRING_CHARS = 100_000_000


class ExtractionError(Exception):
    """Tika rejected the input (corrupt, unsupported, truncated…)."""


class TikaBackend(Protocol):
    name: str

    def extract(self, data: bytes, filename: str) -> tuple[str, dict[str, list[str]]]: ...


class EmbeddedTika:
    """Apache Tika compiled to native code (iscc-tika): no JVM, no network."""

    name = "iscc-tika"

    def __init__(self, max_string_chars: int = DEFAULT_MAX_STRING_CHARS) -> None:
        import iscc_tika  # imported here: only the process that extracts pays for it

        self._extractor = (
            iscc_tika.Extractor()
            .set_xml_output(True)
            .set_extract_string_max_length(max_string_chars)
        )

    def extract(self, data: bytes, filename: str) -> tuple[str, dict[str, list[str]]]:
        try:
            xhtml, metadata = self._extractor.extract_bytes_to_string(bytearray(data))
        except Exception as exc:  # iscc-tika raises TypeError(ParseError(...))
            raise ExtractionError(_tika_message(exc)) from exc
        return xhtml, {k: list(v) if isinstance(v, list) else [str(v)]
                       for k, v in metadata.items()}


class TikaServer:
    """A running Tika server: ``PUT {url}/tika`` with ``Accept: text/html``.

    The XHTML answer carries Tika's metadata as ``<meta>`` tags in ``<head>``,
    so one request gives both text structure and metadata.
    """

    name = "tika-server"

    def __init__(self, url: str, timeout_s: float = 120.0) -> None:
        self._url = url.rstrip("/") + "/tika"
        self._timeout_s = timeout_s

    def extract(self, data: bytes, filename: str) -> tuple[str, dict[str, list[str]]]:
        request = urllib.request.Request(
            self._url,
            data=data,
            method="PUT",
            headers={
                "Accept": "text/html",
                "Content-Type": "application/octet-stream",
                "Content-Disposition": f'attachment; filename="{_ascii(filename)}"',
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self._timeout_s) as response:
                xhtml = response.read().decode("utf-8", errors="replace")
        except urllib.error.HTTPError as exc:
            # Tika answers 415 for unsupported types and 422 for parse failures.
            raise ExtractionError(f"Tika server HTTP {exc.code}: {exc.reason}") from exc
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            raise ConnectionError(f"Tika server unreachable at {self._url}: {exc}") from exc
        head = parse_tika_xhtml(xhtml).head_metadata
        return xhtml, {k: [v] for k, v in head.items()}


def _ascii(name: str) -> str:
    return name.encode("ascii", "replace").decode("ascii").replace('"', "'")


def _tika_message(exc: BaseException) -> str:
    text = str(exc)
    for arg in getattr(exc, "args", ()):
        text = str(arg)
    return text.strip() or type(exc).__name__
