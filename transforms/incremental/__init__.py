"""Incremental re-indexing against the previous run's output (``--previous DIR``).

The previous run's Parquet is the only state: its ``documents`` rows say what
each file's bytes and config were, its ``chunks`` rows are carried over for
documents that did not change, and the chunk ids of the rest are diffed against
the new ones to produce the ``changes`` table. ``compare.py``, ``reconcile.py``,
``changes.py`` and ``embeddings.py`` are pure; one module per transform wires them
into Beam: ``compare_with_previous.py`` (``CompareWithPrevious``, with ``Decide``),
``carry_previous_rows.py``, ``reconcile_documents.py`` (``Reconcile``) and
``reuse_embeddings.py``, over ``previous_tables.py`` (the previous run's Parquet)
and ``join.py`` (the tags of the joins by doc id). Duplicates and moves are
``transforms/identity/``'s.
"""
