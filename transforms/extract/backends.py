"""Tika backends: embedded (iscc-tika, native, in this process) and server (HTTP).

Both return ``(xhtml, metadata)`` where metadata maps each Tika key to a list
of values, exactly as iscc-tika does, plus ``extractor`` (which program
produced the text) and, for the embedded backend, ``ocr_pages``.

Two ways past a document that plain Tika leaves without text:

* **OCR** (``OcrSettings``, embedded backend): after the ordinary extraction,
  PDF pages without a usable text layer (at most 10 usable characters, or more
  than 30 % of them unmapped or garbage, or a scan's poor OCR layer:
  ``ocr.text_layer_problem``) and images
  (PNG, JPEG, TIFF, …) are read by Tesseract, their text replacing the layer,
  page by page, in parallel, each page under a CPU-time limit (``ocr.py``).
  Documents that need none are extracted exactly as with OCR off, at no extra
  cost. An extraction child (``defer_ocr``) leaves the
  pages to its parent, which spreads them over the pool's cores.
* **PDF fallback**: when Tika fails to parse a PDF (it throws; an encrypted
  PDF is not retried), pdfminer.six reads it in the same process, and
  ``extractor`` says ``pdfminer.six``. It finds pages PDFBox gives up on, e.g.
  when the page tree is lost (it then looks for page objects in the
  cross-reference tables). The py-pdf sample with unreadable metadata fails
  in Tika with TIKA-198, and in pypdfium2 and pypdf as well; pdfminer.six
  reads its first page (the others sit behind a zeroed cross-reference table).
"""

from __future__ import annotations

import contextlib
import functools
import html
import io
import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ragbeam.transforms.cores import available_cores
from ragbeam.transforms.extract.layout import blank_pages, scanned_pages
from ragbeam.transforms.extract.ocr import (
    AUTO_LANGUAGES,
    DEFAULT_PACK,
    OCR_PAGES_KEY,
    OCR_PENDING_KEY,
    OCR_REASONS_KEY,
    POOR_LAYER_REASON,
    complete_ocr,
    ocr_candidates,
    pending_pages,
    picture_type,
    reasons_value,
    unavailable_metadata,
)
from ragbeam.transforms.extract.ocr import (
    media_type_of as ocr_media_type,
)
from ragbeam.transforms.extract.xhtml import parse_tika_xhtml

# From the spec module, not the sink's URI module: that one brings the stores' registry
# (pyarrow, numpy), and every extraction child imports this module. Tika forks its
# process to look for tesseract on every parse, and a fork costs by the size of the
# process: those imports made a young child's about a fifth dearer.
from ragbeam.transforms.sink.spec import redact_uri

# iscc-tika's default string limit (500,000 chars) silently truncates long
# documents; our own text-size guard runs after extraction instead.
DEFAULT_MAX_STRING_CHARS = 100_000_000
# A character outside the BMP comes back from iscc-tika's string call as six
# U+FFFD (see _extract_utf8_stream). Single ones are real: glyphs a PDF's font
# does not map to Unicode, which the byte stream gives as U+FFFD just the same.
_LOST_CHARACTER = "\ufffd" * 6
_JAVA_IDENTITY = re.compile(r"(?<=[\w$])@[0-9a-f]{4,16}\b")


# Metadata keys ragbeam adds to Tika's (they reach documents.metadata; OCR's: ocr.py).
EXTRACTOR_KEY = "extractor"
PDF_FALLBACK = "pdfminer.six"
# Why Tika's own reading was not used (a PDF read by the fallback, a picture by OCR).
UNPARSED_REASON_KEY = "extract_fallback_reason"

OCR_MODES = ("auto", "off", "only")
_LANGUAGE = re.compile(r"^[A-Za-z0-9_]+(?:\+[A-Za-z0-9_]+)*$")
_XML_INVALID = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


class ExtractionError(Exception):
    """Tika rejected the input (corrupt, unsupported, truncated…)."""


