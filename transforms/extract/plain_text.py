"""Plain text: Tika's text as it is; its lines are typed, joined only where the text is
hard-wrapped (``clean/linejoin.py``). Markdown is plain text Tika cannot tell apart:
``markdown.py`` claims it by its name first."""

from __future__ import annotations

from ragbeam.transforms.extract.reader import Reader
from ragbeam.transforms.types import LineKind


class PlainTextReader(Reader):
    name = "plain_text"
    media_types = frozenset({"text/plain"})
    lines = LineKind.TYPED
