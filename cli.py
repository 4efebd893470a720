"""The ``ragbeam`` command: the pipeline's subcommands (``run``, ``peek``, ``sync``,
``runs``: ``pipeline/cli.py``) and the evaluation's (``eval``, ``compare``, ``viz``:
``evaluate/cli.py``) on one parser. Here, above both, so that neither imports the
other: the evaluation runs pipelines through the run library, and the command offers
both."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ragbeam.evaluate.cli import add_subcommands
from ragbeam.pipeline import cli as pipeline_cli


def evaluation_subcommands(subparsers: argparse._SubParsersAction,
                           parents: list[argparse.ArgumentParser]) -> None:
    # The evaluation code (bm25s, its figures) is imported only for its own commands.

    add_subcommands(subparsers, parents=parents)


def main(argv: Sequence[str] | None = None, started: float | None = None) -> int:
    """``ragbeam ARGV``. ``ragbeam run`` is parsed without the evaluation's subcommands:
    their import would delay a plain local run, whose extraction children start on the
    inputs meanwhile (``pipeline/early_start.py``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    more = None if argv[:1] == ["run"] else evaluation_subcommands
    return pipeline_cli.main(argv, started, more)


def console_main() -> None:
    """The installed ``ragbeam`` script."""
    pipeline_cli.console_main(main)


if __name__ == "__main__":
    console_main()
