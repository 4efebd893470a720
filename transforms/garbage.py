"""Text that is binary data or encoding garbage, by a measured score (pure).

A PDF behind a few bytes of HTML was detected as ``text/html`` and its bytes,
decoded as windows-1252, became 1,490 ``ok`` chunks (``%PDF-1.4 %âãÏÓ 114 0 obj
<> endobj xref …``); a file in one encoding read as another reads the same way
(``æ–°é²œç”˜è‰``). Such text is told from text in any language by
charset-normalizer's *mess ratio* (``md.mess_ratio``: the share of a decoded
text's characters that its detectors find suspicious — accents piled on
letters, symbols inside words, unprintables, case and script changes where a
language has none), which is what that library decides encodings with.

The score of a text is the share of its windows (``WINDOW`` characters, at most
``MAX_WINDOWS`` spread evenly over it, so a long document costs no more than a
short one) whose mess ratio reaches ``WINDOW_MESS``; a window with few
characters outside ASCII and the scripts' own blocks (``_SUSPECT``) is clean
without being measured: binary and mojibake are made of them. A text is garbage
when its score reaches ``GARBAGE_SHARE``; one under ``MIN_CHARS`` characters never
is (a few characters say too little). Both thresholds were chosen on, and
precision and recall are measured by, ``benchmarks/garbage_text.py``: the first
article of the UDHR in 482 languages and real documents of the corpus, against
binary files decoded as Tika decodes text (windows-1252, ISO-8859-1, UTF-8) and
the same texts in eight wrong encodings (docs/benchmarks.md).
"""

from __future__ import annotations

import re

from charset_normalizer.md import mess_ratio

WINDOW = 1000
MAX_WINDOWS = 16
# A text shorter than this is never called garbage: a few characters say too little
# (three soft hyphens are cleaning's to refuse).
MIN_CHARS = 40
# Per window: its mess ratio from here on is garbage (charset-normalizer stops
# measuring once it is reached). Real text of 482 languages stays below 1.2
# (Javanese script, Khmer and Lao highest); binary decoded as text is over 2.
WINDOW_MESS = 1.5
# Windows measured only when this share of their characters are suspects.
SUSPECT_SHARE = 0.10
GARBAGE_SHARE = 0.5
# Controls, Latin-1's upper half (where windows-1252 and ISO-8859-1 put the bytes
# 0x80-0xFF of binary data and of UTF-8 read as either), the replacement
# character and the private use area.
_SUSPECT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\xff\ufffd\ue000-\uf8ff]")


def _windows(text: str) -> list[str]:
    """At most ``MAX_WINDOWS`` windows of ``WINDOW`` characters, evenly spread."""
    if len(text) <= WINDOW:
        return [text] if len(text.strip()) >= MIN_CHARS else []
    count = min(MAX_WINDOWS, len(text) // WINDOW)
    step = (len(text) - WINDOW) / max(count - 1, 1)
    return [text[round(i * step):round(i * step) + WINDOW] for i in range(count)]


def window_is_garbage(window: str) -> bool:
    """One window's verdict (see the module doc)."""
    if len(_SUSPECT.findall(window)) < SUSPECT_SHARE * len(window):
        return False
    return mess_ratio(window, WINDOW_MESS) >= WINDOW_MESS


def garbage_share(text: str) -> float:
    """The share of ``text``'s sampled windows that are garbage (0 for no text)."""
    windows = _windows(text)
    if not windows:
        return 0.0
    return sum(map(window_is_garbage, windows)) / len(windows)


def is_garbage(text: str) -> bool:
    """Whether ``text`` reads as binary data or encoding garbage (the module doc)."""
    return garbage_share(text) >= GARBAGE_SHARE
