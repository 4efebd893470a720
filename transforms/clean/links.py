"""Link targets a web page's print writes after each link: "Official website
(https://www.supremecourt.gov/)", "… (http://www.playbill.com/news/article/…). Playbill.".

A browser printing a page (a print style sheet) writes an external link's URI in
parentheses after the link's words; the PDF keeps the same link as an annotation, which
extraction records as the page's links (``extract_links``) and never as text. The
printed copy is no words of the document: half of a printed encyclopedia article's
reference chunks are such URIs, which a reader skips and a retriever matches on their
path's words. So, in a document that has link annotations, a parenthesised absolute
URI is removed with the space before it; one that the line ends inside ("(http://…&com",
"(http") is removed to the line's end and its rest from the start of the next line, up
to the closing parenthesis ("mit.x=13&commit.y=13). TV Tango." → ". TV Tango."). A URI
written without parentheses ("Retrieved from https://…", "visit www.sec.gov") is the
page's own sentence and stays.

A plain-text copy of such a print (its text extracted, then saved) has the same targets
and no annotations: there the print is known by targets the print wrapped inside their
URI ("(https://www.exa" / "mple.com/…)"), which a writer typing text never does (a tool
that wraps typed text breaks between words): ``printed_targets_in_text``.

Two more kinds of link syntax are no words of a document:

* **MediaWiki's print footer**, ``Retrieved from "https://…/index.php?title=…&oldid=…"``,
  the line a wiki's print style sheet adds at a printed article's end (the article's
  permanent link, quoted, a line of its own): ``strip_print_footer``.
* **Markdown's link syntax**, ``[words](target "title")`` and ``![alt](image)``: a reader
  of the rendered page sees the words (an image its alt text); the target is the
  document's link (the Markdown reader records it as ``extract_links``), not text:
  ``markdown_link_words``. A URI the document writes as its text (``<https://…>``, a bare
  ``https://…``) stays.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# " (https://host/path)": a parenthesised absolute URI, no space inside.
_TARGET = re.compile(r"[ \t]*\((?:https?|ftp)://[^\s()]*(?:\([^\s()]*\)[^\s()]*)*\)")
# A line that ends inside one: its last "(" and what follows, no space ("(https://www.wa",
# "(ht").
_OPEN_TAIL = re.compile(r"[ \t]*\([^\s()]*$")
# What a following line holds of it: its start up to the closing parenthesis, or all of
# it where the target runs on.
_TARGET_PART = re.compile(r"^[^\s()]*\)?")
_WHOLE_TARGET = re.compile(r"^\((?:https?|ftp)://[^\s()]+\)$")
# Punctuation that closes the words a link target followed.
_CLOSING = re.compile(r"^[.,;:!?]+")
# The most lines a printed target runs over (a long archive link: three or four).
MAX_TARGET_LINES = 5
# Document metadata: a document's links, as JSON [{"page": …, "uri": …}, …], kept
# out of its text by extraction (a PDF's link annotations, a Markdown file's targets).
LINKS_KEY = "extract_links"


def strip_link_targets(lines: Sequence[str]) -> tuple[list[str], int]:
    """The lines without the printed link targets (module docstring), and how many were
    removed. A line may become empty (the caller drops it)."""
    out, removed, _ = _strip_link_targets(lines)
    return out, removed


# Targets wrapped inside their URI that mark a plain text as a web page's print.
MIN_WRAPPED_TARGETS = 3


def printed_targets_in_text(lines: Sequence[str]) -> tuple[list[str], int]:
    """``strip_link_targets`` for a typed (plain-text) document: applied only where at
    least ``MIN_WRAPPED_TARGETS`` of its targets were wrapped inside their URI (a print's
    signature, module docstring); otherwise the lines as they are and 0."""
    out, removed, wrapped = _strip_link_targets(lines)
    if wrapped < MIN_WRAPPED_TARGETS:
        return list(lines), 0
    return out, removed


def _strip_link_targets(lines: Sequence[str]) -> tuple[list[str], int, int]:
    """``strip_link_targets``, and how many of the targets removed were wrapped."""
    out = list(lines)
    removed = wrapped = 0
    for i, line in enumerate(out):
        if "(" not in line:
            continue
        if "://" in line:
            line, n = _TARGET.subn("", line)
            removed += n
            out[i] = line
        opened = _OPEN_TAIL.search(line)
        if opened is None:
            continue
        joined, cuts = opened.group().strip(), []
        for j in range(i + 1, min(i + MAX_TARGET_LINES, len(out))):
            part = _TARGET_PART.match(out[j])
            if part is None or (not part.group().endswith(")") and part.end() < len(out[j])):
                break  # text, not the rest of a link target
            joined += part.group()
            cuts.append((j, part.end()))
            if joined.endswith(")"):
                break
        if joined.endswith(")") and _WHOLE_TARGET.match(joined):
            for j, end in cuts:
                out[j] = out[j][end:]
            # Punctuation after it closes the link's words on their own line
            # ('"Season 2" (ht' / 'tps://…). TV Tango.' → '"Season 2".' / 'TV Tango.').
            last = cuts[-1][0]
            closing = _CLOSING.match(out[last])
            out[i] = line[:opened.start()] + (closing.group() if closing else "")
            if closing:
                out[last] = out[last][closing.end():].lstrip()
            removed += 1
            wrapped += 1
    return out, removed, wrapped


# MediaWiki's print footer: 'Retrieved from "https://…"' (straight or curly quotes), the
# whole line; one the line ends inside ('Retrieved from "https://…&old') runs on over
# the next lines, each one token, up to the closing quote.
_FOOTER = re.compile(r'^Retrieved from ["\u201c](?:https?://)[^\s"\u201d]*(["\u201d])?$')
_FOOTER_PART = re.compile(r'^[^\s"\u201d]*["\u201d]?$')


def strip_print_footer(lines: Sequence[str]) -> tuple[list[str], int]:
    """The lines without MediaWiki's print footer (module docstring), emptied in place,
    and how many footers were removed."""
    out = list(lines)
    removed = 0
    for i, line in enumerate(out):
        if not line.startswith("Retrieved from"):
            continue
        found = _FOOTER.match(line.strip())
        if found is None:
            continue
        ends = [i]
        if found.group(1) is None:  # wrapped: its rest on the next lines
            for j in range(i + 1, min(i + MAX_TARGET_LINES, len(out))):
                part = out[j].strip()
                if not part or not _FOOTER_PART.match(part):
                    ends = []
                    break
                ends.append(j)
                if part[-1] in '"\u201d':
                    break
            else:
                ends = []
            if len(ends) < 2 or out[ends[-1]].strip()[-1] not in '"\u201d':
                continue
        for j in ends:
            out[j] = ""
        removed += 1
    return out, removed


# Markdown's link and image syntax: "[words](target)", '[words](<target> "title")',
# "![alt](image)"; a target may hold one level of parentheses (".../Foo_(bar)").
_DEST = r"\(\s*(?P<dest>(?:<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*))" \
        r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?\s*\)"""
