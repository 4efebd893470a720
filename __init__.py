"""ragbeam: documents in, clean, traceable RAG chunks out, on Apache Beam.

The repository's top-level folders are installed as subpackages of this one:
``ragbeam.pipeline`` (run library, CLI, options, graph), ``ragbeam.transforms`` (stages),
``ragbeam.schemas`` (Arrow schemas of the output tables).

Public API (imported on first use, so ``import ragbeam`` stays cheap: no Beam, no
torch for a notebook that only chunks text):

* ``ragbeam.chunk_text``, ``ragbeam.chunk_file`` and their records ``TextChunk``,
  ``ChunkedFile`` (``api.py``);
* ``ragbeam.IngestDocuments``: the whole ingestion as one Beam ``PTransform``
  (``pipeline/graph.py``), configured by ``ragbeam.RunSettings``' options;
* ``ragbeam.encode_sparse_query``: a search query as a ``SparseVector`` in the
  space of ``chunks.sparse`` (``--sparse``; ``transforms/embed/sparse.py``), its terms
  weighed by the ``TermFrequencies`` that ``ragbeam.load_term_frequencies`` reads from
  a run's ``terms`` table.
"""

import importlib as _importlib
import logging as _logging

__version__ = "0.2.0"

_PUBLIC = {
    "chunk_text": "ragbeam.api",
    "chunk_file": "ragbeam.api",
    "TextChunk": "ragbeam.api",
    "ChunkedFile": "ragbeam.api",
    "IngestDocuments": "ragbeam.pipeline.graph",
    "RunSettings": "ragbeam.pipeline.settings",
    "encode_sparse_query": "ragbeam.transforms.embed.sparse",
    "SparseVector": "ragbeam.transforms.embed.sparse",
    "TermFrequencies": "ragbeam.transforms.embed.sparse",
    "load_term_frequencies": "ragbeam.api",
}
__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str):
    if name in _PUBLIC:
        return getattr(_importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'ragbeam' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})


class _HideOptionalGcpWarning(_logging.Filter):
    """``import apache_beam`` warns on the root logger that Google's apitools are
    missing. ragbeam needs them only on Dataflow, whose workers have them, so the
    warning is noise for everyone else. Installed here, before any Beam import."""

    def filter(self, record: _logging.LogRecord) -> bool:
        return "apitools not found" not in record.getMessage()


_logging.getLogger().addFilter(_HideOptionalGcpWarning())
