"""Code chunking: whole functions and classes, never cut when they fit.

Python is cut with ``ast``: one unit per top-level statement, a function or
class starting at its first decorator and taking along the comment lines
directly above it (its docstring is inside it already). Text that does not
parse as Python is cut with language-neutral rules: before every line at
column 0 that follows a blank line or opens a definition (``def``, ``class``,
``func``, ``fn``, ``function``, ``interface``, ``struct``, ``impl``…), again with the
comments directly above it. Units are then packed up to ``size``
(``units.py``); a unit over ``size`` on its own (a large class) is split
recursively inside, where blank lines between methods come first on the ladder.
"""

from __future__ import annotations

import ast
import re

from ragbeam.transforms.chunk.base import (
    ChunkingResult,
    SizedStrategy,
    spans_to_chunks,
)
from ragbeam.transforms.chunk.units import pack_units, units_between
from ragbeam.transforms.types import Document

_COMMENT_LINE = re.compile(r"[^\S\n]*(?:#|//|/\*|\*|--|;)")
_DEFINITION = re.compile(
    r"(?:export\s+|public\s+|private\s+|protected\s+|static\s+|async\s+|pub(?:\([^)]*\))?\s+)*"
    r"(?:def|class|func|fn|function|interface|struct|enum|impl|trait|type|module|package"
    r"|sub|proc|procedure|object|record)\b")
_CLOSER = re.compile(r"[}\])]|end\b")


# Line breaks as Python's tokenizer counts them (ast line numbers): CR LF, CR, LF.
_PY_LINE_BREAK = re.compile(r"\r\n?|\n")


def _line_starts(text: str, start: int, end: int) -> list[int]:
    return [start, *(m.end() for m in _PY_LINE_BREAK.finditer(text, start, end))]


def _with_comments_above(text: str, line_starts: list[int], line: int) -> int:
    """Index of the first line of the comment block directly above ``line``."""
    while line > 0:
        above = text[line_starts[line - 1]:line_starts[line]]
        if not above.strip() or not _COMMENT_LINE.match(above):
            break
        line -= 1
    return line


def python_cuts(text: str, start: int, end: int) -> list[int] | None:
    """Offsets before each top-level Python statement; None if it is not Python."""
    try:
        tree = ast.parse(text[start:end])
    except (SyntaxError, ValueError):
        return None
    line_starts = _line_starts(text, start, end)
    cuts = []
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))]) - 1
        cuts.append(line_starts[_with_comments_above(text, line_starts, first)])
    return cuts


def generic_cuts(text: str, start: int, end: int) -> list[int]:
    """Offsets before top-level blocks of code in any brace- or keyword-based language."""
    line_starts = _line_starts(text, start, end)
    cuts = []
    for i, pos in enumerate(line_starts):
        line = text[pos:line_starts[i + 1] if i + 1 < len(line_starts) else end]
        if not line[:1].strip() or _CLOSER.match(line) or _COMMENT_LINE.match(line):
            continue  # indented, blank, a closing line, or a comment (it joins what follows)
        first = _with_comments_above(text, line_starts, i)  # its comments come along
        after_blank = first > 0 and not text[line_starts[first - 1]:line_starts[first]].strip()
        if after_blank or _DEFINITION.match(line):
            cuts.append(line_starts[first])
    return cuts


class CodeStrategy(SizedStrategy):
    name = "code"

    def chunk(self, doc: Document) -> ChunkingResult:
        text = doc.text
        cuts = python_cuts(text, 0, len(text))
        parsed_as_python = cuts is not None
        if cuts is None:
            cuts = generic_cuts(text, 0, len(text))
        units = units_between(text, cuts, 0, len(text))
        spans, hard_cuts = pack_units(text, units, self.size, self.sizer, self.overlap)
        return ChunkingResult(spans_to_chunks(doc, spans),
                              {"hard_cuts": hard_cuts, "code_units": len(units),
                               "python_ast": int(parsed_as_python)})
