"""Is a file cut short? A check on its bytes, for what Tika reads without a word (pure).

A ZIP-based document (DOCX, XLSX, PPTX, ODF, EPUB) keeps its table of contents, the
central directory, at the very end. Cut short (an interrupted copy or download), it
has none, yet Tika's streaming reader still reads the parts that are there and says
nothing: a DOCX cut to its first 9,000 bytes is "ok" with a fraction of its text.
Such a document keeps what was read, flagged ``metadata.incomplete =
TruncatedFile`` (``transforms/errors.py``).
"""

from __future__ import annotations

import io
import zipfile

ZIP_LOCAL_HEADER = b"PK\x03\x04"


def truncated_zip(data: bytes) -> bool:
    """Bytes that open as a ZIP file (a local header first) but have no end of
    central directory record: the end of the file is missing."""
    return data.startswith(ZIP_LOCAL_HEADER) and not zipfile.is_zipfile(io.BytesIO(data))
