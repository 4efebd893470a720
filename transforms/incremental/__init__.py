"""Incremental re-indexing against the previous run's output (``--previous DIR``).

The previous run's Parquet is the only state: its ``documents`` rows say what
each file's bytes and config were, its ``chunks`` rows are carried over for
documents that did not change, and the chunk ids of the rest are diffed against
the new ones to produce the ``changes`` table. ``compare.py`` and ``changes.py``
are pure; ``dofn.py`` wires them into Beam.
"""
