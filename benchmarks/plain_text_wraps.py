"""Line breaks left inside sentences of plain-text chunks, and line breaks kept in
texts that are not hard-wrapped.

    python benchmarks/plain_text_wraps.py FILE_OR_DIR [...]

Each file is read as ``ragbeam.chunk_file`` reads it (embedded Tika, default
cleaning, default routing and chunking). Per file:

* **chunks with a break not at a sentence end**: a single line break after a
  letter, digit, comma, hyphen or "(" and before a letter, digit or "(";
  structure (list items, table rows, headings, verse) counts here too;
* **chunks with a mid-sentence break**: a single line break between a word and a
  lowercase word, which no structure explains;
* **line breaks kept**: single line breaks in the cleaned text against the source's
  line breaks between two non-empty lines (for texts that are not hard-wrapped,
  poetry, code, ASCII art, this should stay near 100 %).

Run it with the code before and after a change (``PYTHONPATH``) to compare; the
rules judge every run alike. Figures are in docs/cleaning.md.
"""

from __future__ import annotations

import pathlib
import re
import sys
from itertools import pairwise

NOT_AT_SENTENCE_END = re.compile(r"[A-Za-z0-9,(\-]\n[A-Za-z0-9(]")
MID_SENTENCE = re.compile(r"[A-Za-z,]\n[a-z]")


def source_breaks(path: pathlib.Path) -> int:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return sum(1 for a, b in pairwise(lines) if a.strip() and b.strip())


def measure(path: pathlib.Path) -> dict[str, float]:
    import ragbeam

    result = ragbeam.chunk_file(path)
    chunks = [chunk.text for chunk in result.chunks]
    kept = result.text.count("\n") - 2 * result.text.count("\n\n")
    return {
        "chunks": len(chunks),
        "not_at_end": sum(1 for t in chunks if NOT_AT_SENTENCE_END.search(t)),
        "mid_sentence": sum(1 for t in chunks if MID_SENTENCE.search(t)),
        "kept": kept,
        "source": source_breaks(path),
    }


def main(argv: list[str]) -> int:
    paths = sorted(p for arg in argv for p in (
        pathlib.Path(arg).iterdir() if pathlib.Path(arg).is_dir() else [pathlib.Path(arg)])
        if p.is_file())
    if not paths:
        print(__doc__)
        return 2
    print(f"{'file':34s} {'chunks':>6s} {'break not at end':>17s} {'mid-sentence':>13s} "
          f"{'breaks kept':>17s}")
    for path in paths:
        m = measure(path)
        n = max(m["chunks"], 1)
        print(f"{path.name:34s} {m['chunks']:6d} {m['not_at_end']:8d} ({m['not_at_end'] / n:4.0%}) "
              f"{m['mid_sentence']:5d} ({m['mid_sentence'] / n:4.0%}) "
              f"{m['kept']:6d}/{m['source']:<6d} ({m['kept'] / max(m['source'], 1):4.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
