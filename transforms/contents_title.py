"""What a contents page's or an index's title reads (pure): shared by cleaning, which finds
contents pages, and chunking, whose heading paths never run through one."""

from __future__ import annotations

import re

_CONTENTS_TITLE = re.compile(
    r"^(?:table\s+of\s+contents|contents|index|indexes|目次|目录|目錄|索引|inhalt|"
    r"inhaltsverzeichnis|sommaire|table\s+des\s+mati[eè]res|[íi]ndice|contenido|"
    r"sumário|inhoud(?:sopgave)?|spis\s+treści|содержание|оглавление|목차|차례)\s*:?$",
    re.IGNORECASE)


def is_contents_title(text: str) -> bool:
    """ "Contents", "TABLE OF CONTENTS", "目次": the title of a contents page or an index."""
    return _CONTENTS_TITLE.match(" ".join(text.split())) is not None
