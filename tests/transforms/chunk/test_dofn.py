"""The chunk stage's worker set-up: what a first run loads while the worker starts, an
incremental run loads with its first document (an unchanged re-run chunks nothing)."""

from __future__ import annotations

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.dofn import ChunkDocument
from ragbeam.transforms.chunk.sizing import load_encoding, shared_token_sizer
from ragbeam.transforms.types import Document, RouteDecision, SourceFile

TEXT = "A first paragraph about pumps.\n\nA second one, about valves and their seals."


def _chunk(dofn: ChunkDocument) -> list[tuple[str, int]]:
    doc = Document(SourceFile("file:///t.txt", "doc", len(TEXT)), "h", "text/plain", TEXT)
    rows = [row for row in dofn.process((doc, RouteDecision("recursive", "forced", {})))
            if isinstance(row, dict)]
    return [(row["text"], row["token_count"]) for row in rows]


def _fresh_process() -> None:
    """As a new worker process: no encoding loaded, no shared sizer holding one."""
    load_encoding.cache_clear()
    shared_token_sizer.cache_clear()


def test_an_incremental_worker_loads_the_encoding_with_its_first_document_only():
    _fresh_process()
    lazy = ChunkDocument(ChunkOptions(), "hash", load_at_setup=False)
    lazy.setup()
    # Nothing loaded, nor loading, for a run that may chunk nothing.
    assert lazy._loading is None and load_encoding.cache_info().currsize == 0
    chunks = _chunk(lazy)
    assert load_encoding.cache_info().currsize == 1
    _fresh_process()
    eager = ChunkDocument(ChunkOptions(), "hash")
    eager.setup()
    assert eager._loading is not None  # started in the background at set-up
    eager._loading.join()
    assert load_encoding.cache_info().currsize == 1
    assert _chunk(eager) == chunks and chunks and all(count > 0 for _, count in chunks)
