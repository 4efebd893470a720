"""The cyclic garbage collector is paused while the ``ragbeam`` command starts.

Start-up creates ~200,000 objects that live as long as the process (modules; Beam's, protobuf's
and pyarrow's tables) and almost no garbage; the collector would walk them again and
again as they pile up: four full collections, 12 % of an unchanged re-run's CPU
(0.55 of 4.5 s measured with gc.callbacks). When start-up is over (a run: once Beam
and the graph's modules are imported, or once a night without a pipeline has decided;
any other command: once its arguments are parsed), ``resume_collector`` freezes what
exists (``gc.freeze``: later collections skip it) and turns the collector back on for
the work itself. Only the command pauses it (``cli.console_main``); ``main`` called in
someone's own process leaves their collector alone.
"""

from __future__ import annotations

import gc

_collector_paused = False


def pause_collector() -> None:
    global _collector_paused
    if gc.isenabled():
        gc.disable()
        _collector_paused = True


def resume_collector() -> None:
    """End of start-up: the collector back on, what start-up loaded out of its reach (the
    few cycles start-up left as garbage stay, a few hundred KB)."""
    global _collector_paused
    if _collector_paused:
        gc.freeze()
        gc.enable()
        _collector_paused = False