@dataclass(frozen=True)
class OcrSettings:
    """What to OCR, in which languages, within which time limits (``--ocr*``)."""

    mode: str = "auto"  # auto: pages without a text layer and images; only: every page
    # "auto": each page in its own script (ocr.read_picture); or Tesseract's form:
    # eng+deu+fra+chi_sim, every page read with those.
    languages: str = AUTO_LANGUAGES
    # CPU seconds for each program of one page or image (the renderer, then Tesseract):
    # a dense page needs 2-7; CPU time does not grow with load, so a page over the limit
    # is likely over it next time too, hence a generous one.
    page_timeout_s: int = 60
    document_timeout_s: float | None = None  # wall clock for all pages of one document

    def __post_init__(self) -> None:
        if self.mode not in OCR_MODES:
            raise ValueError(f"--ocr must be one of {', '.join(OCR_MODES)}, not {self.mode!r}")
        if self.languages != AUTO_LANGUAGES and not _LANGUAGE.match(self.languages):
            raise ValueError(f"--ocr-languages {self.languages!r}: 'auto', or Tesseract "
                             "language codes joined by '+', e.g. eng+deu+fra+chi_sim")
        if self.page_timeout_s < 1 or (self.document_timeout_s is not None
                                       and self.document_timeout_s <= 0):
            raise ValueError("OCR time limits must be positive")

    @property
    def enabled(self) -> bool:
        return self.mode != "off"


NO_LANGUAGE_DATA = "tesseract has no language data for"


