from __future__ import annotations

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.records import chunk_rows
from ragbeam.transforms.chunk.sizing import CharSizer
from ragbeam.transforms.chunk.strategies import build_strategy
from ragbeam.transforms.types import BlockKind, ChunkLevel, Document, SourceFile, TextSpan


def doc_from_blocks(blocks: list[tuple[BlockKind, int, str]], title: str | None = None
                    ) -> Document:
    parts, spans, cursor = [], [], 0
    for kind, level, text in blocks:
        if parts:
            parts.append("\n\n")
            cursor += 2
        spans.append(TextSpan(cursor, cursor + len(text), kind, level=level))
        parts.append(text)
        cursor += len(text)
    text = "".join(parts)
    return Document(SourceFile("file:///guide.docx", "guide", len(text)), "h", "text/plain",
                    text, tuple(spans), title=title)


H, P = BlockKind.HEADING, BlockKind.PARAGRAPH
GUIDE = doc_from_blocks([
    (H, 1, "Guide"),
    (P, 0, "This guide explains the tool. " * 5),
    (H, 2, "Install"),
    (H, 3, "Linux"),
    (P, 0, "Run the package manager. " * 6),
    (H, 3, "Mac"),
    (P, 0, "Use the installer."),
    (H, 3, "Windows"),
    (P, 0, "Download the setup file."),
    (H, 2, "Usage"),
    (P, 0, "Call the command with a file. It prints a summary. " * 12),
], title="Tool manual")


def test_sections_carry_their_heading_path():
    chunks = build_strategy("structure", ChunkOptions(unit="chars", size=400)).chunk(GUIDE).chunks
    paths = [c.heading_path for c in chunks]
    assert ("Guide", "Install", "Linux") in paths or ("Guide", "Install") in paths
    assert any(p[:2] == ("Guide", "Usage") for p in paths)
    for chunk in chunks:  # a chunk never runs into a heading of another branch
        assert not any(chunk.start < s.start < chunk.end and s.kind is H and s.level <= 2
                       for s in GUIDE.spans)


def test_tiny_sibling_sections_merge_under_their_parent():
    chunks = build_strategy("structure", ChunkOptions(unit="chars", size=400)).chunk(GUIDE).chunks
    merged = [c for c in chunks if "Use the installer." in c.text]
    assert len(merged) == 1
    assert "Download the setup file." in merged[0].text, "Mac and Windows are tiny siblings"
    assert merged[0].heading_path == ("Guide", "Install")


def test_long_section_falls_back_to_recursive_inside_it():
    chunks = build_strategy("structure", ChunkOptions(unit="chars", size=200)).chunk(GUIDE).chunks
    usage = [c for c in chunks if c.heading_path == ("Guide", "Usage")]
    assert len(usage) > 2
    assert all(len(c.text) <= 200 and c.text.endswith(".") for c in usage)


def test_heading_without_body_joins_its_first_subsection():
    chunks = build_strategy("structure", ChunkOptions(unit="chars", size=400)).chunk(GUIDE).chunks
    assert not any(c.text == "Install" for c in chunks)


def test_no_headings_is_the_recursive_strategy():
    doc = doc_from_blocks([(P, 0, "A sentence here. " * 50)])
    options = ChunkOptions(unit="chars", size=150)
    structure = build_strategy("structure", options).chunk(doc).chunks
    recursive = build_strategy("recursive", options).chunk(doc).chunks
    assert [(c.start, c.end) for c in structure] == [(c.start, c.end) for c in recursive]


def test_parent_child_rows_link_children_to_parent_chunk_ids():
    strategy = build_strategy("parent_child", ChunkOptions(unit="chars", size=120),
        {"parent_size": 400})
    result = strategy.chunk(GUIDE)
    rows = chunk_rows(GUIDE, result.chunks, "parent_child", "cfg", CharSizer())
    by_id = {r["chunk_id"]: r for r in rows}
    parents = [r for r in rows if r["level"] == "parent"]
    children = [r for r in rows if r["level"] == "child"]
    assert parents and len(children) > len(parents)
    for child in children:
        parent = by_id[child["parent_id"]]
        assert parent["level"] == "parent" and parent["chunk_index"] < child["chunk_index"]
        assert parent["char_start"] <= child["char_start"] < child["char_end"] <= parent["char_end"]
        assert len(child["text"]) <= 120
    assert all(r["parent_id"] is None and len(r["text"]) <= 400 for r in parents)
    assert rows[0]["context"].startswith("Tool manual > Guide")


def test_parent_child_without_headings_uses_large_windows():
    doc = doc_from_blocks([(P, 0, "Plain prose with no headings at all. " * 60)])
    chunks = build_strategy("parent_child", ChunkOptions(unit="chars", size=100)).chunk(doc).chunks
    parents = [c for c in chunks if c.level is ChunkLevel.PARENT]
    assert len(parents) > 1 and all(len(p.text) <= 400 for p in parents)


def test_a_heading_before_a_long_section_starts_its_first_chunk_and_a_last_one_joins():
    doc = doc_from_blocks([
        (H, 1, "CHAPTER 1 - INTRODUCTION"),
        (H, 2, "Background"),
        (P, 0, "A long paragraph of background. " * 20),
        (P, 0, "Closing words."),
        (H, 2, "Notes"),
    ])
    chunks = build_strategy("structure", ChunkOptions(unit="chars", size=200)).chunk(doc).chunks
    assert chunks[0].text.startswith("CHAPTER 1 - INTRODUCTION\n\nBackground\n\nA long")
    assert chunks[0].heading_path == ("CHAPTER 1 - INTRODUCTION", "Background")
    assert not any(c.text in {"CHAPTER 1 - INTRODUCTION", "Background", "Notes"}
                   for c in chunks)
    assert chunks[-1].text.endswith("Closing words.\n\nNotes")


def test_a_heading_over_one_long_paragraph_takes_its_start_along():
    doc = doc_from_blocks([(H, 1, "Use Cases"),
                           (P, 0, "Each sentence of this paragraph is a case in point. " * 12)])
    chunks = build_strategy("structure", ChunkOptions(unit="chars", size=200)).chunk(doc).chunks
    assert chunks[0].text.startswith("Use Cases\n\nEach sentence")
    assert all(len(c.text) <= 200 for c in chunks)
    assert chunks[0].text != "Use Cases"
