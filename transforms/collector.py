"""Python's cyclic garbage collector: held off around a bulk step, and while the
``ragbeam`` command starts.

**Around a bulk step** (``cyclic_collector_paused``): the layout pass and cleaning
each allocate hundreds of thousands of small objects (a tuple or two per line, lists
of lines) that live until the step returns and form
next to no cycles; every collection set off in between walks them all for nothing (3 %
of the layout pass's CPU under ``perf``, about a tenth of cleaning's on large
documents). Reference counting still frees what is dropped, and the collector runs
again once the step is done.

**While the command starts** (``pause_collector`` / ``resume_collector``): start-up
creates ~200,000 objects that live as long as the process (modules; Beam's, protobuf's
and pyarrow's tables) and almost no garbage; the collector would walk them again and
again as they pile up: four full collections, 12 % of an unchanged re-run's CPU (0.55
of 4.5 s measured with gc.callbacks). When start-up is over (a run: once Beam and the
graph's modules are imported, or once a night without a pipeline has decided; any
other command: once its arguments are parsed), ``resume_collector`` freezes what exists
(``gc.freeze``: later collections skip it) and turns the collector back on for the work
itself. Only the command pauses it (``cli.console_main``); ``main`` called in someone's
own process leaves their collector alone.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def cyclic_collector_paused() -> Iterator[None]:
    """The cyclic collector off for the ``with`` body, then as it was: left alone where
    something else switched it off (it is the process's switch), so that nested or
    concurrent pauses never switch it on early for the outer one."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


_paused_for_start_up = False


def pause_collector() -> None:
    """Start-up begins: the collector off (where it was on)."""
    global _paused_for_start_up
    if gc.isenabled():
        gc.disable()
        _paused_for_start_up = True


def resume_collector() -> None:
    """End of start-up: the collector back on, what start-up loaded out of its reach (the
    few cycles start-up left as garbage stay, a few hundred KB)."""
    global _paused_for_start_up
    if _paused_for_start_up:
        gc.freeze()
        gc.enable()
        _paused_for_start_up = False