_MD_IMAGE = re.compile(r"!\[([^\[\]\n]*)\]" + _DEST)
_MD_LINK = re.compile(r"(?<!\\)\[([^\[\]\n]*)\]" + _DEST)
_CODE_SPAN = re.compile(r"(`+)[^`].*?\1|`+")


def markdown_link_words(line: str, absolute_only: bool = False) -> tuple[str, int]:
    """A Markdown line with each link as its words and each image as its alt text
    (module docstring), outside code spans; and how many links and images were
    rewritten. ``absolute_only``: only those whose target is an absolute URI (Markdown
    written into a plain text: "[words](https://…)" is link syntax there too, where
    "[1](a)" may be the text's own)."""
    if "](" not in line:
        return line, 0
    parts: list[str] = []
    count = 0
    last = 0
    for code in _CODE_SPAN.finditer(line):
        text, n = _link_words(line[last:code.start()], absolute_only)
        parts += [text, code.group()]
        count += n
        last = code.end()
    text, n = _link_words(line[last:], absolute_only)
    parts.append(text)
    return "".join(parts), count + n


_ABSOLUTE = re.compile(r"""^[<"']?(?:https?|ftp)://\S""")


def _link_words(text: str, absolute_only: bool) -> tuple[str, int]:
    rewritten = 0

    def words(found: re.Match[str]) -> str:
        nonlocal rewritten
        if absolute_only and not _ABSOLUTE.match(found.group("dest")):
            return found.group()
        rewritten += 1
        return found.group(1)

    text = _MD_LINK.sub(words, _MD_IMAGE.sub(words, text))
    return text, rewritten
