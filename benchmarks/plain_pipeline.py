"""The plain pipeline ragbeam has to beat: raw Tika text + LangChain's recursive splitter.

    pip install -e '.[bench]'          # langchain-text-splitters
    python benchmarks/plain_pipeline.py --input DIR --work out/plain [--exclude GLOB …]
    ragbeam eval --output out/plain/500-50 --questions Q.jsonl --budget 600

For each file under ``--input`` (recursively, ``--exclude`` globs on the
relative path left out), the plain text iscc-tika returns without XHTML,
cleaning or structure, split by LangChain's ``RecursiveCharacterTextSplitter``
(default separators, ``add_start_index``) at each ``SIZE/OVERLAP`` of
``--configs`` (characters; default: 500/50, 1000/0 and 1000/200). Each
configuration is written as a run output that ``ragbeam eval`` reads like one
of ragbeam's own (``chunks/`` and ``documents/`` Parquet with the columns eval
uses, token counts by the same tiktoken encoding, ``run.json``), so the
baseline is scored by the same command, retriever, questions and budget.

Files Tika fails on are left out and listed (the pipeline would write error
rows for them); there is no per-file timeout here, so leave out known hangs
(the shared corpus's ``bad/`` folder).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import pathlib
import sys

import pyarrow as pa
import pyarrow.parquet as pq

from ragbeam.transforms.chunk.sizing import make_sizer
from ragbeam.transforms.ids import doc_id_for

DEFAULT_CONFIGS = ("500/50", "1000/0", "1000/200")


def input_files(roots: list[pathlib.Path], excludes: list[str]) -> list[pathlib.Path]:
    files = []
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            relative = path.relative_to(root).as_posix()
            if not any(fnmatch.fnmatch(relative, g) or fnmatch.fnmatch(path.name, g)
                       for g in excludes):
                files.append(path)
    return files


def plain_texts(files: list[pathlib.Path]) -> tuple[dict[pathlib.Path, str], list[str]]:
    import iscc_tika

    extractor = iscc_tika.Extractor()
    texts, failed = {}, []
    for path in files:
        try:
            text, _ = extractor.extract_bytes_to_string(bytearray(path.read_bytes()))
        except Exception as exc:  # iscc-tika raises TypeError(ParseError(...))
            failed.append(f"{path}: {exc}")
            continue
        if text.strip():
            texts[path] = text
    return texts, failed


def write_run(output: pathlib.Path, texts: dict[pathlib.Path, str], size: int, overlap: int
              ) -> int:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap,
                                              add_start_index=True)
    sizer = make_sizer("tokens")
    chunk_rows, document_rows = [], []
    strategy = f"langchain-{size}-{overlap}"
    for path, text in texts.items():
        uri = str(path.resolve())
        doc_id = doc_id_for(uri)
        pieces = splitter.create_documents([text])
        for index, piece in enumerate(pieces):
            start = int(piece.metadata["start_index"])
            body = piece.page_content
            chunk_rows.append({
                "chunk_id": f"{doc_id}-{index}", "doc_id": doc_id, "parent_id": None,
                "chunk_index": index, "level": "chunk", "strategy": strategy, "text": body,
                "context": "", "char_start": start, "char_end": start + len(body),
                "page_start": None, "page_end": None, "heading_path": [],
                "token_count": sizer.size(body), "char_count": len(body), "source_uri": uri,
                "media_type": "text/plain", "metadata": [],
            })
        document_rows.append({
            "doc_id": doc_id, "source_uri": uri, "status": "ok", "media_type": "text/plain",
            "title": None, "strategy": strategy, "char_count": len(text),
            "chunk_count": len(pieces), "page_count": None, "metadata": [], "text": text,
        })
    string_map = pa.map_(pa.string(), pa.string())
    for table, rows in (("chunks", chunk_rows), ("documents", document_rows)):
        (output / table).mkdir(parents=True, exist_ok=True)
        arrow = pa.Table.from_pylist(rows)
        arrow = arrow.set_column(arrow.schema.get_field_index("metadata"), "metadata",
                                 pa.array([[] for _ in rows], type=string_map))
        pq.write_table(arrow, output / table / "part-00000.parquet")
    summary = {"config_hash": strategy, "chunks": len(chunk_rows),
               "config": {"chunk": {"size": size, "overlap": overlap, "unit": "chars"}},
               "plain_pipeline": "iscc-tika plain text + langchain RecursiveCharacterTextSplitter"}
    (output / "run.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return len(chunk_rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", action="append", required=True, type=pathlib.Path)
    parser.add_argument("--work", required=True, type=pathlib.Path)
    parser.add_argument("--exclude", action="append", default=[])
    parser.add_argument("--configs", nargs="+", default=list(DEFAULT_CONFIGS))
    args = parser.parse_args(argv)
    texts, failed = plain_texts(input_files(args.input, args.exclude))
    print(f"{len(texts)} documents with text; {len(failed)} failed")
    for line in failed:
        print(f"  failed: {line}")
    for config in args.configs:
        size, overlap = (int(x) for x in config.split("/"))
        output = args.work / f"{size}-{overlap}"
        chunks = write_run(output, texts, size, overlap)
        print(f"{config}: {chunks} chunks → {os.fspath(output)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
