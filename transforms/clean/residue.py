"""Machine residue: text no reader wrote and no reader wants to retrieve (pure).

Extraction can hand over bytes that were never meant to be read: a PDF's
dictionaries and PostScript settings, an XMP metadata packet, hex or base64
strings of fonts and images, binary remnants decoded as text. The root cause
of the worst case, a PDF's attached Acrobat Distiller job options, is handled
at extraction (embedded resources are left out, ``extract/xhtml.py``); this
step is the safety net for residue that arrives any other way. The rules, in
the order they are applied, look at a line's shape only, never at words:

1. **blob**: a line that is mostly (``BLOB_LINE_SHARE``) one or more runs of
   hex digits or base64 of at least ``MIN_BLOB_CHARS`` characters (a SHA-256
   in a sentence is 64 characters and stays);
2. **binary**: a line whose characters are at least ``BINARY_SHARE``
   replacement characters (U+FFFD) or private-use code points. Where such a line
   is an inline formula (a math font without a Unicode map: ``� = �� + � (1)``), the
   symbols a sentence reads go on with it: its single letters, numbers, Greek
   letters, operators and equation numbers stay (``formula_tokens``), and so do the
   sentence's words before its first unreadable character and after its last where
   they read as words (``reads_as_words``: a Korean thesis's formulas are glued to
   the end of its sentences); only the unreadable characters and the words between
   them go;
3. **dictionary**: a run of at least ``MIN_DICT_LINES`` consecutive lines made
   only of PDF/PostScript tokens (``/Name``, ``<<``, ``>>``, numbers,
   ``(strings)``, ``<hex>``, ``true``, a few operators such as
   ``setdistillerparams``), one of them a dictionary delimiter and at least
   half of them holding a ``/Name``;
4. **XMP**: a line holding an XMP packet marker (``<?xpacket``,
   ``<x:xmpmeta``), or a run of at least two lines of RDF/XMP markup;
5. a block (a source paragraph, a table) that is mostly residue
   (``BLOCK_SHARE`` of its characters) goes whole, but for the formula tokens
   of its lines; where its residue is binary lines only (formula lines in a
   paragraph of prose), its lines without an unreadable character that read as
   words stay whole.

Besides these, ``citation_errors`` takes out of a line (not the line) the messages a
wiki's citation templates print into a reference when they are misused, which a
browser's print of the page keeps: MediaWiki's Citation Style 1 errors
("{{cite web}}: Unknown parameter |deadurl= ignored (|url-status= suggested) (help)")
and maintenance notes ("CS1 maint: archived copy as title (link)"). They are the
template's words to the page's editors, read by no reader of the article; the
reference itself stays. A message broken over lines of its block is found whole.

Code blocks are checked for binary remnants only: a PDF dictionary or a hex
test vector in a code listing was put there by its author.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

MIN_BLOB_CHARS = 80
BLOB_LINE_SHARE = 0.6
BINARY_SHARE = 0.3
MIN_BINARY_CHARS = 8
MIN_DICT_LINES = 3
BLOCK_SHARE = 0.5

_HEX_RUN = re.compile(rf"[0-9A-Fa-f]{{{MIN_BLOB_CHARS},}}")
_BASE64_RUN = re.compile(rf"[A-Za-z0-9+/]{{{MIN_BLOB_CHARS},}}={{0,2}}")
_BLOB_CHARACTERS_RUN = re.compile(rf"[A-Za-z0-9+/]{{{MIN_BLOB_CHARS}}}")
BINARY_CHAR = re.compile("[\ufffd\ue000-\uf8ff]")
_PS_OPERATORS = ("true|false|null|R|obj|endobj|stream|endstream|def|begin|end|dict|xref|"
                 "trailer|startxref|setdistillerparams|setpagedevice|currentdistillerparams|"
                 "setparams|pop|exch|dup")
_PS_TOKEN = re.compile(
    r"<<|>>|\[|\]|/[^\s/\[\]<>(){}%]*|[-+]?\d*\.?\d+|\((?:[^()\\]|\\.)*\)|<[0-9A-Fa-f\s]*>"
    rf"|(?:{_PS_OPERATORS})(?![\w/])")
# A line of tokens and spaces only, read as a left-to-right search for each next token
# would (each token as the first alternative that matches where it starts, never
# taken back: atomic groups), in one C call.
_PS_TOKENS = re.compile(rf"(?:\s*+(?>{_PS_TOKEN.pattern}))*+\s*+")
_PS_FIRST = frozenset("/<>[]()+-.0123456789")
_PS_WORDS = frozenset(_PS_OPERATORS.split("|"))
_PS_WORD_PREFIX = max(map(len, _PS_WORDS)) + 1
_PS_WORD_STARTS = tuple(_PS_WORDS)
_PS_DELIMITER = re.compile(r"<<|>>|\b\d+ \d+ obj\b")
_XMP_PACKET = re.compile(r"<\?xpacket|<x:xmpmeta|</x:xmpmeta")
# XMP's own prefixes, as elements or declared: an XML sample in a document's text
# (``xmlns:xlink=…`` in a markup guide) declares others and stays.
_XMP_PREFIXES = (r"(?:rdf|x|xmp\w*|stEvt|stRef|stFnt|pdfx?|photoshop|tiff|exif|"
                 r"illustrator|xmpG\w*|dc|crs)")
_XMP_MARKUP = re.compile(rf"</?{_XMP_PREFIXES}:\w+|xmlns:{_XMP_PREFIXES}=")


def _blob_chars(line: str) -> int:
    if not _BLOB_CHARACTERS_RUN.search(line):
        return 0  # every hex run is a base64 run too: no run that long, no blob (most lines)
    hex_chars = sum(len(m) for m in _HEX_RUN.findall(line))
    base64_chars = sum(len(m) for m in _BASE64_RUN.findall(line)
                       if re.search(r"\d", m) and re.search(r"[a-z]", m)
                       and re.search(r"[A-Z]", m))
    return max(hex_chars, base64_chars)


def is_blob_line(line: str) -> bool:
    """Mostly hex or base64 runs (font, image or key data)."""
    stripped = line.strip()
    if len(stripped) < MIN_BLOB_CHARS:
        return False
    return _blob_chars(stripped) >= BLOB_LINE_SHARE * len(stripped)


def is_binary_line(line: str) -> bool:
    """Mostly replacement or private-use characters: bytes decoded as text."""
    if line.isascii():
        return False
    found = len(BINARY_CHAR.findall(line))
    visible = len(line) - line.count(" ")
    return found >= MIN_BINARY_CHARS and found >= BINARY_SHARE * visible


def is_dictionary_line(line: str) -> bool:
    """Only PDF/PostScript tokens (a line of numbers is one too: runs decide)."""
    stripped = line.strip()
    # The first word from the line's start only (splitting a long line copies all of it):
    # an operator is shorter than the prefix, so a word the prefix cuts is none.
    if not stripped or not (stripped[0] in _PS_FIRST
                            or stripped[:_PS_WORD_PREFIX].split(None, 1)[0] in _PS_WORDS):
        return False  # the usual line, prose: no token can start it
    return _PS_TOKENS.fullmatch(stripped) is not None


def _is_xmp_markup(line: str) -> bool:
    return ("<" in line or "=" in line) and bool(_XMP_MARKUP.search(line))


@dataclass(frozen=True)
class Residue:
    """Indexes of residue lines, and how many of them each rule found; ``kept``: the
    formula tokens that stay of binary lines and of lines in a residue block
    (index → the line's new text)."""

    lines: frozenset[int]
    by_rule: dict[str, int]
    kept: dict[int, str] = field(default_factory=dict)


# What a sentence reads in an inline formula: one letter (any script), a number, a
# Greek word, an operator of one or two characters, an equation number "(12)".
_FORMULA_TOKEN = re.compile(r"^(?:[^\W\d_]|[-+]?\d+(?:[.,]\d+)*|[\u0370-\u03ff]+"
                            r"|[=<>+\-*/±×÷≤≥≠≈∈∑∏√∞∂∇|^_]{1,2}|\(\d{1,3}[a-z]?\))$")


def formula_tokens(line: str) -> str:
    """A line less its unreadable characters, keeping only what an inline formula in a
    sentence reads (``_FORMULA_TOKEN``): ``x``, ``2``, ``α``, ``=``, ``(1)``; and the
    sentence the formula stands in, before its first unreadable character and after its
    last, where that reads as words (``reads_as_words``)."""
    first = BINARY_CHAR.search(line)
    if first is None:  # a line of a residue block
        return " ".join(token for token in line.split() if _FORMULA_TOKEN.match(token))
    last = max(m.start() for m in BINARY_CHAR.finditer(line))
    before, after = line[:first.start()], line[last + 1:]
    tokens = BINARY_CHAR.sub(" ", line[first.start():last + 1]).split()
    middle = " ".join(token for token in tokens if _FORMULA_TOKEN.match(token))
    if not reads_as_words(before):
        before = " ".join(t for t in before.split() if _FORMULA_TOKEN.match(t))
    if not reads_as_words(after):
        after = " ".join(t for t in after.split() if _FORMULA_TOKEN.match(t))
    return " ".join(part.strip() for part in (before, middle, after) if part.strip())


# A word of a sentence: two or more letters, punctuation at its edges.
_WORD = re.compile(r"^[(\[\"'“‘]*[^\W\d_]{2,}[^\W_]*[)\]\"'”’.,;:!?]*$")


def reads_as_words(text: str) -> bool:
    """At least two words (``_WORD``), and words the most of its tokens: a sentence's
    words, not the letters that bytes decoded as text happen to make (binary data
    meets an unreadable character every few bytes)."""
    tokens = text.split()
    words = sum(1 for token in tokens if _WORD.match(token))
    return words >= 2 and 2 * words >= len(tokens)


def find_residue(lines: Sequence[str], blocks: Sequence[int], code: Sequence[bool]) -> Residue:
    """Residue lines of one document.

    ``lines``: its cleaned lines in order; ``blocks[i]``: the source block of line
    ``i``; ``code[i]``: the line is in a code block (checked for binary remnants only).
    """
    found: dict[int, str] = {}
    # Each line's shape tests in one pass (they are pure; the runs below read what they
    # found), each rule asked only where what it needs first is there: a blob's length,
    # a character that is not ASCII, a "<" or "=", a token or operator to start with.
    dictionary: list[int] = []
    markup: list[int] = []
    for i, line in enumerate(lines):
        if code[i]:
            if not line.isascii() and is_binary_line(line):
                found[i] = "binary"
            continue
        if len(line) >= MIN_BLOB_CHARS and is_blob_line(line):
            found[i] = "blob"
        elif not line.isascii() and is_binary_line(line):
            found[i] = "binary"
        elif "<" in line and _XMP_PACKET.search(line):
            found[i] = "xmp"
        first = line[:1]
        if ((first in _PS_FIRST or first.isspace() or line.startswith(_PS_WORD_STARTS))
                and is_dictionary_line(line)):
            dictionary.append(i)
        if ("<" in line or "=" in line) and _XMP_MARKUP.search(line):
            markup.append(i)
    _mark_runs(code, found, dictionary, MIN_DICT_LINES, "dictionary",
               lambda run: any(_PS_DELIMITER.search(lines[i]) for i in run)
               and 2 * sum("/" in lines[i] for i in run) >= len(run))
    _mark_runs(code, found, markup, 2, "xmp", lambda run: True)
    _mark_blocks(lines, blocks, found)
    kept = {i: text for i, rule in found.items() if rule in ("binary", "block")
            and (text := formula_tokens(lines[i]))}
    by_rule: dict[str, int] = {}
    for rule in found.values():
        by_rule[rule] = by_rule.get(rule, 0) + 1
    return Residue(frozenset(found), by_rule, kept)


def _mark_runs(code: Sequence[bool], found: dict[int, str], passing: list[int],
               min_lines: int, rule: str, accept) -> None:
    """Runs of at least ``min_lines`` consecutive non-code lines that pass the rule's
    test (``passing``: their indexes, none of code) or are residue found before (a hex
    string in a dictionary). Only those lines are walked: most lines are in no run."""
    members = sorted({i for i in found if not code[i]}.union(passing))
    run: list[int] = []
    for i in [*members, -2]:  # -2: follows no line, ends the last run
        if run and i == run[-1] + 1:
            run.append(i)
            continue
        own = [j for j in run if j not in found]
        if len(run) >= min_lines and own and accept(run):
            found.update(dict.fromkeys(own, rule))
        run = [i]


def _mark_blocks(lines: Sequence[str], blocks: Sequence[int], found: dict[int, str]) -> None:
    """A block mostly made of residue lines goes whole."""
    if not found:
        return  # no residue line, no block of them (most documents)
    residue: dict[int, int] = {}
    for i in found:
        residue[blocks[i]] = residue.get(blocks[i], 0) + len(lines[i])
    total: dict[int, int] = {}  # the lengths of the blocks that hold residue only
    for i, line in enumerate(lines):
        if blocks[i] in residue:
            total[blocks[i]] = total.get(blocks[i], 0) + len(line)
    mostly = {block for block, n in residue.items() if n >= BLOCK_SHARE * total[block]}
    # A block whose residue is binary lines only may be prose around formula lines set
    # in a font without a Unicode map: its lines with no unreadable character that read
    # as words are the sentence's, and stay.
    other_rules = {blocks[i] for i, rule in found.items() if rule != "binary"}
    for i in range(len(lines)):
        if blocks[i] in mostly and i not in found:
            if (blocks[i] not in other_rules and not BINARY_CHAR.search(lines[i])
                    and reads_as_words(lines[i])):
                continue
            found[i] = "block"


# A wiki citation template's error message, "{{cite web}}: <messages> (help)" (several
# joined by ";", each closed by its "(help)" link), or its maintenance note, "CS1 maint:
# <category> (link)"; a message's parentheses ("(|url-status= suggested)") are its own.
# Bounded: a message is a short phrase, never a paragraph.
_MESSAGE = r"(?:[^()\[\]{}]|\([^()]{0,60}\)){0,160}?"
CITATION_ERROR = re.compile(
    rf"\{{\{{\s*(?:[Cc]ite|[Cc]itation)\b[^{{}}]{{0,40}}\}}\}}:\s*{_MESSAGE}\(help\)"
    rf"(?:\s*;\s*{_MESSAGE}\(help\))*"
    rf"|\bCS1 maint:\s*{_MESSAGE}\(link\)")


def citation_errors(lines: Sequence[str], blocks: Sequence[int],
                    code: Sequence[bool]) -> dict[int, str]:
    """``{line: its text without the citation template messages in it}`` of the lines
    that held some ("" where nothing else was on the line); the lines of a block are read
    together, so a message broken over two lines is found. Code is left alone."""
    marked = {blocks[i] for i, line in enumerate(lines)
              if not code[i] and ("{{" in line or "}}:" in line or "CS1 maint" in line)}
    if not marked:
        return {}  # most documents: no wiki's print
    changed: dict[int, str] = {}
    i = 0
    while i < len(lines):
        j = i + 1
        while j < len(lines) and blocks[j] == blocks[i]:
            j += 1
        if blocks[i] in marked and not code[i]:
            joined = "\n".join(lines[i:j])
            spans = [m.span() for m in CITATION_ERROR.finditer(joined)]
            if spans:
                removed = bytearray(len(joined))
                for a, b in spans:
                    removed[a:b] = b"\x01" * (b - a)
                start = 0
                for k in range(i, j):
                    end = start + len(lines[k])
                    if any(removed[start:end]):
                        text = "".join(c for c, gone in zip(lines[k], removed[start:end],
                                                            strict=True) if not gone)
                        changed[k] = " ".join(text.split())
                    start = end + 1
        i = j
    return changed
