"""A local HTTP server that answers like a Tika server: ``PUT /tika`` with
``Accept: text/html`` returns Tika's XHTML (metadata in ``<head>``), 422 when
the parser fails, and ``GET /version``. The XHTML comes from real Tika
(iscc-tika), so the server backend is tested against genuine Tika output, over
real HTTP. ``fail_first=N`` answers the first N requests with 503, like a
server that is restarting or overloaded; ``delay_s`` holds every answer that long,
like a busy server (a long run that costs no CPU)."""

from __future__ import annotations

import html
import threading
import time
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _with_metadata_head(xhtml: str, metadata: dict[str, list[str]]) -> str:
    """iscc-tika already writes <meta> tags; make sure Content-Type is among them."""
    if 'name="Content-Type"' in xhtml:
        return xhtml
    metas = "".join(f'<meta name="{html.escape(k)}" content="{html.escape(v)}" />'
                    for k, vs in metadata.items() for v in vs)
    return xhtml.replace("<head>", "<head>" + metas, 1)


TIKA_LIKE_VERSION = "Apache Tika (iscc-tika over HTTP, ragbeam tests)"


class _TikaHandler(BaseHTTPRequestHandler):
    extractor = None
    requests_seen: typing.ClassVar[list[str]] = []
    fail_first = 0
    delay_s = 0.0

    def do_GET(self) -> None:
        if self.path.rstrip("/") != "/version":
            self.send_error(404)
            return
        payload = TIKA_LIKE_VERSION.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_PUT(self) -> None:
        if self.path.rstrip("/") != "/tika":
            self.send_error(404)
            return
        self.requests_seen.append(self.headers.get("Accept", ""))
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        time.sleep(self.delay_s)
        if len(self.requests_seen) <= self.fail_first:
            self.send_error(503, "Service Unavailable")
            return
        try:
            xhtml, metadata = self.extractor.extract_bytes_to_string(bytearray(body))
        except Exception:
            self.send_error(422, "Unprocessable Entity")
            return
        payload = _with_metadata_head(xhtml, metadata).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=UTF-8")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args) -> None:
        pass


@contextmanager
def tika_like_server(fail_first: int = 0, delay_s: float = 0.0
                     ) -> Iterator[tuple[str, list[str]]]:
    import iscc_tika

    _TikaHandler.extractor = (iscc_tika.Extractor().set_xml_output(True)
                              .set_extract_string_max_length(100_000_000))
    _TikaHandler.requests_seen = []
    _TikaHandler.fail_first = fail_first
    _TikaHandler.delay_s = delay_s
    server = ThreadingHTTPServer(("127.0.0.1", 0), _TikaHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", _TikaHandler.requests_seen
    finally:
        server.shutdown()
        server.server_close()
