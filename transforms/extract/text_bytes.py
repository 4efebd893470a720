"""A text file's bytes read as the text they hold, where Tika's reading loses it (pure).

Three ways a plain text file (``.txt``, ``.md``, ``.eml``) came out of Tika wrong, each a
surprise on a user's first day:

* **UTF-16 without a byte-order mark** (a Windows export, a mail client's saved
  message): Tika's detector sees ``application/octet-stream`` and reads nothing.
  ``utf16_text`` finds it by its zero bytes, every other byte, and the file goes to
  Tika as UTF-8 (``document.extract_fetched``), so an ``.eml`` is still read as mail.
* **A short file in a single-byte code page** (a German note in Latin-1, 24 bytes):
  the detector sees binary data. ``single_byte_text`` reads it as Windows-1252 where
  its bytes hold no zero byte and next to no control character
  (``document.build_extracted_document``).
* **Windows-1252 text that Tika reads as ISO-8859-1** (its detector names no Windows
  code page): the bytes 0x80–0x9F, which Windows-1252 uses for "€", "“", "”", "–", are
  control characters in ISO-8859-1, and Tika's XHTML writes U+FFFD for each. As
  browsers do (the WHATWG Encoding Standard), a text labelled ISO-8859-1 is read as
  Windows-1252 (``windows_1252_text``, through ``xhtml.with_file_text``).

Every rule reads bytes only; a file Tika reads right is left to Tika.
"""

from __future__ import annotations

import re

# The bytes looked at to tell UTF-16 by its zero bytes.
UTF16_SAMPLE_BYTES = 4096
# Latin text in UTF-16: at least this share of the bytes at one parity are zero (every
# ASCII character's high byte), and at most the rest of the other parity.
MIN_UTF16_ZERO_SHARE = 0.9
# Text, not binary data: at most this share of its characters are control characters
# other than tab, line and page breaks.
MAX_CONTROL_SHARE = 0.01
_BOMS = (b"\xff\xfe", b"\xfe\xff")
_C1_BYTES = re.compile(rb"[\x80-\x9f]")
_ISO_8859_1 = frozenset({"iso-8859-1", "iso8859-1", "latin1", "latin-1", "windows-1252",
                         "cp1252", "us-ascii"})
# Unicode's control characters (category Cc) but tab, line and page breaks: counted in
# one C call, a whole file's worth.
_CONTROLS = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f]")


def reads_as_text(text: str) -> bool:
    """A letter at least, and control characters (but breaks) at most
    ``MAX_CONTROL_SHARE`` of the characters: text, not bytes decoded as text."""
    if not any(ch.isalpha() for ch in text):
        return False
    return len(_CONTROLS.findall(text)) <= MAX_CONTROL_SHARE * len(text)


def utf16_text(data: bytes) -> str | None:
    """The text of UTF-16 without a byte-order mark (Tika reads one with a mark):
    little-endian where the odd bytes of its first ``UTF16_SAMPLE_BYTES`` are zero
    (``MIN_UTF16_ZERO_SHARE`` of them) and the even ones are not, big-endian the other
    way round; None for anything else, or where it does not decode or read as text."""
    if len(data) < 4 or len(data) % 2 or data[:2] in _BOMS:
        return None
    sample = data[:UTF16_SAMPLE_BYTES]
    even, odd = sample[0::2], sample[1::2]
    zero_even, zero_odd = even.count(0) / len(even), odd.count(0) / len(odd)
    if zero_odd >= MIN_UTF16_ZERO_SHARE and zero_even <= 1 - MIN_UTF16_ZERO_SHARE:
        codec = "utf-16-le"
    elif zero_even >= MIN_UTF16_ZERO_SHARE and zero_odd <= 1 - MIN_UTF16_ZERO_SHARE:
        codec = "utf-16-be"
    else:
        return None
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        return None
    return text if reads_as_text(text) else None


def decoded(data: bytes) -> tuple[str, str]:
    """``(text, charset)`` of a text file's bytes: UTF-8 where they decode so (a
    Latin-1 or Windows-1252 text forms valid multi-byte sequences only by accident),
    else Windows-1252, a byte it leaves undefined as U+FFFD."""
    try:
        return data.decode("utf-8-sig"), "UTF-8"
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace"), "windows-1252"


def single_byte_text(data: bytes) -> tuple[str, str] | None:
    """``(text, charset)`` of bytes Tika took for binary data that are text
    (``decoded``); None where they hold a zero byte or do not read as text
    (``reads_as_text``)."""
    if not data or b"\x00" in data:
        return None
    text, charset = decoded(data)
    return (text, charset) if reads_as_text(text) else None


def windows_1252_text(data: bytes, charset: str | None) -> str | None:
    """The text of bytes Tika read as ISO-8859-1 (``charset``) that hold a byte of
    0x80–0x9F, read as Windows-1252 instead; None where Tika's reading stands (another
    charset, no such byte, or bytes that are UTF-8)."""
    if (charset or "").strip().lower() not in _ISO_8859_1 or not _C1_BYTES.search(data):
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")
    return None  # UTF-8: ``xhtml.with_file_text`` reads it so
