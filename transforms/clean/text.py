"""Text-level cleaning steps: pure ``str -> str`` functions, one job each."""

from __future__ import annotations

import re
import unicodedata

# C0/C1 control characters except tab and newline; NUL included.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b\ufeff]")
_INLINE_SPACE = re.compile(r"[^\S\n]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")


def normalize_unicode(text: str) -> str:
    """NFKC: ligatures (ﬁ → fi), full-width forms, compatibility characters."""
    return unicodedata.normalize("NFKC", text)


def remove_control_characters(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", text)


def normalize_whitespace(text: str) -> str:
    """Collapse runs of spaces/tabs, trim every line, drop empty lines."""
    lines = (_INLINE_SPACE.sub(" ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def normalize_code_whitespace(text: str) -> str:
    """Code keeps its indentation: only trailing spaces and blank-line runs go."""
    lines = [line.rstrip() for line in text.split("\n")]
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip("\n")
