"""Does cleaning give the same documents as before? A hash per document of everything
cleaning produces, to compare two versions of the cleaning code byte for byte.

    python benchmarks/cleaning_identity.py --cache DIR --write before.tsv PATH ...
    python benchmarks/cleaning_identity.py --cache DIR --compare before.tsv PATH ...
    python benchmarks/cleaning_identity.py --cache DIR --baseline REV PATH ...

Each PATH is a document or a folder (its PDF, DOCX, EPUB and HTML files, recursively).
Every document is extracted once by the pipeline's ``EmbeddedTika`` (text layer only)
and ``build_extracted_document`` and, with ``--cache``, kept there as a pickle, so that
both versions clean the very same extracted documents (and the second run skips Tika).
The hash covers the cleaned text, every span (kind, page, level, offsets: the headings
with their levels), the title and the metadata (the furniture lines removed, the
counters of every step), in a canonical form. ``--write`` records them, ``--compare``
checks them against a record, and ``--baseline REV`` cleans with the code of a git
revision in the same process (``cleaning_speed.baseline_cleaner``) and compares the
two; the exit code is 1 when a document differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import pickle
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))


def document_digest(document) -> str:
    """SHA-256 of a cleaned ``Document``'s text, spans, title and metadata."""
    digest = hashlib.sha256()
    digest.update(document.text.encode("utf-8"))
    for span in document.spans:
        digest.update(repr(span).encode("utf-8"))  # a dataclass: every field, in order
    digest.update(repr(document.title).encode("utf-8"))
    digest.update(json.dumps(dict(document.metadata), sort_keys=True,
                             ensure_ascii=False).encode("utf-8"))
    return digest.hexdigest()


SUFFIXES = {".pdf", ".docx", ".epub", ".html", ".htm"}  # as cleaning_speed.py's large set


def documents(paths: list[pathlib.Path]) -> list[pathlib.Path]:
    found: list[pathlib.Path] = []
    for path in paths:
        found.extend(sorted(p for p in path.rglob("*") if p.suffix.lower() in SUFFIXES)
                     if path.is_dir() else [path])
    return found


def extracted_documents(paths: list[pathlib.Path], cache: pathlib.Path | None):
    """``(path, ExtractedDocument)`` for each document with text."""
    from ragbeam.transforms.extract.backends import EmbeddedTika, ExtractionError
    from ragbeam.transforms.extract.document import (
        EmptyDocumentError,
        EncryptedDocumentError,
        UnreadableTextError,
        build_extracted_document,
    )
    from ragbeam.transforms.types import FetchedFile, SourceFile

    tika = None
    for path in paths:
        data = path.read_bytes()
        key = hashlib.sha256(data).hexdigest()
        target = cache / f"{key}.pkl" if cache is not None else None
        if target is not None and target.exists():
            extracted = pickle.loads(target.read_bytes())
        else:
            tika = tika or EmbeddedTika()
            fetched = FetchedFile(SourceFile(str(path), "d", len(data)), data, key)
            try:
                xhtml, metadata = tika.extract(data, path.name)
                extracted = build_extracted_document(fetched, xhtml, metadata)
            except (EmptyDocumentError, EncryptedDocumentError, UnreadableTextError,
                    ExtractionError):
                extracted = None
            if target is not None:
                target.write_bytes(pickle.dumps(extracted))
        if extracted is not None:
            yield path, extracted


def main(argv: list[str] | None = None) -> int:
    from ragbeam.transforms.clean.document import CleanOptions, clean_document

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", type=pathlib.Path)
    parser.add_argument("--cache", type=pathlib.Path,
                        help="folder for the extracted documents (pickles)")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--write", type=pathlib.Path, help="record the hashes in this file")
    what.add_argument("--compare", type=pathlib.Path, help="check against this record")
    what.add_argument("--baseline", metavar="REV", help="compare with this git revision")
    args = parser.parse_args(argv)
    if args.cache is not None:
        args.cache.mkdir(parents=True, exist_ok=True)
    options = CleanOptions()
    baseline = None
    if args.baseline:
        from cleaning_speed import baseline_cleaner
        baseline = baseline_cleaner(args.baseline)
    recorded: dict[str, str] = {}
    if args.compare:
        for row in args.compare.read_text(encoding="utf-8").splitlines():
            path, digest = row.rsplit("\t", 1)
            recorded[path] = digest
    rows, differ, compared = [], [], 0
    for path, extracted in extracted_documents(documents(args.paths), args.cache):
        digest = document_digest(clean_document(extracted, options))
        rows.append(f"{path}\t{digest}")
        expected = (document_digest(baseline(extracted)) if baseline is not None
                    else recorded.get(str(path)))
        if expected is not None:
            compared += 1
            if expected != digest:
                differ.append(str(path))
                print(f"DIFFERS {path}", flush=True)
    if args.write:
        args.write.write_text("\n".join(rows) + "\n", encoding="utf-8")
        print(f"{len(rows)} documents recorded in {args.write}")
        return 0
    missing = len(recorded) - compared if args.compare else 0
    print(f"{compared} documents compared, {len(differ)} differ"
          + (f", {missing} recorded but not cleaned now" if missing else ""))
    return 1 if differ or missing else 0


if __name__ == "__main__":
    sys.exit(main())
