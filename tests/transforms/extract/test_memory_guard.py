"""The memory guard's polling: often near a cap, seldom far below it."""

from __future__ import annotations

import pytest

from ragbeam.transforms.extract.memory_guard import (
    FASTEST_GROWTH_BYTES_PER_S,
    GUARD_MAX_POLL_S,
    GUARD_POLL_S,
    next_poll_s,
)

MIB = 1024 * 1024


def test_a_child_close_to_its_cap_is_polled_every_guard_poll():
    assert next_poll_s(None) == GUARD_POLL_S  # nothing measured yet
    assert next_poll_s(0) == GUARD_POLL_S
    assert next_poll_s(20 * MIB) == GUARD_POLL_S  # under 10 ms of the fastest growth


def test_a_child_far_below_its_cap_is_polled_when_it_could_first_reach_it():
    headroom = 200 * MIB
    assert next_poll_s(headroom) == pytest.approx(headroom / FASTEST_GROWTH_BYTES_PER_S)
    assert GUARD_POLL_S < next_poll_s(headroom) < GUARD_MAX_POLL_S
    assert next_poll_s(1800 * MIB) == GUARD_MAX_POLL_S
