from __future__ import annotations

from ragbeam.transforms.extract.xhtml import parse_tika_xhtml
from ragbeam.transforms.types import BlockKind

XHTML = """<html xmlns="http://www.w3.org/1999/xhtml"><head><meta name="Content-Type"
content="application/pdf" /><title>T</title></head><body>
<div class="page"><p>Header line</p><h2>Intro <b>bold</b></h2><p>Para one
continues.</p><ul><li>item a</li><li>item b</li></ul></div>
<div class="page"><table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>
<pre>  code
    indented</pre><p>Last</p></div></body></html>"""


def test_blocks_have_kinds_pages_and_raw_offsets():
    parsed = parse_tika_xhtml(XHTML)
    assert parsed.page_count == 2
    assert parsed.head_metadata["Content-Type"] == "application/pdf"
    assert parsed.title == "T"
    kinds = [(b.kind, b.page) for b in parsed.blocks]
    assert kinds == [
        (BlockKind.PARAGRAPH, 1), (BlockKind.HEADING, 1), (BlockKind.PARAGRAPH, 1),
        (BlockKind.LIST_ITEM, 1), (BlockKind.LIST_ITEM, 1),
        (BlockKind.TABLE, 2), (BlockKind.CODE, 2), (BlockKind.PARAGRAPH, 2),
    ]
    heading = parsed.blocks[1]
    assert heading.level == 2 and heading.text == "Intro bold"
    assert parsed.blocks[5].text == "k | v\na | 1"
    for block in parsed.blocks:
        if block.kind is not BlockKind.TABLE:
            assert parsed.raw_text[block.raw_start:block.raw_end] == block.text


def test_empty_and_broken_xhtml_do_not_raise():
    assert parse_tika_xhtml("").blocks == []
    assert parse_tika_xhtml("<html><body><p>unclosed").blocks[0].text == "unclosed"
