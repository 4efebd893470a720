"""ragbeam: documents in, clean, traceable RAG chunks out, on Apache Beam.

The repository's top-level folders are installed as subpackages of this one:
``ragbeam.pipeline`` (CLI, options, graph), ``ragbeam.transforms`` (stages),
``ragbeam.schemas`` (Arrow schemas of the output tables).
"""

__version__ = "0.1.0"
