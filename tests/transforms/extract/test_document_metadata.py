"""The documents table's metadata: Tika's values as they are, but nothing that changes
from one run to the next for the same file."""

from __future__ import annotations

import pytest

from ragbeam.transforms.extract.document import (
    EncryptedDocumentError,
    build_extracted_document,
    flatten_metadata,
)
from ragbeam.transforms.types import FetchedFile, SourceFile


def test_multi_valued_keys_are_joined_and_sorted():
    assert flatten_metadata({"b": ["x", "", "y"], "a": ["1"]}) == {"a": "1", "b": "x; y"}


def test_a_java_identity_hash_in_an_exception_text_is_dropped():
    # What Tika 3 puts on a PPTX whose embedded JPEG it cannot read: the parser's
    # default toString, whose hash differs in every run.
    message = ("org.apache.tika.exception.TikaException: "
               "org.apache.tika.parser.image.JpegParser@66d5652a failed: Unexpected end")
    flat = flatten_metadata({"X-TIKA:EXCEPTION:embedded_exception": [message]})
    assert flat["X-TIKA:EXCEPTION:embedded_exception"] == (
        "org.apache.tika.exception.TikaException: "
        "org.apache.tika.parser.image.JpegParser failed: Unexpected end")
    again = flatten_metadata({"X-TIKA:EXCEPTION:embedded_exception":
                              [message.replace("66d5652a", "27f465f5")]})
    assert again == flat


def test_addresses_outside_exception_texts_are_left_alone():
    flat = flatten_metadata({"dc:creator": ["ops@cafe01"], "Message-From": ["a@beef"]})
    assert flat == {"Message-From": "a@beef", "dc:creator": "ops@cafe01"}


def test_an_office_file_under_a_password_is_refused_as_encrypted():
    """Tika gives an encrypted OOXML package its own media type and no text, and sets
    no encryption key: the row says encrypted, not "no textual content"."""
    data = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)  # an OLE2 container's header
    fetched = FetchedFile(SourceFile("/in/budget.xlsx", "d", len(data)), data, "h")
    xhtml = ('<html xmlns="http://www.w3.org/1999/xhtml"><head><title></title></head>'
             "<body /></html>")
    with pytest.raises(EncryptedDocumentError):
        build_extracted_document(fetched, xhtml,
                                 {"Content-Type": ["application/x-tika-ooxml-protected"]})
