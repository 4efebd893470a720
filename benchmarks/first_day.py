"""The first-day benchmark set (issue 41, issue 38): rebuild it from its manifest, or
check it.

    python benchmarks/first_day.py build [--csv MANIFEST] [--out DIR]
                                         [--mirror-root DIR | --download]
    python benchmarks/first_day.py check [--csv MANIFEST] [--out DIR]    (DIR: ../data/first-day)

``--csv benchmarks/data/first-day-2.csv`` (default out ``../data/first-day-2``): the
second set, 39 office, e-book, mail and text files of five projects the benchmarks
had never used (pandoc, python-docx, python-pptx, tealeg/xlsx, SpamScope/mail-parser).

Real text and pictures of other projects, for the measured rules of a user's first
day: the first article of the Universal Declaration of Human Rights in 484
languages and Wikipedia pages in Chinese, German, Hebrew and Amharic (the
languages ``benchmarks/garbage_text.py`` must never call garbage), photographs
and scans of documents in English, Chinese, Japanese and Korean
(``benchmarks/ocr_scripts.py``), and three SEC 10-Q filings whose link
annotations Tika wrote into their text. Like the large-document corpus they are
**not** in this repository: ``benchmarks/data/first-day.csv`` names each file's
repository, path, commit, SHA-256 and licence, and this script fetches them again
(``--mirror-root DIR``: local git mirrors laid out as ``DIR/<owner>+<name>/repo``;
``--download``: raw.githubusercontent.com); each file's SHA-256 must match.
"""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import large_docs  # the same builder, another manifest

MANIFEST = large_docs.REPO / "benchmarks" / "data" / "first-day.csv"
DEFAULT_OUT = large_docs.REPO.parent / "data" / "first-day"


def main(argv: list[str] | None = None) -> int:
    """``--csv MANIFEST`` picks another manifest of the same columns; its default
    output folder is ``../data/<manifest stem>``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    manifest, out = MANIFEST, DEFAULT_OUT
    if "--csv" in argv:
        i = argv.index("--csv")
        manifest = pathlib.Path(argv[i + 1])
        del argv[i:i + 2]
        out = large_docs.REPO.parent / "data" / manifest.stem
    return large_docs.main(argv, description=__doc__, manifest=manifest, default_out=out)


if __name__ == "__main__":
    sys.exit(main())
