"""What an incremental run does with each document, decided once (pure).

The vocabulary (``decide.py``: the current file, the outcome, the verdict, the
comparison by doc id), content identity (``content.py``: duplicates, moves), the
delete guard (``guard.py``), retries with a memory (``retries.py``), reusing a
previous extraction (``reuse_extraction.py``), each layer's key (``layers.py``),
the carry rules over previous rows (``carry.py``) and the one loop that puts the
steps together (``planner.py`` ``plan_run``). No Beam: the Beam transforms
(``transforms/incremental/``, ``transforms/identity/``), the dry run and the night
without a pipeline all call these.
"""
