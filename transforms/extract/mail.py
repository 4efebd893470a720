"""E-mail headers (from, to, cc, subject, date) for ``documents.metadata``.

Tika reports a message's headers in its metadata for RFC 822 and Outlook MSG
files, but its mbox parser keeps none of them (a Gmail export, detected as
``application/mbox``, comes back with an empty metadata map). So the headers
are taken from Tika where it has them and read from the file's own bytes with
the standard library otherwise (RFC 2047 encoded words such as a
windows-1255 subject are decoded). Dates are ISO 8601 in UTC.
"""

from __future__ import annotations

import email.parser
import email.policy
import email.utils
from collections.abc import Mapping
from datetime import UTC

from ragbeam.transforms.extract.reader import Reader
from ragbeam.transforms.extract.xhtml import ParsedXhtml, parse_tika_xhtml
from ragbeam.transforms.types import FetchedFile

EMAIL_KEYS = ("email_from", "email_to", "email_cc", "email_subject", "email_date")
# Tika's names for each header, most specific first.
_TIKA_KEYS = {
    "email_from": ("Message-From", "Message:From-Email", "dc:creator"),
    "email_to": ("Message-To", "Message:To-Email", "Message-Recipient-Address"),
    "email_cc": ("Message-Cc",),
    "email_subject": ("dc:subject", "subject", "dc:title"),
    "email_date": ("dcterms:created", "mapi:message-delivery-time", "Message:Raw-Header:Date"),
}
_HEADERS = {"email_from": "From", "email_to": "To", "email_cc": "Cc",
            "email_subject": "Subject", "email_date": "Date"}
MAX_HEADER_BYTES = 256 * 1024  # headers are at the top; never parse a whole mailbox


def _first(metadata: Mapping[str, list[str]], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        for value in metadata.get(key, ()):
            if value and value.strip():
                return value.strip()
    return None


def headers_from_bytes(data: bytes) -> dict[str, str]:
    """The first message's headers, read from RFC 822 or mbox bytes."""
    head = data[:MAX_HEADER_BYTES]
    if head.startswith(b"From "):  # mbox separator line, not a header
        head = head.split(b"\n", 1)[-1]
    try:
        message = email.parser.BytesHeaderParser(policy=email.policy.default).parsebytes(head)
    except (ValueError, TypeError, IndexError):
        return {}
    found = {}
    for name, header in _HEADERS.items():
        try:
            value = message.get(header)
        except (ValueError, TypeError, IndexError):  # a malformed header
            continue
        if value is not None and str(value).strip():
            found[name] = " ".join(str(value).split())
    if "email_date" in found:
        try:
            when = email.utils.parsedate_to_datetime(found["email_date"])
            if when.tzinfo is not None:
                found["email_date"] = when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        except (ValueError, TypeError):
            pass
    return found


def email_metadata(metadata: Mapping[str, list[str]], data: bytes,
                   parse_bytes: bool) -> dict[str, str]:
    """``email_*`` keys from Tika's metadata, completed from the bytes if asked."""
    found = {name: value for name, keys in _TIKA_KEYS.items()
             if (value := _first(metadata, keys))}
    if parse_bytes and len(found) < len(_TIKA_KEYS):
        for name, value in headers_from_bytes(data).items():
            found.setdefault(name, value)
    return found


def body_parts(data: bytes) -> list[str | None] | None:
    """What each of Tika's ``email-entry`` parts of an RFC 822 message is, in order:
    the attachment's file name, or None for the message's own body.

    Tika writes every MIME leaf of a message as an unnamed ``email-entry``, the body
    and the attachments alike (one entry for a ``multipart/alternative``: the version
    it prefers). The message's own structure tells them apart. None when the bytes do
    not parse as one message (mbox, malformed).
    """
    if data.startswith(b"From "):
        return None  # mbox: several messages
    try:
        message = email.parser.BytesParser(policy=email.policy.default).parsebytes(data)
    except (ValueError, TypeError, IndexError):
        return None
    parts: list[str | None] = []

    def visit(part) -> None:
        if part.is_multipart() and part.get_content_subtype() != "alternative":
            for child in part.iter_parts():
                visit(child)
            return
        attachment = part.get_content_disposition() == "attachment"
        parts.append((part.get_filename() or "attachment") if attachment else None)

    try:
        visit(message)
    except (ValueError, TypeError, IndexError, LookupError):
        return None
    return parts


# Mail formats whose bytes are text headers (Outlook MSG is binary: Tika only).
TEXT_MAIL_MEDIA_TYPES = frozenset({"message/rfc822", "application/mbox"})


class MailReader(Reader):
    """E-mail: Tika's XHTML with each ``email-entry`` told body or attachment (an RFC 822
    message's own structure, ``body_parts``), and the headers as ``email_*`` metadata.
    Also a file of another type Tika found mail headers in (``Message-…`` keys)."""

    name = "mail"
    media_types = TEXT_MAIL_MEDIA_TYPES | {"application/vnd.ms-outlook"}

    def claims(self, uri: str, media_type: str, metadata: Mapping[str, list[str]]) -> bool:
        return media_type in self.media_types or any(k.startswith("Message") for k in metadata)

    def structure(self, fetched: FetchedFile, xhtml: str, media_type: str,
                  metadata: Mapping[str, list[str]]) -> ParsedXhtml:
        entries = body_parts(fetched.data) if media_type == "message/rfc822" else None
        return parse_tika_xhtml(xhtml, entries)

    def metadata(self, fetched: FetchedFile, xhtml: str, media_type: str,
                 parsed: ParsedXhtml, metadata: Mapping[str, list[str]]) -> dict[str, str]:
        # Anything kept out of the text (``Reader.metadata``), then the headers.
        return {**super().metadata(fetched, xhtml, media_type, parsed, metadata),
                **email_metadata(metadata, fetched.data,
                                 parse_bytes=media_type in TEXT_MAIL_MEDIA_TYPES)}

    def title(self, metadata: Mapping[str, str]) -> str | None:
        # A message is called by its subject: Tika reports it as the title of an RFC 822
        # file, not of an mbox (``headers_from_bytes`` read it there).
        return metadata.get("email_subject")
