"""Real documents made in the tests, for the cases a user's first day brings (issue 41,
issue 38): PDFs with link annotations and comments, pictures of text in a given
script, office documents whose only content is a picture.

Every file is built here from a few lines of code with the PDF writer of
``benchmarks/furniture_generated.py``, Pillow and ``zipfile``: the repository holds
no binary fixtures for them.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass

# A font that draws Latin, Cyrillic, Chinese, Japanese and Korean: Debian's
# fonts-wqy-microhei (1.6 MB), installed by `make ocr` with the Tesseract packs.
CJK_FONTS = ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
             "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")


@dataclass(frozen=True)
class LinkedPage:
    """One PDF page: its lines of text, the URIs of its link annotations, and the
    text of a comment (a markup annotation) on it, if any."""

    lines: Sequence[str]
    links: Sequence[str] = ()
    comment: str | None = None


def _escape(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")


def pdf_with_links(pages: Sequence[LinkedPage]) -> bytes:
    """A PDF whose pages are Helvetica lines, each link a ``/Link`` annotation with a
    ``/URI`` action over the page's first line, each comment a ``/Text`` annotation."""
    from conftest import REPO

    generator = _module("furniture_generated", REPO / "benchmarks" / "furniture_generated.py")
    objects: dict[int, bytes] = {3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
    kids = []
    for page in pages:
        number = max(objects) + 1
        stream = b"\n".join(b"BT /F1 11 Tf 72 %d Td (%s) Tj ET" % (720 - 16 * i, _escape(line))
                            for i, line in enumerate(page.lines))
        objects[number + 1] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
        annotations = []
        for uri in page.links:
            annotation = max(objects) + 1
            objects[annotation] = (b"<< /Type /Annot /Subtype /Link /Rect [72 716 300 730] "
                                   b"/Border [0 0 0] /A << /S /URI /URI (%s) >> >>" % _escape(uri))
            annotations.append(annotation)
        if page.comment:
            annotation = max(objects) + 1
            objects[annotation] = (b"<< /Type /Annot /Subtype /Text /Rect [500 700 520 720] "
                                   b"/T (Reviewer) /Contents (%s) >>" % _escape(page.comment))
            annotations.append(annotation)
        annots = (b" /Annots [" + b" ".join(b"%d 0 R" % a for a in annotations) + b"]"
                  if annotations else b"")
        objects[number] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                           b"<< /Font << /F1 3 0 R >> >> /Contents %d 0 R" % (number + 1)
                           + annots + b" >>")
        kids.append(number)
    return generator.serialise_pdf(objects, kids)


def _module(name: str, path):
    import importlib.util
    import sys

    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules[name]


def cjk_font_path() -> str | None:
    import os

    return next((path for path in CJK_FONTS if os.path.exists(path)), None)


def picture_of_lines(lines: Sequence[str], font_path: str | None = None, size: int = 48,
                     width: int = 1600) -> bytes:
    """A PNG of ``lines`` drawn black on white (``font_path``: a TrueType font; else
    Pillow's own, Latin only), as a scan or a screenshot shows text."""
    from PIL import Image, ImageDraw, ImageFont

    font = (ImageFont.truetype(font_path, size) if font_path
            else ImageFont.load_default(size=size))
    height = 80 + int(size * 1.8) * len(lines)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((60, 40 + int(size * 1.8) * i), line, fill=0, font=font)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def jpeg_of(png: bytes) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.open(io.BytesIO(png)).convert("L").save(out, "JPEG", quality=90)
    return out.getvalue()


# A page of prose, and the same as a poor OCR engine left it in a scan's text layer
# (m/rn, h/b, e/c, l/1 and i/l confusions, a split word, stray marks).
HARBOUR_LINES = (
    "The harbour master inspected every crane on the northern quay",
    "and found that the brakes of two of them were worn. Each crane",
    "was greased, and its cables were tested under load before the",
    "ships came in. The tide gauge at the pier head was cleaned and",
    "calibrated, and the committee may have to decide on a new one",
    "in the spring, when the budget for the year is known.",
)
HARBOUR = " ".join(HARBOUR_LINES)
HARBOUR_POOR = ("Tbe harbour rnaster lnspected cvery crane on tbe nortbern quay and fonnd tbat "
                "tbe brakcs of two of tbern were worn. Eacb crane was grcased, and its cab1es "
                "were tcsted nnder 1oad bcfore tbe sbips carne in. Tbe tlde gauge at the pler "
                "bead was c1eaned and ca1ibrated, and tbe Comrnittee rnay ha\\/e to declde on a "
                "ncw one 1n tbe spr ing, wben the budgct for tbe ycar is knowri.")


