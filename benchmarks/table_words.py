"""Do the PDF tables hold a word more often than their page prints it? The invariant of
``transforms/clean/tables.py`` (a cell over several columns is written once), checked
on real documents.

    python benchmarks/table_words.py --cache DIR PATH ...

Each PATH is a document or a folder (as ``cleaning_identity.py`` reads them, extracted
once by ``EmbeddedTika`` and kept in ``--cache``). Every document is cleaned with the
default options; for each page handed to ``find_tables`` the words (split at spaces) of
the tables cleaning keeps are compared with the words of the page's placed pieces: a
word the tables hold more often than the pieces is an *excess* word. Cleaning keeps a
table unless it shares a line with one kept before it (``document._mark_tables``: a
header read upwards into the rows of the table above); such *overlapping* tables are
counted apart. Prints, per document with tables, its pages with tables, tables kept,
overlapping tables dropped, and excess words (with the most repeated ones); the exit
code is 1 when any document has an excess word.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from collections import Counter

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))


def excess_words(pieces, tables) -> Counter:
    """Words ``tables`` hold more often than ``pieces`` (one page's) do."""
    printed = Counter(word for piece in pieces for word in piece.text.split())
    tabled = Counter(word for table in tables for row in table.rows
                     for cell in row for word in cell.split())
    return tabled - printed


def kept_tables(tables) -> tuple[list, int]:
    """The tables cleaning keeps (none sharing a line with one before it), and how many
    it drops."""
    kept, consumed = [], set()
    for table in tables:
        if not any(n in consumed for n in table.lines):
            kept.append(table)
            consumed.update(table.lines)
    return kept, len(tables) - len(kept)


def main(argv: list[str] | None = None) -> int:
    from cleaning_identity import documents, extracted_documents

    from ragbeam.transforms.clean import document as cleaning
    from ragbeam.transforms.clean.document import CleanOptions, clean_document

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", type=pathlib.Path)
    parser.add_argument("--cache", type=pathlib.Path,
                        help="folder for the extracted documents (pickles)")
    args = parser.parse_args(argv)
    if args.cache is not None:
        args.cache.mkdir(parents=True, exist_ok=True)
    pages: list[tuple[list, list]] = []
    find_tables = cleaning.find_tables

    def recording(pieces):  # what cleaning hands the table reader, page by page
        tables = find_tables(pieces)
        pages.append((list(pieces), tables))
        return tables

    cleaning.find_tables = recording
    options = CleanOptions()
    total = Counter()
    for path, extracted in extracted_documents(documents(args.paths), args.cache):
        pages.clear()
        clean_document(extracted, options)
        with_tables = [(pieces, tables) for pieces, tables in pages if tables]
        if not with_tables:
            continue
        excess = Counter()
        tables = dropped = 0
        for pieces, found in with_tables:
            kept, overlapping = kept_tables(found)
            excess += excess_words(pieces, kept)
            tables += len(kept)
            dropped += overlapping
        total.update(documents=1, pages=len(with_tables), tables=tables, dropped=dropped,
                     excess=excess.total(), failing=bool(excess))
        top = ", ".join(f"{word} ×{n}" for word, n in excess.most_common(3))
        print(f"{path}\tpages {len(with_tables)}\ttables {tables}\toverlapping {dropped}"
              f"\texcess words {excess.total()}" + (f"\t({top})" if top else ""), flush=True)
    print(f"{total['documents']} documents with tables ({total['pages']} pages, "
          f"{total['tables']} tables kept, {total['dropped']} overlapping dropped): "
          f"{total['failing']} with excess words, {total['excess']} excess words in all")
    return 1 if total["excess"] else 0


if __name__ == "__main__":
    sys.exit(main())
