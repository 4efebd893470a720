"""Which page furniture the cleaner removed from one document, for the viz side panel.

A run records the removed lines (``clean_furniture_lines`` in metadata, up to
``MAX_RECORDED_FURNITURE_LINES``); older runs store only the count
(``clean_furniture_lines_removed``). To show the lines of those, and each line's
template group and place on its page, ``viz`` extracts the source again with the same
extractor (``extract_again``) and cleans it with the run's cleaning options: the
page template (``clean.document.page_template``) names each removed line's group;
cleaned *minus* furniture removal, the words that text has and ``documents.text``
lacks are what was removed, each with its page.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragbeam.pipeline.config import ExtractOptions
from ragbeam.transforms.clean.base import CleanOptions
from ragbeam.transforms.clean.document import clean_document, page_template
from ragbeam.transforms.types import FetchedFile, SourceFile

MAX_WORDS = 200_000  # the word diff is quadratic in the worst case: skip huge documents
_WORD = re.compile(r"\S+")


def removed_fragments(kept_text: str, cleaned_text: str,
                      page_of: Any = None) -> list[tuple[int | None, str]]:
    """Word runs of ``kept_text`` missing from ``cleaned_text``, in order, with their page."""
    kept = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(kept_text)]
    cleaned = _WORD.findall(cleaned_text)
    if len(kept) > MAX_WORDS or len(cleaned) > MAX_WORDS:
        return []
    matcher = difflib.SequenceMatcher(None, [w for _, _, w in kept], cleaned, autojunk=False)
    fragments: list[tuple[int | None, str]] = []
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag not in ("delete", "replace") or i1 == i2:
            continue
        start, end = kept[i1][0], kept[i2 - 1][1]
        page = page_of(start, end) if page_of else None
        fragments.append((page, " ".join(kept_text[start:end].split())))
    return fragments


@dataclass(frozen=True)
class SourceAgain:
    """A document's source file extracted again (the guarded single-file path, with the
    default extraction options) and the run's cleaning options: what ``viz`` reads the
    removed lines, the page template and the line boxes from."""

    data: bytes
    extracted: Any  # ExtractedDocument
    options: Any  # CleanOptions

    def template(self):
        """The page template of a paged document (``clean.document.page_template``): its
        pages' sizes and every line with the template group it belongs to."""
        return page_template(self.extracted, self.options)

    def cleaned(self):
        """The ``Document`` the run's cleaning makes of it."""
        return clean_document(self.extracted, self.options)

    def removed_fragments(self, cleaned_text: str) -> list[tuple[int | None, str]]:
        """What the run's furniture removal took: the text cleaned with furniture kept,
        diffed against the run's ``cleaned_text``."""
        kept = clean_document(self.extracted,
                              dataclasses.replace(self.options, remove_furniture=False))

        def page_of(start: int, end: int) -> int | None:
            return kept.pages_of(start, end)[0]

        return removed_fragments(kept.text, cleaned_text, page_of)


def extract_again(source_uri: str, doc_id: str, clean_config: Mapping[str, Any]
                  ) -> SourceAgain:
    """``source_uri`` extracted again, with the run's cleaning options (``clean_config``:
    run.json's ``config.clean``)."""
    from apache_beam.io.filesystems import FileSystems

    with FileSystems.open(source_uri) as f:
        data = f.read()
    fetched = FetchedFile(SourceFile(source_uri, doc_id, len(data)), data,
                          hashlib.sha256(data).hexdigest())
    known = {f.name for f in dataclasses.fields(CleanOptions)}
    return SourceAgain(data, ExtractOptions().file_extractor().extract(fetched),
                       CleanOptions(**{k: v for k, v in clean_config.items() if k in known}))
