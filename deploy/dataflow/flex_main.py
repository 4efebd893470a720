"""Dataflow Flex Template entry point (``FLEX_TEMPLATE_PYTHON_PY_FILE`` in the worker image).

The launcher passes the template parameters (metadata.json) and Dataflow's own
options (``--runner``, ``--project``, ``--temp_location``…) as arguments. A Flex
Template launcher must submit and exit, so this is reindex.py in submit-only
mode: the job itself writes ``run.json`` when it finishes, which makes the
folder the next run's ``--previous``.
"""

from __future__ import annotations

import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
# In the image reindex.py sits beside this file; in the repository, in ../schedule.
for folder in (HERE, HERE.parent / "schedule"):
    if (folder / "reindex.py").exists():
        sys.path.insert(0, str(folder))
        break

from reindex import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["--submit-only", *sys.argv[1:]]))
