"""Does the PDF layout pass give the same layout as before? A hash per PDF of ``repr`` of
its ``PdfLayout`` (every line's style, cells and spaces, every page's size), through the
C pass and the pure-Python pass, to compare two versions of the pass byte for byte.

    python benchmarks/layout_identity.py --cache DIR --write before.tsv PATH ...
    PYTHONPATH=OTHER python benchmarks/layout_identity.py --cache DIR --compare before.tsv PATH ...

Each PATH is a PDF or a folder of them. Every PDF is extracted once by the pipeline's
``EmbeddedTika`` (text layer only) and parsed (``parse_tika_xhtml``); with ``--cache``
the parse is kept there as a pickle, so that both versions lay out the very same Tika
text (and the second run skips Tika). Each row: the file, the C pass's hash, the
Python pass's (``RAGBEAM_LAYOUT_NATIVE=0``), the number of lines. The exit code is 1
where the two passes differ or where ``--compare`` finds a row changed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pathlib
import pickle

from ragbeam.transforms.extract.layout import NATIVE_ENV, native_lines, pdf_layout


def _parse(path: pathlib.Path, cache: pathlib.Path | None):
    key = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    stored = cache / f"{key}.pickle" if cache else None
    if stored is not None and stored.exists():
        return pickle.loads(stored.read_bytes())
    from ragbeam.transforms.extract.backends import EmbeddedTika
    from ragbeam.transforms.extract.xhtml import parse_tika_xhtml

    parsed = parse_tika_xhtml(EmbeddedTika().extract(path.read_bytes(), path.name)[0])
    value = (parsed.raw_text, list(parsed.blocks))
    if stored is not None:
        stored.write_bytes(pickle.dumps(value))
    return value


def _digest(data: bytes, raw_text: str, blocks, native: bool) -> tuple[str, int]:
    saved = os.environ.get(NATIVE_ENV)
    os.environ[NATIVE_ENV] = "1" if native else "0"
    try:
        layout = pdf_layout(data, raw_text, blocks)
    finally:
        if saved is None:
            del os.environ[NATIVE_ENV]
        else:
            os.environ[NATIVE_ENV] = saved
    return hashlib.sha256(repr(layout).encode()).hexdigest()[:16], len(layout.lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=pathlib.Path)
    parser.add_argument("--write", type=pathlib.Path)
    parser.add_argument("--compare", type=pathlib.Path)
    parser.add_argument("paths", nargs="+", type=pathlib.Path)
    args = parser.parse_args(argv)
    if args.cache:
        args.cache.mkdir(parents=True, exist_ok=True)
    files = [f for p in args.paths for f in (sorted(p.rglob("*.pdf")) if p.is_dir() else [p])]
    print(f"layout pass: {'C extension' if native_lines() else 'pure Python only'}")
    rows = {}
    failed = 0
    for path in files:
        raw_text, blocks = _parse(path, args.cache)
        data = path.read_bytes()
        c_hash, lines = _digest(data, raw_text, blocks, True)
        python_hash, _ = _digest(data, raw_text, blocks, False)
        failed += c_hash != python_hash
        rows[str(path)] = f"{c_hash}\t{python_hash}\t{lines}"
        print(f"{path}\t{rows[str(path)]}{'' if c_hash == python_hash else '  C != Python'}")
    if args.write:
        args.write.write_text("".join(f"{name}\t{row}\n" for name, row in rows.items()))
    if args.compare:
        before = dict(line.split("\t", 1) for line in args.compare.read_text().splitlines())
        changed = [name for name, row in rows.items() if before.get(name) != row]
        print(f"{len(rows)} PDFs compared, {len(changed)} differ"
              + "".join(f"\n  {name}" for name in changed))
        failed += len(changed)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
