"""Text files Tika read wrong or not at all (``extract/text_bytes.py``): UTF-16 without a
byte-order mark, a short note in a single-byte code page, Windows-1252 read as
ISO-8859-1. Unit cases on bytes, then each through real Tika (the single-file path,
``document.extract_fetched``)."""

from __future__ import annotations

import pytest
from made_pdfs import extract_and_clean

from ragbeam.transforms.extract.text_bytes import (
    reads_as_text,
    single_byte_text,
    utf16_text,
    windows_1252_text,
)

NOTE = ("This is a test document to use for unit tests.\n\nGr\u00fc\u00dfe aus M\u00fcnchen: "
        "\u00c4pfel kosten 2 \u20ac.\n\nIt has two paragraphs.\n")
MAIL = ("MIME-Version: 1.0\nDate: Fri, 16 Dec 2022 17:04:16 -0500\nMessage-ID: <abc@mail>\n"
        "Subject: Test Email\nFrom: Matthew Robinson <mrobinson@example.com>\n"
        "To: Matthew Robinson <mrobinson@example.com>\nContent-Type: text/plain; "
        "charset=\"UTF-8\"\n\nThis is a test email to use for unit tests.\n\n"
        "Important points:\n\nRoses are red\n")


def test_utf16_without_a_mark_is_told_by_its_zero_bytes():
    assert utf16_text(NOTE.encode("utf-16-le")) == NOTE
    assert utf16_text(NOTE.encode("utf-16-be")) == NOTE
    assert utf16_text(NOTE.encode("utf-16")) is None  # a mark: Tika reads it itself
    assert utf16_text(NOTE.encode()) is None
    # Binary data with zero bytes is no UTF-16 text: zeros at both parities, or
    # characters that do not read as text.
    assert utf16_text(bytes(range(256)) * 4) is None
    assert utf16_text(b"\x01\x00\x02\x00\x03\x00\x04\x00" * 64) is None
    assert utf16_text(NOTE.encode("utf-16-le") + b"x") is None  # an odd length


def test_a_single_byte_text_is_read_as_utf8_or_windows_1252():
    assert single_byte_text("k\u00f6nnen \u20ac".encode("cp1252")) == (
        "k\u00f6nnen \u20ac", "windows-1252")
    assert single_byte_text("k\u00f6nnen".encode()) == ("k\u00f6nnen", "UTF-8")
    assert single_byte_text(b"PK\x03\x04\x00\x00") is None  # a zero byte: binary
    assert single_byte_text(b"\x01\x02\x03\x04\x05abc\x06\x07") is None  # controls
    assert not reads_as_text("1234 5678")  # no letter


def test_iso_8859_1_with_windows_1252_bytes_is_read_as_windows_1252():
    data = "Caf\u00e9 \u201cMonde\u201d \u2013 2 \u20ac".encode("cp1252")
    assert windows_1252_text(data, "ISO-8859-1") == "Caf\u00e9 \u201cMonde\u201d \u2013 2 \u20ac"
    assert windows_1252_text("Caf\u00e9".encode("latin-1"), "ISO-8859-1") is None  # no C1
    assert windows_1252_text("\u041c\u0438\u0440".encode("cp1251"), "windows-1251") is None
    assert windows_1252_text("\u201cquoted\u201d".encode(), "ISO-8859-1") is None  # UTF-8


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_a_utf16_text_file_without_a_mark_is_read(codec):
    doc = extract_and_clean(NOTE.encode(codec), "note.txt")
    assert "Gr\u00fc\u00dfe aus M\u00fcnchen: \u00c4pfel kosten 2 \u20ac." in doc.text


def test_a_utf16_mail_without_a_mark_is_read_as_mail():
    doc = extract_and_clean(MAIL.encode("utf-16-le"), "message.eml")
    assert "This is a test email to use for unit tests." in doc.text
    assert "MIME-Version" not in doc.text  # its headers are metadata, not text
    assert doc.media_type == "message/rfc822"


def test_a_short_note_in_latin_1_is_read_as_text():
    doc = extract_and_clean("## k\u00f6nnen\n\nk\u00f6nnen\n\n\u00e4\u00f6\u00fc\u00df\n"
                            .encode("latin-1"), "umlauts.md")
    assert doc.text.split("\n\n") == ["k\u00f6nnen", "k\u00f6nnen", "\u00e4\u00f6\u00fc\u00df"]


def test_a_windows_1252_text_keeps_its_euro_sign_and_quotes():
    text = ("Preise und Hinweise f\u00fcr das Caf\u00e9 am Markt. " * 20
            + "\n\nDer \u201eKaffee\u201c kostet 2 \u20ac \u2013 der Tee 1 \u20ac.\n")
    doc = extract_and_clean(text.encode("cp1252"), "preise.txt")
    assert "Der \u201eKaffee\u201c kostet 2 \u20ac \u2013 der Tee 1 \u20ac." in doc.text
