"""The PDFs of issue 41's paragraph truth (``benchmarks/data/paragraph_truth.json``) that
are not in the shared corpus: rebuild the folder from its manifest, or check it.

    python benchmarks/paragraph_pdfs.py build [--out DIR] [--mirror-root DIR | --download]
    python benchmarks/paragraph_pdfs.py check [--out DIR]    (DIR: ../data/paragraph-pdfs)

``benchmarks/data/paragraph-pdfs.csv`` names each file's repository, path, commit,
SHA-256 and licence: three PDFs that set no space glyphs, found by scanning public
test documents for PDFs whose every space PDFium reports is one it generated (PdfPig's
``GHOSTSCRIPT-699488-0.pdf`` and ``2108.11480.pdf``, CERMINE's ``complex.pdf``), and
the seven GovDocs1 PDFs of openpreserve/format-corpus that issue 41's unseen set holds
and Tika reads. Put the corpus's ``langchain-primer-icaens2023.pdf`` and
``dpr-multi-column.pdf`` beside them and run ``ragbeam run`` over the folder, then
``benchmarks/paragraph_integrity.py OUTPUT --truth benchmarks/data/paragraph_truth.json``.
"""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import large_docs  # the same builder, another manifest

MANIFEST = large_docs.REPO / "benchmarks" / "data" / "paragraph-pdfs.csv"
DEFAULT_OUT = large_docs.REPO.parent / "data" / "paragraph-pdfs"


if __name__ == "__main__":
    sys.exit(large_docs.main(description=__doc__, manifest=MANIFEST, default_out=DEFAULT_OUT))
