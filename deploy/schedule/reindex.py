"""``ragbeam sync`` for schedulers that run a Python file with underscored options.

    python reindex.py --output-root ROOT [--run-date YYYY-MM-DD] [--submit-only] \\
        --input gs://bucket/docs [other ragbeam options] [Beam options]

is ``ragbeam sync --state ROOT [--run-name YYYY-MM-DD] [--submit-only] …``
(``pipeline/sync.py``): it writes ``ROOT/<run date>/`` with the newest completed
run under ROOT as ``--previous``, and prunes completed runs beyond ``--keep``
(default 7). A retry of a date whose run completed does nothing and succeeds; a
retry of an interrupted run replaces what it left. The exit code is the run's.

Airflow's ``BeamRunPythonPipelineOperator`` runs a Python file and passes its
``pipeline_options`` as ``--name=value`` with underscores, as Flex Template
parameters are (deploy/dataflow/flex_main.py runs this file with
``--submit-only``); this file turns ragbeam's and sync's own options into their
hyphenated spelling and leaves Beam's (``--temp_location``) as they are. The
Kubernetes CronJob runs ``ragbeam sync`` itself.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

# This file's historical option names → ``ragbeam sync``'s.
RENAMED = {"--output-root": "--state", "--run-date": "--run-name"}
SYNC_OPTIONS = ("--state", "--keep", "--run-name", "--take-over", "--submit-only")


def ragbeam_option_names() -> set[str]:
    """Long option names ``ragbeam run`` defines (``--max-file-bytes``…)."""
    from ragbeam.pipeline.settings import flag_names

    return set(flag_names())


def hyphenate_ragbeam_options(argv: Sequence[str], known: set[str]) -> list[str]:
    """``--max_file_bytes=5`` → ``--max-file-bytes=5`` for ragbeam's own options.

    Beam's options (``--temp_location``) keep their underscores.
    """
    out = []
    for arg in argv:
        name, eq, value = arg.partition("=")
        hyphenated = name.replace("_", "-")
        out.append(hyphenated + eq + value if name.startswith("--") and hyphenated in known
                   else arg)
    return out


def sync_arguments(argv: Sequence[str]) -> list[str]:
    """This file's arguments → ``ragbeam sync``'s."""
    known = ragbeam_option_names() | set(SYNC_OPTIONS) | set(RENAMED)
    out = []
    for arg in hyphenate_ragbeam_options(argv, known):
        name, eq, value = arg.partition("=")
        out.append(RENAMED.get(name, name) + eq + value)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from ragbeam.pipeline.cli import main as ragbeam

    return ragbeam(["sync", *sync_arguments(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    from ragbeam.pipeline.interrupts import exit_after_interrupt

    # This process is the task's, as the ``ragbeam`` command's is: after a SIGTERM it
    # ends within the deadline, before the scheduler's SIGKILL (docs/cli.md).
    exit_after_interrupt()
    sys.exit(main())
