"""The span map's contract holds for any blocks, whatever cleaning does to them."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.types import Block, BlockKind, ExtractedDocument, SourceFile

from helpers import lines_of

_LINE = st.text(alphabet="abc XYZ-12·中文，\t\u00ad", min_size=0, max_size=30)
_BLOCK = st.tuples(st.sampled_from([BlockKind.PARAGRAPH, BlockKind.HEADING,
                                    BlockKind.LIST_ITEM, BlockKind.CODE]),
                   st.lists(_LINE, min_size=1, max_size=6), st.integers(1, 4))


@settings(max_examples=150, deadline=None)
@given(blocks=st.lists(_BLOCK, max_size=25),
       media_type=st.sampled_from(["application/pdf", "text/plain"]))
def test_spans_are_sorted_disjoint_trimmed_and_cover_all_text(blocks, media_type):
    raw_parts: list[str] = []
    built: list[Block] = []
    cursor = 0
    for kind, lines, page in sorted(blocks, key=lambda b: b[2]):
        text = "\n".join(lines)
        built.append(Block(kind, text, page=page, raw_start=cursor, raw_end=cursor + len(text)))
        raw_parts.append(text)
        cursor += len(text)
    raw = "".join(raw_parts)
    doc = clean_document(
        ExtractedDocument(SourceFile("/x", "d", 1), "h", media_type, raw, tuple(built), {},
                          lines=lines_of(media_type)),
        CleanOptions())
    covered = [False] * len(doc.text)
    previous_end = 0
    for span in doc.spans:
        assert previous_end <= span.start < span.end <= len(doc.text)
        piece = doc.text[span.start:span.end]
        # Code keeps its indentation; everything else is trimmed.
        assert piece == (piece.rstrip() if span.kind is BlockKind.CODE else piece.strip())
        assert piece.strip()
        assert 0 <= span.raw_start <= span.raw_end <= len(raw)
        assert span.page in {b.page for b in built}
        for i in range(span.start, span.end):
            covered[i] = True
        previous_end = span.end
    assert all(covered[i] or ch.isspace() for i, ch in enumerate(doc.text))
    assert [s.block for s in doc.spans] == sorted(s.block for s in doc.spans)
