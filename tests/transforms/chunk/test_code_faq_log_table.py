"""Behaviour of the unit-based strategies: code, faq, log, table."""

from __future__ import annotations

import ast
import pathlib
import textwrap

import pytest

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.code import generic_cuts
from ragbeam.transforms.chunk.faq import question_starts
from ragbeam.transforms.chunk.records import chunk_rows
from ragbeam.transforms.chunk.sizing import CharSizer
from ragbeam.transforms.chunk.strategies import build_strategy
from ragbeam.transforms.chunk.table import TABLE_HEADER_KEY
from ragbeam.transforms.types import BlockKind, Document, SourceFile, TextSpan


def make_doc(text: str, spans: tuple[TextSpan, ...] = (), uri: str = "file:///t.txt"
             ) -> Document:
    return Document(SourceFile(uri, "doc", len(text)), "h", "text/plain", text, spans)


# --- code -------------------------------------------------------------------------------

@pytest.mark.parametrize("module", [textwrap, ast])
def test_python_functions_and_classes_that_fit_are_never_cut(module):
    source = pathlib.Path(module.__file__).read_text(encoding="utf-8")
    size = 1500
    result = build_strategy("code", ChunkOptions(unit="chars", size=size)).chunk(make_doc(source))
    spans = [(c.start, c.end) for c in result.chunks]
    assert result.stats["python_ast"] == 1
    lines = [0, *(i + 1 for i, ch in enumerate(source) if ch == "\n")]
    checked = 0
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        start = lines[first - 1]
        end = lines[node.end_lineno] - 1 if node.end_lineno < len(lines) else len(source)
        if end - start > size:
            continue
        checked += 1
        assert any(s <= start and end <= e for s, e in spans), f"{node.name} was cut"
    assert checked >= 3


def test_decorators_and_comments_stay_with_their_function():
    source = ("import functools\n\n\n# Cache results: the lookup is slow.\n"
              "@functools.cache\ndef slow(x):\n    return x * 2\n\n\n"
              "def other():\n    '''Docstring.'''\n    return 1\n")
    chunks = build_strategy("code", ChunkOptions(unit="chars", size=90)).chunk(
        make_doc(source)).chunks
    slow = next(c for c in chunks if "def slow" in c.text)
    assert slow.text.startswith("# Cache results") and "@functools.cache" in slow.text


def test_other_languages_split_between_top_level_blocks():
    source = "\n\n".join(
        f"function f{i}(a, b) {{\n  const s = a + b;\n  return s * {i};\n}}" for i in range(8))
    chunks = build_strategy("code", ChunkOptions(unit="chars", size=130)).chunk(
        make_doc(source)).chunks
    assert len(chunks) > 1
    for chunk in chunks:
        assert chunk.text.startswith("function") and chunk.text.endswith("}")


# --- faq --------------------------------------------------------------------------------

FAQ = """Frequently asked questions

Q: How do I install it?
A: Run pip install. It takes a minute.

Q: Does it work offline?
A: Yes. Nothing is downloaded at run time.

问：支持中文吗？
答：支持。中文文本按句号切分。

## Which runners are supported?
Every Beam runner: Direct, Flink and Dataflow.
"""


def test_one_chunk_per_question_answer_pair():
    chunks = build_strategy("faq", ChunkOptions(unit="chars", size=400)).chunk(make_doc(FAQ)).chunks
    texts = [c.text for c in chunks]
    assert texts[0] == "Frequently asked questions"
    assert texts[1] == "Q: How do I install it?\nA: Run pip install. It takes a minute."
    assert texts[3].startswith("问：支持中文吗？") and texts[3].endswith("中文文本按句号切分。")
    assert texts[4].startswith("## Which runners")
    assert chunks[4].metadata["question"] == "Which runners are supported?"
    assert len(chunks) == 5


def test_a_long_answer_is_split_and_every_piece_keeps_its_question():
    text = "Q: Why?\nA: " + "Because of a long reason. " * 30
    chunks = build_strategy("faq", ChunkOptions(unit="chars", size=120)).chunk(
        make_doc(text)).chunks
    assert len(chunks) > 2 and all(len(c.text) <= 120 for c in chunks)
    assert all(c.metadata["question"] == "Q: Why?" for c in chunks)


def test_question_lines_in_a_row_start_one_pair_and_a_trailing_question_none():
    text = "Why this?\nAnd why that?\nBecause.\n\nIs this the end?"
    assert question_starts(text) == [0]


