from __future__ import annotations

from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.types import Block, BlockKind, ExtractedDocument, SourceFile

SRC = SourceFile(uri="/x.pdf", doc_id="d", size_bytes=1)


def _doc(*blocks: Block, media_type: str = "text/plain") -> ExtractedDocument:
    return ExtractedDocument(source=SRC, content_hash="h", media_type=media_type,
                             raw_text="", blocks=blocks, metadata={})


def test_text_is_blocks_joined_by_blank_lines_with_pages_mapped():
    doc = clean_document(_doc(
        Block(BlockKind.HEADING, "Title", page=1, level=1, raw_start=0, raw_end=5),
        Block(BlockKind.PARAGRAPH, "  ﬁrst   line \n second\tline ", page=1, raw_start=5,
              raw_end=29),
        Block(BlockKind.PARAGRAPH, " \n ", page=2),
        Block(BlockKind.PARAGRAPH, "page two", page=2, raw_start=40, raw_end=48),
    ), CleanOptions())
    assert doc.text == "Title\n\nfirst line\nsecond line\n\npage two"
    assert doc.pages_of(0, 5) == (1, 1)
    assert doc.pages_of(0, len(doc.text)) == (1, 2)
    start = doc.text.index("page two")
    assert doc.pages_of(start, start + 4) == (2, 2)
    assert doc.raw_range_of(start, start + 8) == (40, 48)
    for span in doc.spans:
        assert doc.text[span.start:span.end].strip() == doc.text[span.start:span.end]


def test_code_keeps_indentation_and_controls_are_removed():
    doc = clean_document(_doc(Block(BlockKind.CODE, "def f():\n    return 1\x00\n\n\n\n"),),
                         CleanOptions())
    assert doc.text == "def f():\n    return 1"