@functools.cache
def ocr_unavailable(languages: str) -> str | None:
    """Why Tesseract cannot OCR ``languages`` on this machine, or None when it can."""
    binary = shutil.which("tesseract")
    if binary is None:
        return "tesseract not found on PATH (Debian: apt-get install tesseract-ocr)"
    if shutil.which("pdftoppm") is None:  # renders PDF pages for Tesseract
        return "pdftoppm not found on PATH (Debian: apt-get install poppler-utils)"
    try:
        listed = subprocess.run([binary, "--list-langs"], capture_output=True, text=True,
                                timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"tesseract does not run: {exc}"
    installed = {line.strip() for line in (listed.stdout + listed.stderr).splitlines()[1:]}
    # auto: the default pack reads first (ocr.read_picture); other scripts' packs are
    # asked for per page, where a page needs them.
    wanted = DEFAULT_PACK if languages == AUTO_LANGUAGES else languages
    missing = [lang for lang in wanted.split("+") if lang not in installed]
    if missing:
        packages = " ".join(f"tesseract-ocr-{m.replace('_', '-').lower()}" for m in missing)
        return f"{NO_LANGUAGE_DATA} {'+'.join(missing)} (Debian: {packages})"
    return None


def with_ocr(data: bytes, xhtml: str, metadata: dict[str, list[str]],
             settings: OcrSettings | dict[str, Any], workers: int
             ) -> tuple[str, dict[str, list[str]]]:
    """Tika's answer with the pages it left to OCR (``OCR_PENDING_KEY``) read in;
    unchanged when it left none."""
    pages = pending_pages(metadata)
    if pages is None:
        return xhtml, metadata
    if isinstance(settings, dict):
        settings = OcrSettings(**settings)
    return complete_ocr(data, xhtml, metadata, pages, settings.languages,
                        settings.page_timeout_s, workers, settings.document_timeout_s)


def _without_blank_pages(data: bytes, candidates: dict[int, str]) -> dict[int, str]:
    """OCR candidates less the pages with nothing to read (``layout.blank_pages``) and
    the pages whose words read as a poor OCR layer but that are not scans
    (``layout.scanned_pages``: such a page's text layer is its text); all of them when
    PDFium cannot read the file (Tika could: OCR decides), but a poor layer's page."""
    poor = [page for page, reason in candidates.items()
            if reason.startswith(POOR_LAYER_REASON)]
    try:
        scans = scanned_pages(data, poor) if poor else set()
    except Exception:  # PDFium refuses the file: a page with a text layer keeps it
        scans = set()
    candidates = {page: reason for page, reason in candidates.items()
                  if page in scans or page not in poor}
    others = [page for page in candidates if page not in poor]
    try:
        blank = blank_pages(data, others) if others else set()
    except Exception:  # PDFium refuses a file Tika read: let OCR try every page
        return candidates
    return {page: reason for page, reason in candidates.items() if page not in blank}


def path_without(program: str, path: str) -> str:
    """``path`` (a ``PATH`` value) less every directory that holds an executable
    ``program``."""
    return os.pathsep.join(d for d in path.split(os.pathsep)
                           if d and shutil.which(program, path=d) is None)


@contextlib.contextmanager
def _environment_path(path: str) -> Iterator[None]:
    """This process's ``PATH`` is ``path`` for the block, then what it was."""
    before = os.environ.get("PATH")
    os.environ["PATH"] = path
    try:
        yield
    finally:
        if before is None:
            del os.environ["PATH"]
        else:
            os.environ["PATH"] = before


def _listify(metadata: dict[str, Any]) -> dict[str, list[str]]:
    return {k: list(v) if isinstance(v, list) else [str(v)] for k, v in metadata.items()}


class EmbeddedTika:
    """Apache Tika compiled to native code (iscc-tika): no JVM, no network.

    ``ocr`` (an ``OcrSettings`` or its fields as a dict): None or mode ``off``
    extracts text layers only, as Tika does by default. ``defer_ocr``: leave the
    pages that need OCR to the caller, listed in ``OCR_PENDING_KEY`` (an
    extraction child does, so its parent can spread them over the pool).
    ``ocr_workers``: pages OCR'd at once otherwise (default: the cores).

    ``hide_tesseract``: Tika runs with no ``tesseract`` on ``PATH``. iscc-tika
    (Tika 3.3) checks whether Tesseract is installed by starting ``tesseract``, four
    times per document, even though its own OCR is off (``skip_ocr``, its default;
    ragbeam reads pages itself, ``ocr.py``): each check forks this whole process
    and, where Tesseract is installed, runs it to its usage message — about a third
    of the raw Tika loop's CPU on the mixed corpus (``docs/benchmarks.md``, "Tika's
    kernel time"). Hidden, the check's ``exec`` fails at once and Tika's answer is the
    same. ``PATH`` is this process's, so only a process that runs nothing else while
    Tika works may set it: an extraction child (``isolation.py``) does.
    """

    name = "iscc-tika"

    def __init__(self, max_string_chars: int = DEFAULT_MAX_STRING_CHARS,
                 ocr: OcrSettings | dict[str, Any] | None = None, defer_ocr: bool = False,
                 ocr_workers: int | None = None, hide_tesseract: bool = False) -> None:
        self._ocr = OcrSettings(**ocr) if isinstance(ocr, dict) else ocr
        # Read when Tika starts a process, not once: set around each call.
        self._tika_path = (path_without("tesseract", os.environ.get("PATH", os.defpath))
                           if hide_tesseract else None)
        self._ocr_problem: str | None = None
        self._defer_ocr = defer_ocr
        self._ocr_workers = ocr_workers
        if self._ocr is not None and self._ocr.enabled:
            self._ocr_problem = ocr_unavailable(self._ocr.languages)
        import iscc_tika  # imported here: only the process that extracts pays for it

        self._tika = iscc_tika
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
            with (_environment_path(self._tika_path) if self._tika_path is not None
                  else contextlib.nullcontext()):
                xhtml, metadata = self._extract_with(self._extractor, self._stream_extractor,
                                                     data)
            metadata[EXTRACTOR_KEY] = [self.name]
        except Exception as exc:  # iscc-tika raises TypeError(ParseError(...))
            if picture_type(data) is None:
                return pdf_fallback(data, _tika_message(exc), exc)
            # A picture Tika cannot parse (its metadata reader gave up): OCR reads its
            # pixels as it reads any picture's; without text it is unsupported.
            xhtml, metadata = unparsed_picture(data, _tika_message(exc))
        if self._ocr is None or not self._ocr.enabled:
            return xhtml, metadata
        metadata[OCR_PAGES_KEY] = ["0"]
        pdf_auto = self._ocr.mode == "auto" and ocr_media_type(metadata) == "application/pdf"
        candidates = ocr_candidates(metadata, self._ocr.mode, xhtml,
                                    (lambda pages: scanned_pages(data, pages)) if pdf_auto
                                    else None)
        if candidates and pdf_auto:
            candidates = _without_blank_pages(data, candidates)
        if not candidates:
            return xhtml, metadata
        pages = list(candidates)
        metadata[OCR_REASONS_KEY] = reasons_value(candidates)
        if self._ocr_problem:
            return xhtml, unavailable_metadata(metadata, pages, self._ocr_problem)
        metadata[OCR_PENDING_KEY] = [",".join(map(str, pages))]
        if self._defer_ocr:
            return xhtml, metadata
        return with_ocr(data, xhtml, metadata, self._ocr,
                        self._ocr_workers or available_cores())

    def _extract_with(self, extractor: Any, stream_extractor: Any, data: bytes
                      ) -> tuple[str, dict[str, list[str]]]:
        xhtml, metadata = extractor.extract_bytes_to_string(bytearray(data))
        if _LOST_CHARACTER in xhtml:
            xhtml = self._extract_utf8_stream(stream_extractor, data, xhtml)
        return xhtml, _listify(metadata)

    def _extract_utf8_stream(self, stream_extractor: Any, data: bytes,
                             string_xhtml: str) -> str:
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
        stream, _ = stream_extractor.extract_bytes(bytearray(data))
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


class TikaServerError(Exception):
    """The Tika server answered 5xx: its problem, not the document's (transient)."""


class TikaServerUnavailable(Exception):
    """The Tika server could not be reached (refused, reset, timed out; transient)."""


# Waits between attempts at one request: a server restarting or briefly overloaded
# gets ~15 s to come back before the document is recorded as failed (transiently).
SERVER_RETRY_DELAYS_S = (0.5, 1.0, 2.0, 4.0, 8.0)


def server_retry_delays(extract_timeout_s: float) -> tuple[float, ...]:
    """The retry waits that fit in a third of the per-document time limit, so a
    server that stays down fails each document as ``TikaServerUnavailable`` well
    before the limit kills it as a timeout."""
    delays: list[float] = []
    for delay in SERVER_RETRY_DELAYS_S:
        if sum(delays) + delay > extract_timeout_s / 3:
            break
        delays.append(delay)
    return tuple(delays)


class TikaServer:
    """A running Tika server: ``PUT {url}/tika`` with ``Accept: text/html``.

    The XHTML answer carries Tika's metadata as ``<meta>`` tags in ``<head>``,
    so one request gives both text structure and metadata. Connection failures
    and 5xx answers are retried with backoff (``SERVER_RETRY_DELAYS_S``) before
    they become the document's transient error; 4xx answers (415 unsupported
    type, 422 unparseable) are the document's permanent error at once.
    """

    name = "tika-server"

    def __init__(self, url: str, timeout_s: float = 120.0,
                 retry_delays_s: tuple[float, ...] = SERVER_RETRY_DELAYS_S) -> None:
        self._url = url.rstrip("/") + "/tika"
        self._shown_url = redact_uri(self._url)  # error rows never carry a password
        self._timeout_s = timeout_s
        self._retry_delays_s = tuple(retry_delays_s)

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
        for attempt, delay in enumerate((*self._retry_delays_s, None)):
            try:
                with urllib.request.urlopen(request, timeout=self._timeout_s) as response:
                    xhtml = response.read().decode("utf-8", errors="replace")
                break
            except urllib.error.HTTPError as exc:
                if exc.code < 500:  # the document's own problem (415, 422): no retry,
                    # but a PDF the server's Tika cannot parse gets the fallback extractor,
                    # and a picture is one without text read (the server OCRs what it can).
                    message = f"Tika server HTTP {exc.code}: {exc.reason}"
                    if picture_type(data) is not None:
                        return unparsed_picture(data, message)
                    return pdf_fallback(data, message, exc)
                error: Exception = TikaServerError(
                    f"Tika server HTTP {exc.code}: {exc.reason} (after {attempt + 1} attempts)")
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                reason = getattr(exc, "reason", exc)
                error = TikaServerUnavailable(f"Tika server unreachable at {self._shown_url}: "
                                              f"{reason} (after {attempt + 1} attempts)")
            if delay is None:
                raise error
            time.sleep(delay)
        head = parse_tika_xhtml(xhtml).head_metadata
        metadata = {k: [v] for k, v in head.items()}
        metadata[EXTRACTOR_KEY] = [self.name]
        return xhtml, metadata


def is_pdf(data: bytes) -> bool:
    """PDF by content: the header may follow up to 1 KiB of junk (readers accept that)."""
    return b"%PDF-" in data[:1024]


def pdf_start(data: bytes) -> int:
    """Where a PDF's own bytes begin: 0, or the ``%PDF-`` header's offset in a file
    that starts with up to 1 KiB of something else and ends as a PDF ends (``%%EOF``
    in its last KiB). PDF readers accept the junk (a download artefact: a few bytes
    of HTML), Tika's type detection does not: it saw ``text/html`` and the PDF's
    bytes were chunked as text. From the header on, the file is the PDF its writer
    made (its cross-reference offsets count from there)."""
    at = data.find(b"%PDF-", 0, 1024)
    return at if at > 0 and b"%%EOF" in data[-1024:] else 0


def unparsed_picture(data: bytes, tika_message: str) -> tuple[str, dict[str, list[str]]]:
    """A picture Tika could not parse, as a picture without text: OCR, where it runs,
    reads its pixels (``ocr.ocr_candidates``); else its row is ``unsupported``."""
    metadata = {"Content-Type": [picture_type(data) or "image/unknown"],
                EXTRACTOR_KEY: ["none"], UNPARSED_REASON_KEY: [tika_message]}
    return '<html xmlns="http://www.w3.org/1999/xhtml"><head/><body/></html>', metadata


def pdf_fallback(data: bytes, tika_message: str, cause: BaseException
                 ) -> tuple[str, dict[str, list[str]]]:
    """Tika failed: for a PDF that is not encrypted, pdfminer.six's text; else the error.

    Raises ``ExtractionError`` with Tika's message (and what the fallback
    found) when the input is no PDF, is encrypted, or yields no text either.
    """
    if not is_pdf(data):
        raise ExtractionError(tika_message) from cause
    try:
        pages = pdfminer_pages(data)
    except _Encrypted:
        raise ExtractionError(tika_message) from cause
    except Exception as exc:  # pdfminer raises many kinds on damaged files
        raise ExtractionError(f"{tika_message}; {PDF_FALLBACK} fallback: "
                              f"{type(exc).__name__}: {exc}") from cause
    if not any(text.strip() for paragraphs in pages for text in paragraphs):
        raise ExtractionError(f"{tika_message}; {PDF_FALLBACK} fallback: no text") from cause
    metadata = {"Content-Type": ["application/pdf"], "xmpTPg:NPages": [str(len(pages))],
                EXTRACTOR_KEY: [PDF_FALLBACK], UNPARSED_REASON_KEY: [tika_message]}
    return pages_to_xhtml(pages), metadata


class _Encrypted(Exception):
    pass


def pdfminer_pages(data: bytes) -> list[list[str]]:
    """Each page's text boxes (pdfminer.six layout analysis), in reading order."""
    from pdfminer.converter import PDFPageAggregator
    from pdfminer.layout import LAParams, LTTextContainer
    from pdfminer.pdfdocument import PDFDocument, PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
    from pdfminer.pdfpage import PDFPage
    from pdfminer.pdfparser import PDFParser

    try:
        document = PDFDocument(PDFParser(io.BytesIO(data)))
    except (PDFPasswordIncorrect, PDFEncryptionError) as exc:
        raise _Encrypted from exc
    if document.encryption is not None:
        raise _Encrypted
    resources = PDFResourceManager()
    device = PDFPageAggregator(resources, laparams=LAParams())
    interpreter = PDFPageInterpreter(resources, device)
    pages: list[list[str]] = []
    for page in PDFPage.create_pages(document):
        interpreter.process_page(page)
        layout = device.get_result()
        pages.append([element.get_text() for element in layout
                      if isinstance(element, LTTextContainer)])
    return pages


def pages_to_xhtml(pages: list[list[str]]) -> str:
    """Tika-shaped XHTML: one ``<div class="page">`` per page, one ``<p>`` per text box."""
    body = "".join(
        '<div class="page">'
        + "".join(f"<p>{html.escape(_XML_INVALID.sub('', text.strip()), quote=False)}</p>\n"
                  for text in paragraphs if text.strip())
        + "</div>\n"
        for paragraphs in pages)
    return ('<html xmlns="http://www.w3.org/1999/xhtml"><head>'
            '<meta name="Content-Type" content="application/pdf" /><title></title></head>'
            f"<body>{body}</body></html>")


# Exceptions an extraction child reports by name and its parent raises again as
# they were (transforms/extract/isolation.py).
CHILD_ERRORS: dict[str, type[Exception]] = {
    cls.__name__: cls for cls in (ExtractionError, TikaServerError, TikaServerUnavailable,
                                  ConnectionError, MemoryError)}


def tika_server_version(url: str, timeout_s: float = 5.0) -> str | None:
    """``GET {url}/version`` (e.g. "Apache Tika 3.2.3"), or None if it does not answer."""
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/version", timeout=timeout_s) as response:
            return response.read().decode("utf-8", errors="replace").strip() or None
    except (OSError, ValueError):
        return None


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
