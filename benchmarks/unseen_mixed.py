"""The unseen mixed-format benchmark set: rebuild it from its manifest, or check it.

    python benchmarks/unseen_mixed.py build [--out DIR] [--mirror-root DIR | --download]
    python benchmarks/unseen_mixed.py check [--out DIR]    (DIR: ../data/unseen-mixed)

40 public test documents of other projects in twelve formats (12 PDFs, 4 DOCX,
3 PPTX, 3 XLSX, 4 HTML, 2 each of EPUB, ODT, RTF, Markdown, plain text, e-mail
and CSV; 14 MB), for speed figures on documents no rule of ragbeam was tuned on
or measured against before (issue 33). They were chosen from kreuzberg,
docling, unstructured, Apache Tika, Apache POI and py-pdf/sample-files so that
none is a file of the shared corpus, of the large-document corpus or of any
manifest under ``benchmarks/data/`` (checked by SHA-256 when the set was made),
that every one extracts with iscc-tika, and that each is a real document (text,
tables, slides), not a fixture of a few bytes. Like the large-document corpus
they are **not** in this repository: ``benchmarks/data/unseen-mixed.csv`` names
each file's repository, path, commit, SHA-256 and licence, and this script
fetches them again (``--mirror-root DIR``: local git mirrors laid out as
``DIR/<owner>+<name>/repo``; ``--download``: raw.githubusercontent.com); each
file's SHA-256 must match. The benchmarks take the folder as ``--corpus``
(``pipeline_throughput.py``, ``profile_run.py``) and read ``MANIFEST.csv``.
"""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import large_docs  # the same builder, another manifest

MANIFEST = large_docs.REPO / "benchmarks" / "data" / "unseen-mixed.csv"
DEFAULT_OUT = large_docs.REPO.parent / "data" / "unseen-mixed"


if __name__ == "__main__":
    sys.exit(large_docs.main(description=__doc__, manifest=MANIFEST, default_out=DEFAULT_OUT))
