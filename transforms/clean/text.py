"""Text-level cleaning steps: pure ``str -> str`` functions, one job each."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from ragbeam.transforms.charsets import CJK_PUNCTUATION_CLASS, ELLIPSIS

# C0/C1 control characters except tab and newline; NUL included; zero-width
# space, BOM and soft hyphens (invisible inside a line; a soft hyphen that
# ends a line is handled by de-hyphenation before this runs).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u200b\ufeff]")
# Full-width punctuation that CJK text uses as its own (，：（）！？ …): NFKC
# would turn it into ASCII; ``normalize_unicode(protect_cjk_punctuation=True)``
# keeps it. Full-width letters and digits (Ａ, ５) are not in this set.
# The Chinese ellipsis "……" (two U+2026) is protected too: NFKC would make it
# six dots, which reads as a leader.
_FULLWIDTH_PUNCTUATION = re.compile(f"([{CJK_PUNCTUATION_CLASS}]+|{ELLIPSIS}{{2,}})")
# Whether it occurs at all: one of its characters, or two ellipses (a class searched
# alone is several times faster than the alternation, on every non-ASCII line).
_FULLWIDTH_PUNCTUATION_CHAR = re.compile(f"[{CJK_PUNCTUATION_CLASS}]")
_TWO_ELLIPSES = ELLIPSIS * 2
_INLINE_SPACE = re.compile(r"[^\S\n]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")


def normalize_unicode(text: str, protect_cjk_punctuation: bool = False) -> str:
    """NFKC: ligatures (ﬁ → fi), full-width letters and digits, compatibility forms.

    With ``protect_cjk_punctuation``, full-width and ideographic punctuation
    (，。：（）！？「」) is kept as it is, everything around it is normalised.
    """
    if text.isascii():
        return text
    if not protect_cjk_punctuation or not (_FULLWIDTH_PUNCTUATION_CHAR.search(text)
                                           or _TWO_ELLIPSES in text):
        return unicodedata.normalize("NFKC", text)
    parts = _FULLWIDTH_PUNCTUATION.split(text)
    # split() with one group: even indexes are text, odd ones the punctuation.
    return "".join(part if i % 2 else unicodedata.normalize("NFKC", part)
                   for i, part in enumerate(parts))


# A PDF whose font maps its space glyph to nothing makes Tika write U+FFFD for every
# space ("LG�Electronics�Deutschland�GmbH"): where U+FFFD outnumbers the spaces, and
# is common, it is the document's space. Elsewhere it marks an unreadable glyph inside
# a word ("Stra�e") and stays.
REPLACEMENT_CHAR = "\ufffd"
MIN_REPLACEMENT_SPACES = 20


def replacement_char_is_space(texts: Iterable[str]) -> bool:
    """Do ``texts`` (a document's blocks) write their spaces as U+FFFD? Spaces are
    counted only where U+FFFD is common (most documents have none: one count each)."""
    texts = list(texts)
    marks = sum(text.count(REPLACEMENT_CHAR) for text in texts)
    return (marks >= MIN_REPLACEMENT_SPACES
            and marks > sum(text.count(" ") for text in texts))


def repair_mojibake(text: str) -> str:
    """Text whose UTF-8 was decoded as Latin-1 or Windows-1252 before it reached us
    ("1986â\x80\x931990", "cafÃ©": a file saved from a page read in the wrong charset)
    decoded back ("1986–1990", "café").

    ftfy rather than our own table: it undoes chains of wrong decodings, and its badness
    test leaves text alone unless the sequences are implausible as written (on the
    shared corpus and the retrieval sets' PDFs it changes one file's lines and nothing
    else). Runs before the control characters go: a sequence's C1 characters are part
    of what it decodes from.
    """
    if text.isascii():
        return text
    # Imported at the first non-ASCII line, not with the module: every extraction child
    # imports cleaning at its start (a fresh process), and ftfy's import is ~0.05 s of CPU
    # (``evaluate/imports.HEAVY_IMPORTS``).
    import ftfy

    return ftfy.fix_encoding(text)


def remove_control_characters(text: str) -> str:
    if text.isprintable():
        return text  # every character removed or replaced here is unprintable: none there
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", text)


def collapse_spaces(line: str) -> str:
    """One line: runs of spaces and tabs as one space, trimmed."""
    # ASCII whitespace other than the space is all below it: with none of it and no
    # double space there is nothing to collapse (the usual line), so skip the regex.
    if line.isascii() and "  " not in line and min(line, default=" ") >= " ":
        return line.strip()
    if "\n" not in line:
        # What the regex does, in one C call: str.split() splits at the very characters
        # ``\s`` matches (str.isspace), and but for the newline that is ``_INLINE_SPACE``.
        return " ".join(line.split())
    return _INLINE_SPACE.sub(" ", line).strip()


def normalize_whitespace(text: str) -> str:
    """Collapse runs of spaces/tabs, trim every line, drop empty lines."""
    lines = (_INLINE_SPACE.sub(" ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def normalize_code_whitespace(text: str) -> str:
    """Code keeps its indentation: only trailing spaces and blank-line runs go."""
    lines = [line.rstrip() for line in text.split("\n")]
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip("\n")


def with_spaces_at(text: str, offsets: Iterable[int]) -> str:
    """``text`` with a space inserted before each of ``offsets`` (in ``text``): the gaps
    between words that a PDF set by position only, which its extractor ran together."""
    out, start = [], 0
    for offset in sorted(offsets):
        out += (text[start:offset], " ")
        start = offset
    return "".join(out) + text[start:]
