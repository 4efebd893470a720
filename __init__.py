"""ragbeam: documents in, clean, traceable RAG chunks out, on Apache Beam.

The repository's top-level folders are installed as subpackages of this one:
``ragbeam.pipeline`` (CLI, options, graph), ``ragbeam.transforms`` (stages),
``ragbeam.schemas`` (Arrow schemas of the output tables).

Public API (imported on first use, so ``import ragbeam`` stays cheap):
``ragbeam.chunk_text``, ``ragbeam.chunk_file`` and their records ``TextChunk``,
``ChunkedFile`` (``api.py``).
"""

import logging as _logging

__version__ = "0.1.0"

_API = {"chunk_text", "chunk_file", "TextChunk", "ChunkedFile"}


def __getattr__(name: str):
    if name in _API:
        from ragbeam import api

        return getattr(api, name)
    raise AttributeError(f"module 'ragbeam' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})


class _HideOptionalGcpWarning(_logging.Filter):
    """``import apache_beam`` warns on the root logger that Google's apitools are
    missing. ragbeam needs them only on Dataflow, whose workers have them, so the
    warning is noise for everyone else. Installed here, before any Beam import."""

    def filter(self, record: _logging.LogRecord) -> bool:
        return "apitools not found" not in record.getMessage()


_logging.getLogger().addFilter(_HideOptionalGcpWarning())