@dataclass(frozen=True)
class LayeredPage:
    """A PDF page: a full-page picture of ``picture`` lines (a scan) when given, and
    ``layer``, its text: invisible over the picture (an OCR layer), else visible."""

    layer: str
    picture: Sequence[str] = ()


def pdf_with_layers(pages: Sequence[LayeredPage]) -> bytes:
    """A PDF of ``LayeredPage`` pages (US Letter; the picture at 150 dpi)."""
    from conftest import REPO

    generator = _module("furniture_generated", REPO / "benchmarks" / "furniture_generated.py")
    objects: dict[int, bytes] = {3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
    kids = []
    for page in pages:
        number = max(objects) + 1
        words = page.layer.split()
        lines = [" ".join(words[i:i + 10]) for i in range(0, len(words), 10)]
        text = b"BT %s/F1 10 Tf 72 700 Td 14 TL " % (b"3 Tr " if page.picture else b"")
        text += b" ".join(b"(%s) '" % _escape(line) for line in lines) + b" ET"
        resources = b"/Font << /F1 3 0 R >>"
        stream = text
        if page.picture:
            from PIL import Image

            picture = Image.open(io.BytesIO(picture_of_lines(page.picture, size=30,
                                                             width=1275)))
            sheet = Image.new("L", (1275, 1650), 255)
            sheet.paste(picture, (0, 150))
            jpeg = io.BytesIO()
            sheet.save(jpeg, "JPEG", quality=90)
            image = number + 2
            objects[image] = (b"<< /Type /XObject /Subtype /Image /Width 1275 /Height 1650 "
                              b"/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode "
                              b"/Length %d >>\nstream\n" % len(jpeg.getvalue())
                              + jpeg.getvalue() + b"\nendstream")
            stream = b"q 612 0 0 792 0 0 cm /Im1 Do Q " + text
            resources += b" /XObject << /Im1 %d 0 R >>" % image
        objects[number] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                           b"<< " + resources + b" >> /Contents %d 0 R >>" % (number + 1))
        objects[number + 1] = (b"<< /Length %d >>\nstream\n" % len(stream) + stream
                               + b"\nendstream")
        kids.append(number)
    return generator.serialise_pdf(objects, kids)


_OOXML_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
               '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
               'relationships">{}</Relationships>')
_REL = '<Relationship Id="{}" Type="{}" Target="{}"/>'
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _rels(*relations: tuple[str, str, str]) -> str:
    return _OOXML_RELS.format("".join(_REL.format(*relation) for relation in relations))


def picture_only_docx(png: bytes) -> bytes:
    """A Word document whose only content is one picture (an inline drawing)."""
    drawing = (
        '<w:drawing><wp:inline><wp:extent cx="5486400" cy="1371600"/><wp:docPr id="1" '
        'name="Picture 1"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/'
        'drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="0" name="image1.png"/>'
        '<pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="rIdImage1"/>'
        '<a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" '
        'y="0"/><a:ext cx="5486400" cy="1371600"/></a:xfrm><a:prstGeom prst="rect"/></pic:spPr>'
        '</pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing>')
    document = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document '
        'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
        f'xmlns:r="{_R}" '
        'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
        'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
        'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">'
        f'<w:body><w:p><w:r>{drawing}</w:r></w:p></w:body></w:document>')
    types = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.'
        'openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType='
        '"application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" '
        'ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/>'
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
        'officedocument.wordprocessingml.document.main+xml"/></Types>')
    return _zip({
        "[Content_Types].xml": types,
        "_rels/.rels": _rels(("rId1", f"{_R}/officeDocument", "word/document.xml")),
        "word/document.xml": document,
        "word/_rels/document.xml.rels": _rels(("rIdImage1", f"{_R}/image", "media/image1.png")),
        "word/media/image1.png": png,
    })