def test_questions_in_verse_and_dialogue_are_not_an_faq():
    """A poem asks in quoted speech and in lines that end a sentence begun on the
    line before (after a comma): neither starts a question-answer pair; a plain
    question line after a finished sentence still does, and so does a marked one."""
    poem = ("The river sweats\nOil and tar,\n\n\"What is that noise?\"\n\n"
            "The wind under the door.\n\n"
            "\u201cAre you alive, or not?\u201d\n\nMy friend, my sister,\nwhere do you go?\n"
            "Over the bridge.\n")
    assert question_starts(poem) == []
    faq = "Intro text.\nIs it free?\nYes, it is.\n\"Quoted\" things,\nQ: What about this?\nA: Fine."
    assert [faq[s:s + 6] for s in question_starts(faq)] == ["Is it ", "Q: Wha"]


# --- log --------------------------------------------------------------------------------

LOG = """[2016-12-19 16:31:46,143] INFO KafkaConfig values:
advertised.host.name = null
broker.id = 0
[2016-12-19 16:31:47,001] INFO starting (kafka.server.KafkaServer)
[2016-12-19 16:31:48,210] ERROR request failed (kafka.network.Processor)
java.io.IOException: Connection reset by peer
\tat sun.nio.ch.FileDispatcherImpl.read0(Native Method)
\tat sun.nio.ch.SocketDispatcher.read(SocketDispatcher.java:39)
[2016-12-19 16:31:49,000] INFO shutting down (kafka.server.KafkaServer)
"""


def test_log_entries_with_stack_traces_are_never_split():
    chunks = build_strategy("log", ChunkOptions(unit="chars", size=260)).chunk(make_doc(LOG)).chunks
    trace = next(c for c in chunks if "ERROR" in c.text)
    assert "SocketDispatcher.java:39)" in trace.text
    for chunk in chunks:
        assert chunk.text.startswith("[2016-12-19")
    assert chunks[0].metadata["first_timestamp"] == "2016-12-19 16:31:46,143"
    assert chunks[-1].metadata["last_timestamp"] == "2016-12-19 16:31:49,000"


def test_an_entry_over_the_cap_is_split_between_lines():
    text = "2024-01-02T03:04:05Z start\n" + "".join(f"detail line {i}\n" for i in range(40))
    chunks = build_strategy("log", ChunkOptions(unit="chars", size=100)).chunk(
        make_doc(text)).chunks
    assert len(chunks) > 1 and all(len(c.text) <= 100 for c in chunks)
    assert all(c.text.endswith(tuple("0123456789")) for c in chunks)


# --- table ------------------------------------------------------------------------------

def test_table_rows_are_grouped_and_the_header_goes_with_every_group():
    rows = "\n".join(f"Zone {i} | {i * 100} | {i * 7}" for i in range(40))
    table = "Region | Sales | Profit\n" + rows
    intro = "Sales by region, first half."
    text = f"{intro}\n\n{table}"
    spans = (TextSpan(0, len(intro), BlockKind.PARAGRAPH),
             TextSpan(len(intro) + 2, len(text), BlockKind.TABLE))
    doc = make_doc(text, spans)
    chunks = build_strategy("table", ChunkOptions(unit="chars", size=200)).chunk(doc).chunks
    assert chunks[0].text == intro
    assert chunks[1].text.startswith("Region | Sales | Profit\nZone 0 |")
    for chunk in chunks[2:]:
        assert chunk.metadata[TABLE_HEADER_KEY] == "Region | Sales | Profit"
        assert chunk.text.startswith("Zone ") and chunk.text.split("\n")[-1].count("|") == 2
        assert len(chunk.text) + len("Region | Sales | Profit") <= 200
    rows_out = chunk_rows(doc, chunks, "table", "cfg", CharSizer(), embed_text=True)
    assert rows_out[2]["context"] == "Region | Sales | Profit"
    assert rows_out[2]["embed_text"] == "Region | Sales | Profit\n\n" + chunks[2].text


def test_csv_text_records_continue_inside_quotes():
    text = 'id,title,body\n1,"first","line one\nline two"\n2,"second","short"\n' * 5
    chunks = build_strategy("table", ChunkOptions(unit="chars", size=60)).chunk(
        make_doc(text)).chunks
    for chunk in chunks:
        assert chunk.text.count('"') % 2 == 0, "a quoted cell is never cut"


def test_c_functions_are_cut_above_the_comment_block_that_documents_them():
    source = "\n\n".join(
        f"/* Adds {i}. */\n// Pure.\nint add{i}(int a) {{\n    return a + {i};\n}}"
        for i in range(6))
    cuts = generic_cuts(source, 0, len(source))
    assert cuts == [source.index(f"/* Adds {i}.") for i in range(1, 6)]
    chunks = build_strategy("code", ChunkOptions(unit="chars", size=60)).chunk(
        make_doc(source)).chunks
    assert all(c.text.startswith("/* Adds") and c.text.endswith("}") for c in chunks)
