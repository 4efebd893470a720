"""Chunks nobody wants, counted in run outputs: machine residue, tiny and heading-only
chunks, and documents without a language; several outputs side by side.

    python benchmarks/chunk_hygiene.py BEFORE_DIR AFTER_DIR [--list]

Each argument is the output folder of a ``ragbeam run`` (read back from Parquet).

* **residue chunk**: at least half of its characters are lines that the residue rules
  (``transforms/clean/residue.py``) flag, the chunk read as one block of text;
* **tiny chunk**: under ``TINY_TOKENS`` tokens (the chunks table's ``token_count``);
* **heading-only chunk**: its text is its own last heading and nothing else;
* **language**: how many documents have none, and the languages found.

The same rules judge every output, so a before/after pair is compared on equal terms.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from collections import Counter

TINY_TOKENS = 10


def residue_share(text: str) -> float:
    from ragbeam.transforms.clean.residue import find_residue

    lines = text.splitlines() or [text]
    found = find_residue(lines, [0] * len(lines), [False] * len(lines)).lines
    total = sum(len(line) for line in lines)
    return sum(len(lines[i]) for i in found) / total if total else 0.0


def read(output: pathlib.Path, table: str, columns: list[str]) -> list[dict]:
    import pyarrow.parquet as pq

    return pq.read_table(output / table, columns=columns).to_pylist()


def measure(output: pathlib.Path, show: bool) -> dict[str, object]:
    chunks = read(output, "chunks", ["source_uri", "text", "token_count", "heading_path",
                                      "level"])
    chunks = [c for c in chunks if c["level"] != "parent"]  # what gets indexed
    residue = [c for c in chunks if residue_share(c["text"]) >= 0.5]
    tiny = [c for c in chunks if c["token_count"] < TINY_TOKENS]
    heading_only = [c for c in chunks
                    if c["heading_path"] and c["text"].strip() == c["heading_path"][-1].strip()]
    documents = [d for d in read(output, "documents", ["status", "language"])
                 if d["status"] == "ok"]
    if show:
        for name, rows in (("residue", residue), ("tiny", tiny)):
            for c in rows:
                print(f"    {name}: {c['source_uri'].rsplit('/', 2)[-2:]} {c['text'][:70]!r}")
    return {
        "chunks": len(chunks),
        "residue chunks": len(residue),
        "tiny chunks": len(tiny),
        "tiny share": round(len(tiny) / len(chunks), 4) if chunks else 0.0,
        "heading-only chunks": len(heading_only),
        "ok documents": len(documents),
        "without language": sum(1 for d in documents if not d["language"]),
        "languages": dict(Counter(d["language"] or "-" for d in documents).most_common()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("outputs", type=pathlib.Path, nargs="+")
    parser.add_argument("--list", action="store_true", help="print residue and tiny chunks")
    args = parser.parse_args(argv)
    results = []
    for output in args.outputs:
        print(f"{output}:")
        results.append(measure(output, args.list))
        for key, value in results[-1].items():
            print(f"  {key:22s} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