def picture_only_pptx(png: bytes) -> bytes:
    """A PowerPoint deck of one slide whose only content is one picture."""
    p = "http://schemas.openxmlformats.org/presentationml/2006/main"
    a = "http://schemas.openxmlformats.org/drawingml/2006/main"
    head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    ns = f'xmlns:a="{a}" xmlns:r="{_R}" xmlns:p="{p}"'
    empty_tree = ('<p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/>'
                  '<p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>{}</p:spTree></p:cSld>')
    picture = ('<p:pic><p:nvPicPr><p:cNvPr id="2" name="Picture 1"/><p:cNvPicPr/><p:nvPr/>'
               '</p:nvPicPr><p:blipFill><a:blip r:embed="rIdImage1"/><a:stretch><a:fillRect/>'
               '</a:stretch></p:blipFill><p:spPr><a:xfrm><a:off x="0" y="0"/><a:ext '
               'cx="9144000" cy="2286000"/></a:xfrm><a:prstGeom prst="rect"/></p:spPr></p:pic>')
    master = (f'{head}<p:sldMaster {ns}>{empty_tree.format("")}<p:clrMap bg1="lt1" tx1="dk1" '
              'bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" '
              'accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" '
              'folHlink="folHlink"/><p:sldLayoutIdLst><p:sldLayoutId id="2147483649" '
              'r:id="rId1"/></p:sldLayoutIdLst></p:sldMaster>')
    layout = f'{head}<p:sldLayout {ns}>{empty_tree.format("")}</p:sldLayout>'
    slide = f'{head}<p:sld {ns}>{empty_tree.format(picture)}</p:sld>'
    presentation = (f'{head}<p:presentation {ns}><p:sldMasterIdLst><p:sldMasterId '
                    'id="2147483648" r:id="rId1"/></p:sldMasterIdLst><p:sldIdLst><p:sldId '
                    'id="256" r:id="rId2"/></p:sldIdLst><p:sldSz cx="9144000" cy="6858000"/>'
                    '<p:notesSz cx="6858000" cy="9144000"/></p:presentation>')
    ct = "application/vnd.openxmlformats-officedocument.presentationml"
    types = (
        f'{head}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
        '<Default Extension="png" ContentType="image/png"/>'
        f'<Override PartName="/ppt/presentation.xml" ContentType="{ct}.presentation.main+xml"/>'
        f'<Override PartName="/ppt/slideMasters/slideMaster1.xml" ContentType="{ct}.'
        'slideMaster+xml"/>'
        f'<Override PartName="/ppt/slideLayouts/slideLayout1.xml" ContentType="{ct}.'
        'slideLayout+xml"/>'
        f'<Override PartName="/ppt/slides/slide1.xml" ContentType="{ct}.slide+xml"/></Types>')
    return _zip({
        "[Content_Types].xml": types,
        "_rels/.rels": _rels(("rId1", f"{_R}/officeDocument", "ppt/presentation.xml")),
        "ppt/presentation.xml": presentation,
        "ppt/_rels/presentation.xml.rels": _rels(
            ("rId1", f"{_R}/slideMaster", "slideMasters/slideMaster1.xml"),
            ("rId2", f"{_R}/slide", "slides/slide1.xml")),
        "ppt/slideMasters/slideMaster1.xml": master,
        "ppt/slideMasters/_rels/slideMaster1.xml.rels": _rels(
            ("rId1", f"{_R}/slideLayout", "../slideLayouts/slideLayout1.xml")),
        "ppt/slideLayouts/slideLayout1.xml": layout,
        "ppt/slideLayouts/_rels/slideLayout1.xml.rels": _rels(
            ("rId1", f"{_R}/slideMaster", "../slideMasters/slideMaster1.xml")),
        "ppt/slides/slide1.xml": slide,
        "ppt/slides/_rels/slide1.xml.rels": _rels(
            ("rId1", f"{_R}/slideLayout", "../slideLayouts/slideLayout1.xml"),
            ("rIdImage1", f"{_R}/image", "../media/image1.png")),
        "ppt/media/image1.png": png,
    })


def _zip(members: dict[str, str | bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content.encode("utf-8") if isinstance(content, str)
                             else content)
    return out.getvalue()
