"""The summary accounts for the command's whole wall time."""

from __future__ import annotations

from ragbeam.pipeline.cli import time_spent


def test_every_second_of_the_command_is_named():
    line = time_spent(137.0, 103.8, {"stores": 1.2, "model load": 15.0}, sinks=True)
    assert line == ("137.0 s (start-up 17.0 s, stores 1.2 s, model load 15.0 s, "
                    "pipeline incl. store sync 103.8 s)")
    assert time_spent(5.0, 3.5, {}) == "5.0 s (start-up 1.5 s, pipeline 3.5 s)"
