"""Incremental re-indexing against the previous run's output (``--previous DIR``).

The previous run's Parquet is the only state: its ``documents`` rows say what
each file's bytes and config were, its ``chunks`` rows are carried over for
documents that did not change, and the chunk ids of the rest are diffed against
the new ones to produce the ``changes`` table. What the run does with each document
is decided by ``transforms/plan/`` (pure); the Beam steps here run its steps:
``compare_with_previous.py`` (``CompareWithPrevious``, with ``Decide``),
``carry_previous_rows.py``, ``reconcile_documents.py`` (``Reconcile``) and
``reuse_embeddings.py``, over ``previous_tables.py`` (the previous run's Parquet)
and ``join.py`` (the tags of the joins by doc id). ``reconcile.py``, ``changes.py``
and ``embeddings.py`` are pure; ``preview.py`` (the dry run) and ``unchanged.py``
(the night without a pipeline) call the plan's one loop.
"""
