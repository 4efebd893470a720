"""Issue 41's unseen set: 30 files of a public test-document repository, rebuilt or checked.

    python benchmarks/issue41_unseen.py build [--out DIR] [--mirror-root DIR | --download]
    python benchmarks/issue41_unseen.py check [--out DIR]    (DIR: ../data/issue41-unseen)

Issue 41 is done when "a default run over 30 files of a public test-document repository
the project has not used reads clean in 20 random chunks". These are those 30 files,
all from the Open Preservation Foundation's format corpus (openpreserve/format-corpus,
CC0 unless a folder says otherwise; its GovDocs1 PDFs are US government documents), a
repository no manifest under ``benchmarks/data``, the large-document corpus or the shared
corpus used before: 11 PDFs (ten GovDocs1 documents: a VA safety policy, a road-safety
audit paper, an EU ambassador's statement, clinical guidance, an atmospheric-science
paper, a genome-sequencing proposal, a Statistical Abstract section, a House bill, a
Law Library of Congress report, a cadet squadron newsletter; and a designer's flyer),
3 Word 2.0/97 DOC, 2 DOCX, 2 ODT, 2 RTF, 2 PowerPoint 4 PPT, 2 XLS, an EPUB, an HTML
page saved by Word, 3 images (a JPEG flyer, a PNG of text, an old-style-JPEG TIFF) and
a WordPerfect 6 file; none is a file of any earlier manifest (checked by SHA-256 when
the set was made). No ragbeam run was made on them while choosing them. Like the other
corpora they are **not** in this repository: ``benchmarks/data/issue41-unseen.csv``
names each file's repository, path, commit, SHA-256 and licence, and this script
fetches them again with ``large_docs.py``'s builder (``--mirror-root DIR``: local git
mirrors laid out as ``DIR/<owner>+<name>/repo``; ``--download``:
raw.githubusercontent.com); each file's SHA-256 must match. The repository has no PPTX,
XLSX or e-mail files; issue 41's other cases cover those formats.
"""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import large_docs  # the same builder, another manifest

MANIFEST = large_docs.REPO / "benchmarks" / "data" / "issue41-unseen.csv"
DEFAULT_OUT = large_docs.REPO.parent / "data" / "issue41-unseen"


if __name__ == "__main__":
    sys.exit(large_docs.main(description=__doc__, manifest=MANIFEST, default_out=DEFAULT_OUT))
