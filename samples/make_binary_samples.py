"""Regenerate the binary samples (PDF, DOCX) in this folder from plain text.

Written by hand so the samples need no office suite: a minimal PDF with
Helvetica text (running header, body, page-number footer on every page) and a
minimal DOCX with real Heading styles. Run: python samples/make_binary_samples.py
"""

from __future__ import annotations

import pathlib
import zipfile

HERE = pathlib.Path(__file__).parent

PAGES = [
    ("1 Safety on the water",
     ["Every trip on the lake starts at the front desk. Write down who is going,",
      "which boat you take, where you are heading and when you expect to be back.",
      "Take the radio that hangs next to the boat keys and check its battery.",
      "",
      "Life jackets are mandatory for everyone on board, including experienced",
      "staff. Wind on the lake can rise within minutes in the afternoon; turn",
      "back when white caps appear on the open water."]),
    ("2 Cold-water emergencies",
     ["If someone falls into cold water, keep them talking and get them out of",
      "the water as fast as it is safe to do so. Remove wet clothing, wrap them",
      "in the emergency blanket from the boat kit and call the station by radio.",
      "",
      "Hypothermia can set in long after the person is back on land. Someone",
      "must stay with them until they are warm and fully alert."]),
    ("3 Reporting incidents",
     ["Report every incident the same day, even when nobody was hurt. Near",
      "misses are how the station learns where its procedures are weak.",
      "",
      "Reports go to the station manager, who reviews them every Friday and",
      "publishes a short summary for all current visitors."]),
]
HEADER = "Lakeside Field Station - Boating Safety Guide"


def _pdf_text(s: str) -> str:
    return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(path: pathlib.Path) -> None:
    objects: list[bytes] = []
    page_ids = []
    font_id = 3
    for number, (title, lines) in enumerate(PAGES, start=1):
        ops = ["BT /F1 9 Tf 72 800 Td (" + _pdf_text(HEADER) + ") Tj ET",
               "BT /F1 14 Tf 72 760 Td (" + _pdf_text(title) + ") Tj ET",
               "BT /F1 11 Tf 72 730 Td 15 TL"]
        for line in lines:
            ops.append("(" + _pdf_text(line) + ") Tj T*" if line else "T*")
        ops.append("ET")
        ops.append(f"BT /F1 9 Tf 290 40 Td (Page {number} of {len(PAGES)}) Tj ET")
        stream = "\n".join(ops).encode("latin-1")
        content_id = 4 + 2 * (number - 1)
        page_id = content_id + 1
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
            b"/Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>"
            % (font_id, content_id)
        )
        page_ids.append(page_id)
    kids = " ".join(f"{i} 0 R" for i in page_ids).encode()
    head = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % len(page_ids),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    all_objects = head + objects
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(all_objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(all_objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += (b"trailer\n<< /Size %d /Root 1 0 R /Info << /Title (Boating Safety Guide) >> >>\n"
            b"startxref\n%d\n%%%%EOF\n" % (len(all_objects) + 1, xref))
    path.write_bytes(bytes(out))


DOCX_PARAGRAPHS = [
    ("Heading1", "Laboratory rules"),
    (None, "The laboratory is shared by every project at the station. These rules keep it "
           "safe and usable for everyone."),
    ("Heading2", "Chemicals"),
    (None, "Store acids and bases in separate cabinets. Label every bottle you fill with its "
           "content, concentration, date and your initials."),
    ("Heading2", "Waste"),
    (None, "Never pour solvents down the sink. Collect them in the labelled waste canisters "
           "under the fume hood; the canisters are collected on the first Monday of each "
           "month."),
    ("Heading1", "Opening hours"),
    (None, "The laboratory is open on weekdays from 8:00 to 18:00. Work outside these hours "
           "requires a second person in the building."),
]


def make_docx(path: pathlib.Path) -> None:
    def para(style: str | None, text: str) -> str:
        ppr = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
        return f"<w:p>{ppr}<w:r><w:t xml:space=\"preserve\">{text}</w:t></w:r></w:p>"

    ns = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    body = "".join(para(s, t) for s, t in DOCX_PARAGRAPHS)
    document = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {ns}><w:body>{body}</w:body></w:document>'
    styles = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles {ns}>'
              '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>'
              '<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>'
              "</w:styles>")
    content_types = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
        '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>'
        "</Types>")
    rels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>'
            "</Relationships>")
    doc_rels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>'
                "</Relationships>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in [("[Content_Types].xml", content_types), ("_rels/.rels", rels),
                           ("word/document.xml", document), ("word/styles.xml", styles),
                           ("word/_rels/document.xml.rels", doc_rels)]:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))  # reproducible bytes
            z.writestr(info, data, zipfile.ZIP_DEFLATED)


if __name__ == "__main__":
    make_pdf(HERE / "boating-safety.pdf")
    make_docx(HERE / "lab-rules.docx")
