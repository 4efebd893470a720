"""The ``slow`` marker (tests/conftest.py) keeps up with the test modules."""

from __future__ import annotations

from conftest import SLOW_MODULES, TESTS


def test_every_slow_module_exists():
    """A renamed or moved module must not silently become part of ``make quick``."""
    missing = sorted(m for m in SLOW_MODULES if not (TESTS / m).is_file())
    assert not missing, f"SLOW_MODULES names modules that are gone: {missing}"
