"""OCR in a picture's own script (``transforms/extract/ocr.py``, ``read_picture``):
how often the default (``--ocr-languages auto``) reads a picture in the right script,
and how well Tesseract's mean word confidence tells a right reading from a reading by
a pack that does not know the script.

    python benchmarks/ocr_scripts.py [--set DIR] [--all-packs]

Pictures: the first article of the UDHR (first-day set, ``benchmarks/first_day.py``)
in English, French, Spanish, Vietnamese, Simplified and Traditional Chinese, Japanese,
Korean, Russian and Greek, drawn at 22, 32 and 48 px in WenQuanYi Micro Hei
(``make ocr``), and the first-day set's photographs and scans (English, Chinese,
vertical Japanese, English with Korean).

Printed per picture: OSD's script, what ``read_picture`` kept (packs, confidence) or
why it kept nothing, and whether that is right: text in the picture's script read by
a pack that knows it, or nothing kept where no installed pack knows it (Cyrillic,
Greek; vertical Japanese needs ``jpn_vert``). ``--all-packs``: every picture read by
each installed pack of ``eng chi_sim chi_tra jpn kor`` too, and the share of right and
of wrong-script readings at or over each confidence floor.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO.parent))
sys.path.insert(0, str(REPO / "benchmarks"))

from garbage_text import udhr_articles  # noqa: E402

from ragbeam.transforms.extract import ocr  # noqa: E402

DEFAULT_SET = REPO.parent / "data" / "first-day"
FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
LANGUAGES = {"English": "Latin", "French": "Latin", "Spanish": "Latin", "Vietnamese": "Latin",
             "Chinese, Mandarin (Simplified)": "Han", "Chinese, Mandarin (Traditional)": "Han",
             "Japanese": "Japanese", "Korean": "Korean", "Russian": "Cyrillic",
             "Greek (monotonic)": "Greek"}
PHOTOS = {"chi_sim_image.jpeg": "Han", "jpn-vert.jpeg": "Japanese (vertical)",
          "english-and-korean.png": "Latin", "DA-1p.jpg": "Latin",
          "double-column-A.jpg": "Latin", "layout-parser-paper-fast.jpg": "Latin",
          "table-multi-row-column-cells.png": "Latin", "embedded-images-tables.jpg": "Latin"}
# Which scripts a pack reads (CJK packs read Latin letters too; jpn reads kanji).
KNOWS = {"eng": {"Latin"}, "chi_sim": {"Han", "Latin"}, "chi_tra": {"Han", "Latin"},
         "jpn": {"Japanese", "Latin"}, "kor": {"Korean"}}
PACKS = ("eng", "chi_sim", "chi_tra", "jpn", "kor")


def draw(text: str, size: int, path: str) -> None:
    """``text`` wrapped to a 1,600-pixel-wide picture in ``FONT``."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(FONT, size)
    lines: list[str] = []
    for piece in (text.split() if " " in text else list(text)):
        joined = (lines[-1] + (" " if " " in text else "") + piece) if lines else piece
        if lines and font.getlength(joined) <= 1500:
            lines[-1] = joined
        else:
            lines.append(piece)
    step = int(size * 1.7)
    image = Image.new("L", (1600, 80 + step * len(lines)), 255)
    pen = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        pen.text((50, 40 + step * i), line, fill=0, font=font)
    image.save(path)


def pictures(set_dir: pathlib.Path, work: str) -> list[tuple[str, str, str]]:
    """``(name, script, path)`` of every picture of the benchmark."""
    articles = udhr_articles(set_dir / "text" / "udhr-first-article.txt")
    found = []
    for language, script in LANGUAGES.items():
        for size in (22, 32, 48):
            path = os.path.join(work, f"{len(found)}.png")
            draw(articles[language], size, path)
            found.append((f"{language} {size}px", script, path))
    found += [(name, script, str(set_dir / "img" / name)) for name, script in PHOTOS.items()]
    return found


def right(script: str, packs: str | None) -> bool:
    """A reading kept is right when its packs know the script; nothing kept is right
    only where no installed pack knows it."""
    if packs is None:
        return script in ("Cyrillic", "Greek", "Japanese (vertical)")
    return all(script in KNOWS.get(pack, set()) for pack in packs.split("+"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", type=pathlib.Path, default=DEFAULT_SET)
    parser.add_argument("--all-packs", action="store_true")
    args = parser.parse_args()
    readings: list[tuple[bool, float]] = []
    correct = total = osd_right = 0
    with tempfile.TemporaryDirectory(prefix="ragbeam-ocr-scripts-") as work:
        for name, script, path in pictures(args.set, work):
            named = ocr.detect_script(path, 60)
            kept = ocr.read_picture(path, ocr.WHOLE_IMAGE, ocr.AUTO_LANGUAGES, 60, work)
            packs = kept.reading.split()[0] if kept.reading else None
            ok = right(script, packs)
            correct += ok
            total += 1
            osd_right += named == script.split()[0]
            print(f"{name:40s} {script:20s} OSD {named or '-':9s} kept "
                  f"{kept.reading or '(nothing: ' + (kept.problem or 'no text')[:60] + ')'}"
                  f"{'' if ok else '   <- wrong'}", flush=True)
            if args.all_packs:
                for pack in PACKS:
                    reading = ocr._read(path, pack, 60, work, None)
                    if reading.words:
                        readings.append((script in KNOWS[pack], reading.confidence))
    print(f"read_picture: {correct} of {total} pictures right; OSD named the script of "
          f"{osd_right} of {total}")
    if readings:
        right_all = [c for ok, c in readings if ok]
        wrong_all = [c for ok, c in readings if not ok]
        for floor in (40, 45, 50, 55, 60, 70, 80):
            print(f"  floor {floor}: right readings kept {sum(c >= floor for c in right_all)} "
                  f"of {len(right_all)}, wrong-script readings kept "
                  f"{sum(c >= floor for c in wrong_all)} of {len(wrong_all)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
