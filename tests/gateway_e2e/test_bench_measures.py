"""What bench/gateway.py calls the age of a displayed amount and the broadcast delay, on made-up times."""

from __future__ import annotations

import pytest

from bench.gateway import TimedEgm, amount_ages, broadcast_delays
from gateway.egm.config import EgmConfig

# (arrival, Grand cents, value sequence) of the server's amounts as this process heard them
SEEN = [(1.0, 100, 1), (2.0, 110, 2), (3.0, 120, 3)]


def test_a_displayed_amount_ages_from_the_moment_the_server_moved_past_it():
    samples = [
        (0.5, [100, 100]),  # before anything was heard: not measured
        (1.5, [100, 100]),  # both show the server's amount
        (2.5, [100, 110]),  # one still shows 100, which the server left at 2.0
        (3.2, [100, 120]),  # and still 100 at 3.2: 1.2 s old, not 0.2 (the time since the last change)
        (3.5, [120, 130]),  # an amount newer than any heard here is not old
    ]
    assert amount_ages(samples, SEEN) == pytest.approx([0.0, 0.5, 1.2, 0.0])


def test_the_broadcast_delay_runs_from_an_amount_heard_to_its_display_or_a_later_ones():
    egm = TimedEgm(EgmConfig(address=1, group=1, levels=[1, 2]), now=0.0)
    egm.broadcast(1, {1: 100, 2: 5}, 1.02)
    egm.broadcast(1, {1: 120, 2: 5}, 3.05)  # 110 was never shown: 120 covers it
    egm.broadcast(2, {1: 999}, 3.06)  # another group's broadcast is not this machine's display
    assert broadcast_delays([egm], SEEN, since=0.0, until=10.0) == pytest.approx([0.02, 1.05, 0.05])
    assert broadcast_delays([egm], SEEN, since=1.5, until=2.5) == pytest.approx([1.05])
