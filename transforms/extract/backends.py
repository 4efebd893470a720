"""Tika backends: embedded (iscc-tika, native, in this process) and server (HTTP).

Both return ``(xhtml, metadata)`` where metadata maps each Tika key to a list
of values, exactly as iscc-tika does.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from typing import Protocol

from ragbeam.transforms.extract.xhtml import parse_tika_xhtml

# iscc-tika's default string limit (500,000 chars) silently truncates long
# documents; our own text-size guard runs after extraction instead.
DEFAULT_MAX_STRING_CHARS = 100_000_000
# A character outside the BMP comes back from iscc-tika's string call as six
# U+FFFD (see _extract_utf8_stream). Single ones are real: glyphs a PDF's font
# does not map to Unicode, which the byte stream gives as U+FFFD just the same.
_LOST_CHARACTER = "\ufffd" * 6
_JAVA_IDENTITY = re.compile(r"(?<=[\w$])@[0-9a-f]{4,16}\b")


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

        self._max_string_chars = max_string_chars
        self._extractor = (
            iscc_tika.Extractor()
            .set_xml_output(True)
            .set_extract_string_max_length(max_string_chars)
        )
        self._stream_extractor = (
            iscc_tika.Extractor().set_xml_output(True).set_encoding(iscc_tika.CharSet.UTF_8)
        )

    def extract(self, data: bytes, filename: str) -> tuple[str, dict[str, list[str]]]:
        try:
            xhtml, metadata = self._extractor.extract_bytes_to_string(bytearray(data))
            if _LOST_CHARACTER in xhtml:
                xhtml = self._extract_utf8_stream(data, xhtml)
        except Exception as exc:  # iscc-tika raises TypeError(ParseError(...))
            raise ExtractionError(_tika_message(exc)) from exc
        return xhtml, {k: list(v) if isinstance(v, list) else [str(v)]
                       for k, v in metadata.items()}

    def _extract_utf8_stream(self, data: bytes, string_xhtml: str) -> str:
        """The same XHTML, through iscc-tika's UTF-8 byte stream.

        iscc-tika's string results lose every character outside the Basic
        Multilingual Plane (emoji, CJK extension B, math letters): each comes
        back as six U+FFFD, because the JVM hands strings over in modified
        UTF-8. The byte stream is encoded properly, so a result holding U+FFFD
        is extracted once more that way (only when it holds six in a row: PDFs
        with unmapped glyphs have single ones, and extracting them twice doubled
        their time for an identical result). Metadata stays from the string call:
        the stream returns it before parsing ends, so it can be incomplete.
        The stream ignores the string limit, hence the byte cap here.
        """
        stream, _ = self._stream_extractor.extract_bytes(bytearray(data))
        cap = 4 * self._max_string_chars + 4096  # UTF-8: at most 4 bytes per character
        raw = bytearray()
        while len(raw) <= cap:
            block = stream.read(1 << 20)
            if not block:
                break
            raw += block
        if len(raw) > cap:
            return string_xhtml  # too large either way: the text-size guard refuses it
        text = raw.decode("utf-8", errors="replace")
        if text.startswith("<?xml"):  # the stream adds an XML declaration; the string does not
            text = text[text.index("?>") + 2:].lstrip("\n")
        return text


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
    # Java object identities ("PDFParser@5031dc34") change from run to run; the
    # error row of a document must not (reruns and retries give the same rows).
    text = _JAVA_IDENTITY.sub("", text)
    return text.strip() or type(exc).__name__
