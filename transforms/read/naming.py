"""What a file that cannot be read or has no text *is*, in words a user acts on.

One place for the messages of files ragbeam cannot index: a link that leads nowhere
(dangling, or a loop), and a file whose format has no text (audio, video, a program).
OCR is suggested only where it can help: images and PDFs.
"""

from __future__ import annotations

import errno
import os

from ragbeam.transforms.match.patterns import leads_back

# Program and library formats as Tika names them: machine code, no text to index.
BINARY_MEDIA_TYPES = frozenset({
    "application/x-executable", "application/x-sharedlib", "application/x-elf",
    "application/x-object", "application/x-coredump", "application/x-mach-o-executable",
    "application/x-msdownload", "application/x-dosexec", "application/x-ms-installer",
    "application/java-vm", "application/x-java-applet",
})


def broken_link_reason(path: str) -> str:
    """Why a symbolic link has no file behind it: a loop, or a missing target."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symbolic link loop (the link leads back to itself); not read"
        target = os.readlink(path) if os.path.islink(path) else path
        return f"symbolic link to a file that does not exist ({target}); not read"
    if os.path.isdir(path):
        real = os.path.realpath(path)
        if leads_back(real, (os.path.realpath(os.path.dirname(path)),)):
            return ("symbolic link loop (a link to a folder that holds it: followed, it "
                    "would never end); not read")
        return "symbolic link to a directory; not read as a file"
    return "symbolic link whose target could not be read; not read"


def unsupported_by_design(media_type: str | None) -> bool:
    """Whether a file of this type that gave no text is one ragbeam cannot index by
    design (audio, video, an image with no text read, a program), not a failure:
    its documents status is ``unsupported`` (``schemas/documents.py``)."""
    kind = (media_type or "").split(";")[0].strip().lower()
    return kind.startswith(("audio/", "video/", "image/")) or kind in BINARY_MEDIA_TYPES


def no_text_reason(media_type: str) -> str:
    """Why a document gave no text, by what it is (``media_type`` as Tika detected it)."""
    kind = media_type.split(";")[0].strip().lower()
    if kind.startswith("audio/"):
        return f"no text could be extracted: an audio file ({kind}); ragbeam indexes text"
    if kind.startswith("video/"):
        return f"no text could be extracted: a video file ({kind}); ragbeam indexes text"
    if kind in BINARY_MEDIA_TYPES:
        return f"no text could be extracted: a program or library binary ({kind})"
    if kind.startswith("image/"):
        return (f"no text could be extracted: an image ({kind}) without text; OCR reads "
                "images (--ocr auto, with Tesseract installed)")
    if kind == "application/pdf":
        return ("no text could be extracted (an image-only/scanned PDF needs OCR: --ocr "
                "auto, with Tesseract installed)")
    return f"no text could be extracted: the file ({kind}) has no textual content"
