"""The ``ragbeam`` command: the pipeline's subcommands (``run``, ``peek``, ``sync``,
``runs``: ``pipeline/cli.py``) and the evaluation's (``eval``, ``compare``, ``viz``:
``evaluate/cli.py``) on one parser. Here, above both, so that neither imports the
other: the evaluation runs pipelines through the run library, and the command offers
both."""

from __future__ import annotations

from collections.abc import Sequence

from ragbeam.evaluate.cli import add_subcommands
from ragbeam.pipeline import cli as pipeline_cli


def main(argv: Sequence[str] | None = None, started: float | None = None) -> int:
    """``ragbeam ARGV`` (``started``: as ``pipeline.cli.main`` takes it)."""
    return pipeline_cli.main(argv, started, add_subcommands)


def console_main() -> None:
    """The installed ``ragbeam`` script."""
    pipeline_cli.console_main(main)


if __name__ == "__main__":
    console_main()
