"""A repository's cover sheet in front of a paper is removed; a paper's own first page stays."""

from __future__ import annotations

import hashlib
import json

import pytest

from ragbeam.transforms.clean.cover import is_cover_page
from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.extract.backends import EmbeddedTika
from ragbeam.transforms.extract.document import build_extracted_document
from ragbeam.transforms.types import FetchedFile, SourceFile

from conftest import require_corpus

TITLE = "A Study of Something Rather Specific in Great Detail"
PROSE = ("The method is described in the following sections with its evaluation on "
         "several data sets and a discussion of the results that were obtained. ") * 3


def _body_page(n: int) -> list[str]:
    return [f"{n}", *[PROSE] * 6]


def test_a_sparse_first_page_with_links_that_restates_the_title_is_a_cover():
    cover = ["See this publication at: https://repository.example.org/123", TITLE,
             "CITATIONS", "3", "READS", "120", "SEE PROFILE"]
    pages = [cover, ["Journal of Things 2023", TITLE, "A. Author", *[PROSE] * 5],
             _body_page(2), _body_page(3)]
    assert is_cover_page(pages)


def test_title_pages_running_heads_and_dense_first_pages_are_not_covers():
    first = [TITLE, "A. Author https://example.org", *[PROSE] * 5]
    assert not is_cover_page([first, _body_page(2), _body_page(3)])  # no restart
    sparse = [TITLE, "https://example.org"]
    with_running_head = [sparse, [TITLE, *[PROSE] * 5], [TITLE, *[PROSE] * 5],
                         [TITLE, *[PROSE] * 5]]
    assert not is_cover_page(with_running_head)  # the title is a running head
    no_link = [[TITLE, "A. Author"], [TITLE, *[PROSE] * 5], _body_page(2), _body_page(3)]
    assert not is_cover_page(no_link)  # a half-title page
    assert not is_cover_page([sparse, [TITLE, *[PROSE] * 5]])  # too short to tell


@pytest.mark.parametrize("rel, removed", [("pdf/langchain-primer-icaens2023.pdf", True),
                                          ("pdf/dpr-multi-column.pdf", False),
                                          ("pdf/llncsdoc.pdf", False)])
def test_real_pdfs(rel, removed):
    data = (require_corpus() / rel).read_bytes()
    xhtml, metadata = EmbeddedTika().extract(data, rel)
    extracted = build_extracted_document(
        FetchedFile(SourceFile(rel, "d", len(data)), data, hashlib.sha256(data).hexdigest()),
        xhtml, metadata)
    doc = clean_document(extracted, CleanOptions())
    assert doc.metadata["clean_cover_page_removed"] == ("1" if removed else "0")
    if removed:
        assert "SEE PROFILE" not in doc.text and "publicationCoverPdf" not in doc.text
        assert "SEE PROFILE" in json.loads(doc.metadata["clean_cover_page_lines"])
        assert doc.text.count("Creating Large Language Model Applications") == 1
