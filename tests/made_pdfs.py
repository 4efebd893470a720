"""Small real PDFs written by the tests: pages of lines in Helvetica at given sizes, an
Info dictionary and an outline (bookmarks) pointing at pages. Tika and PDFium read
them like any other PDF."""

from __future__ import annotations

import io
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Line:
    text: str
    size: float = 10.0
    bold: bool = False
    x: float = 72.0
    gap: float | None = None  # space above the line, points (default: 1.6 × its size)
    lead: str = ""  # words set in bold before ``text`` on the line (a run-in label)


@dataclass
class MadePdf:
    pages: list[list[Line]]
    title: str | None = None  # the Info dictionary's /Title
    producer: str | None = None
    # (level from 1, title, 1-based page) in outline order
    outline: list[tuple[int, str, int]] = field(default_factory=list)


def _escape(text: str) -> bytes:
    return (text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            .encode("cp1252"))  # WinAnsiEncoding


def _page_stream(lines: list[Line]) -> bytes:
    y = 760.0
    out = []
    for line in lines:
        y -= line.gap if line.gap is not None else 1.6 * line.size
        font = b"/F2" if line.bold else b"/F1"
        if line.lead:  # the label in bold, the text after it on the same line
            out.append(b"BT %g %g Td /F2 %g Tf (%s) Tj %s %g Tf (%s) Tj ET" % (
                line.x, y, line.size, _escape(line.lead), font, line.size,
                _escape(line.text)))
            continue
        out.append(b"BT %s %g Tf %g %g Td (%s) Tj ET" % (font, line.size, line.x, y,
                                                          _escape(line.text)))
    return b"\n".join(out)


def render(pdf: MadePdf) -> bytes:
    objects: dict[int, bytes] = {
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold "
           b"/Encoding /WinAnsiEncoding >>",
    }
    resources = b"<< /Font << /F1 3 0 R /F2 4 0 R >> >>"
    kids = []
    for lines in pdf.pages:
        number = max(objects) + 1
        stream = _page_stream(lines)
        objects[number] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                           + resources + b" /Contents %d 0 R >>" % (number + 1))
        objects[number + 1] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
        kids.append(number)
    catalog = b"<< /Type /Catalog /Pages 2 0 R"
    if pdf.outline:
        root = max(objects) + 1
        items = list(range(root + 1, root + 1 + len(pdf.outline)))
        parents: list[int] = []  # per outline entry, the object it hangs under
        children: dict[int, list[int]] = {root: []}
        stack: list[tuple[int, int]] = []  # (level, object)
        for (level, _, _), number in zip(pdf.outline, items, strict=True):
            while stack and stack[-1][0] >= level:
                stack.pop()
            parent = stack[-1][1] if stack else root
            parents.append(parent)
            children.setdefault(parent, []).append(number)
            children.setdefault(number, [])
            stack.append((level, number))
        for (_, title, page), number, parent in zip(pdf.outline, items, parents, strict=True):
            siblings = children[parent]
            at = siblings.index(number)
            entry = b"<< /Title (%s) /Parent %d 0 R /Dest [%d 0 R /XYZ 0 792 0]" % (
                _escape(title), parent, kids[page - 1])
            if at > 0:
                entry += b" /Prev %d 0 R" % siblings[at - 1]
            if at + 1 < len(siblings):
                entry += b" /Next %d 0 R" % siblings[at + 1]
            if children[number]:
                entry += b" /First %d 0 R /Last %d 0 R /Count %d" % (
                    children[number][0], children[number][-1], len(children[number]))
            objects[number] = entry + b" >>"
        objects[root] = b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (
            children[root][0], children[root][-1], len(children[root]))
        catalog += b" /Outlines %d 0 R /PageMode /UseOutlines" % root
    info = None
    if pdf.title is not None or pdf.producer is not None:
        info = max(objects) + 1
        fields = b""
        if pdf.title is not None:
            fields += b" /Title (%s)" % _escape(pdf.title)
        if pdf.producer is not None:
            fields += b" /Producer (%s)" % _escape(pdf.producer)
        objects[info] = b"<<" + fields + b" >>"
    return serialise(objects, kids, catalog, info)


def serialise(objects: dict[int, bytes], kids: list[int],
              catalog: bytes = b"<< /Type /Catalog /Pages 2 0 R", info: int | None = None
              ) -> bytes:
    """A PDF file of ``objects`` (numbers 3 and up) whose pages are objects ``kids``: the
    catalog (1, ``catalog`` closed), the page tree (2) and a correct xref table; ``info``:
    the number of the document information object, if any."""
    objects = dict(objects)
    objects[1] = catalog + b" >>"
    objects[2] = (b"<< /Type /Pages /Count %d /Kids [" % len(kids)
                  + b" ".join(b"%d 0 R" % k for k in kids) + b"] >>")
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = out.tell()
        out.write(b"%d 0 obj\n" % number + objects[number] + b"\nendobj\n")
    xref = out.tell()
    size = max(objects) + 1
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % size)
    out.write(b"".join(b"%010d 00000 n \n" % offsets[n] for n in range(1, size)))
    trailer = b"<< /Size %d /Root 1 0 R" % size
    if info is not None:
        trailer += b" /Info %d 0 R" % info
    out.write(b"trailer\n" + trailer + b" >>\nstartxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


PROSE = ("The harbour authority inspected every crane on the northern quay during the "
         "spring survey, and the engineers recorded the condition of each brake, cable and "
         "motor in the maintenance log kept at the harbour office for that purpose.")


def prose_lines(text: str = PROSE, width: int = 80, size: float = 10.0) -> list[Line]:
    """``text`` wrapped at ``width`` characters, as body lines."""
    words, lines, current = text.split(), [], ""
    for word in words:
        if current and len(current) + 1 + len(word) > width:
            lines.append(Line(current, size))
            current = word
        else:
            current = f"{current} {word}".strip()
    if current:
        lines.append(Line(current, size))
    return lines


def extract_and_clean(data: bytes, name: str = "made.pdf"):
    """The pipeline's single-file path (real Tika, the layout pass, default cleaning)."""
    from ragbeam.pipeline.config import ExtractOptions
    from ragbeam.transforms.clean.document import CleanOptions, clean_or_refuse
    from ragbeam.transforms.ids import sha256_hex
    from ragbeam.transforms.types import FetchedFile, SourceFile

    fetched = FetchedFile(SourceFile(f"/in/{name}", name, len(data)), data, sha256_hex(data))
    extractor = ExtractOptions().file_extractor()
    return clean_or_refuse(extractor.extract(fetched), CleanOptions())
