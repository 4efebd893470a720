"""Test helpers: run the real CLI, read tables back with pyarrow."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import time

import pyarrow as pa
import pyarrow.parquet as pq

from ragbeam.transforms.chunk.base import HeadingIndex
from ragbeam.transforms.types import (
    Block,
    BlockKind,
    Document,
    ExtractedDocument,
    LineKind,
    LineStyle,
    PdfLayout,
    SourceFile,
    TextSpan,
)


def read_table(output: pathlib.Path, name: str) -> pa.Table:
    files = sorted((pathlib.Path(output) / name).glob("*.parquet"))
    assert files, f"no Parquet files under {output}/{name}"
    return pa.concat_tables([pq.read_table(f) for f in files])


def copy_samples(folder: pathlib.Path, names: tuple[str, ...] | list[str]) -> pathlib.Path:
    """A corpus folder (created) holding copies of these files of ``samples/``."""
    from conftest import SAMPLES

    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(SAMPLES / name, folder / name)
    return folder


def run_cli(args: list[str], expected_exit: int = 0) -> dict:
    """Run ``ragbeam run ARGS`` in-process and return run.json."""
    from ragbeam.pipeline.cli import main

    code = main(["run", *args])
    assert code == expected_exit, f"ragbeam run exited {code}, not {expected_exit}"
    if code in (1, 2):  # nothing ran, or the pipeline failed: no run.json
        return {}
    out = pathlib.Path(args[args.index("--output") + 1])
    return json.loads((out / "run.json").read_text())


def chunks_by_doc(output: pathlib.Path) -> dict[str, list[dict]]:
    rows = read_table(output, "chunks").to_pylist()
    by_doc: dict[str, list[dict]] = {}
    for row in sorted(rows, key=lambda r: (r["doc_id"], r["chunk_index"])):
        by_doc.setdefault(row["doc_id"], []).append(row)
    return by_doc


def cold_start_seconds() -> float:
    """Wall seconds a fresh extraction child takes, now, to start and extract a short
    text: what the machine's load adds to the first document of a child (a time limit
    counts from the child's start). Tests that must run a document into a short limit
    while a real extraction still succeeds size the limit from this."""
    from ragbeam.transforms.extract.isolation import IsolatedExtractor

    from conftest import SAMPLES

    extractor = IsolatedExtractor(("embedded", {}), timeout_s=600)
    try:
        started = time.monotonic()
        extractor.extract((SAMPLES / "faq.txt").read_bytes(), "faq.txt")
        return time.monotonic() - started
    finally:
        extractor.close()


def settle(path: pathlib.Path, age_s: float = 3600.0) -> None:
    """Give a file, or every file under a folder, a modification time ``age_s`` in the
    past: one an incremental run records and trusts (``rows.SETTLED_AFTER_S``)."""
    when = time.time() - age_s
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    for file in files:
        os.utime(file, (when, when))


# In a fresh process: ``ragbeam ARGS`` (the CLI's ``main``), its exit code and whether it
# imported Beam (what is in sys.modules once it is done).
_FRESH_CLI = """
import json, sys
from ragbeam.pipeline.cli import main
code = main(sys.argv[1:])
print(json.dumps({"exit": code, "beam": sorted(m for m in sys.modules
                                               if m.split(".")[0] == "apache_beam")[:3]}))
"""


def cli_in_fresh_process(args: list[str]) -> tuple[int, list[str]]:
    """``ragbeam ARGS`` in a new Python process (this one's environment): its exit code
    and the first Beam modules it imported (none: ``[]``)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _FRESH_CLI, *args], capture_output=True,
                          text=True, check=False)
    assert done.stdout.strip(), done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["exit"], result["beam"]


def lines_of(media_type: str, uri: str = "") -> LineKind:
    """How the lines of a file of ``media_type`` were written, as its format's reader
    declares (``extract/readers.py``): for an ``ExtractedDocument`` built by hand."""
    from ragbeam.transforms.extract.readers import reader_for

    return reader_for(uri, media_type, {}).lines


def closed_port() -> int:
    """A port of 127.0.0.1 nothing listens on (bound, then released): "unreachable"."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def paged_doc(blocks: list[tuple[BlockKind, int, int, str]]) -> Document:
    """A PDF's document from ``(kind, level, page, text)`` blocks, a blank line apart."""
    parts, spans, cursor = [], [], 0
    for kind, level, page, text in blocks:
        if parts:
            parts.append("\n\n")
            cursor += 2
        spans.append(TextSpan(cursor, cursor + len(text), kind, page=page, level=level))
        parts.append(text)
        cursor += len(text)
    text = "".join(parts)
    return Document(SourceFile("file:///plan.pdf", "plan", len(text)), "h", "application/pdf",
                    text, tuple(spans))


def paragraph_paths(doc: Document) -> dict[str, tuple[str, ...]]:
    """Each paragraph's heading path (``HeadingIndex``), by its text."""
    index = HeadingIndex(doc)
    return {doc.text[s.start:s.end]: index.path_at(s.start) for s in doc.spans
            if s.kind is BlockKind.PARAGRAPH}


def styled_pdf(blocks: list[list[tuple[str, LineStyle]]]) -> ExtractedDocument:
    """A PDF's extraction from Tika blocks of ``(text, style)`` lines in Tika's reading
    order, each style as the layout pass gives it (its raw offsets are filled in here);
    US Letter pages."""
    out_blocks, styles, raw = [], [], ""
    for lines in blocks:
        start = len(raw)
        for text, style in lines:
            styles.append(style._replace(raw_start=len(raw), raw_end=len(raw) + len(text)))
            raw += text + "\n"
        out_blocks.append(Block(BlockKind.PARAGRAPH, raw[start:-1], page=lines[0][1].page,
                                raw_start=start, raw_end=len(raw) - 1))
        raw += "\n"
    pages = max(style.page for style in styles)
    return ExtractedDocument(source=SourceFile(uri="/x.pdf", doc_id="d", size_bytes=1),
                             content_hash="h", media_type="application/pdf", raw_text=raw,
                             blocks=tuple(out_blocks), metadata={},
                             layout=PdfLayout(((612.0, 792.0),) * pages, tuple(styles)),
                             lines=lines_of("application/pdf"), page_count=pages)
