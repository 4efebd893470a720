"""How many CPUs this process may use: the one answer for pool sizes, OCR workers and
model threads (the extraction pool, ``pipeline/runner.py``, ``embed/model.py``)."""

from __future__ import annotations

import os


def available_cores() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not Linux
        return os.cpu_count() or 1
