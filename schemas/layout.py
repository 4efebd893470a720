"""The names ragbeam writes into an output folder, and into a sync's state folder,
besides its tables (``OUTPUT_TABLES``): one place, because the Match stage must know
them too, so that a run never reads ragbeam's own files as input
(``transforms/match/patterns.py``)."""

from __future__ import annotations

# The run's summary and commit marker (pipeline/summary.py), and its partial copy.
RUN_JSON = "run.json"
RUN_JSON_PARTIAL = "run.json.partial"
# Claims on an output or a state folder (pipeline/claim.py): CLAIMS_DIR/<run id>.json.
CLAIMS_DIR = "_claims"
# Left by ``ragbeam sync`` in the folder of a run a signal stopped (pipeline/runs.py).
INTERRUPTED_FILE = "interrupted.json"
# Keys every run.json has (pipeline/summary.py): what tells ragbeam's from a file of
# the same name.
RUN_JSON_KEYS = ("config_hash", "outcome")
