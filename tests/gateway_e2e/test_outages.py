"""The server stopped for a while and the gateway SIGKILLed while it forwards the backlog: every game the
machines played reaches the server exactly once, in seq order. It checks every game played on the package's
stack before it (test_games' and its own: pytest-xdist keeps the files' order). The tests after it play a
game every 0.2-0.3 s on each machine, faster than the tests' two-machine lines carry (a machine silent when
idle holds its line for the tests' 0.2 s first-byte wait): a machine's 20-exception queue overflows there
and the machine itself loses those games' 7E/7F (SAS 6.02 2.2.1), so their games cannot be held to this.
A game the gateway logs as lost on the line (its 7E or its 7F answered later than the host waits, possible
only on a starved test machine) is the line's, not the outage's: it may be missing, and only it."""

from __future__ import annotations

import time

import pytest

from gateway.tests.helpers import wait_for
from tests.gateway_e2e.conftest import E2E, in_order_within
from tests.gateway_e2e.test_progressive import playing

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

OUTAGE_SECONDS = 10  # bench/gateway.py --outage 60 runs the long one


def test_server_stopped_and_gateway_killed_mid_forward_lose_and_double_nothing(e2e: E2E) -> None:
    with playing(e2e, every=0.5, bet=3):
        time.sleep(1)
        e2e.stack.server_stop()
        time.sleep(OUTAGE_SECONDS)
    # Every game of the outage is in the store (the machines' queues are empty) before it is counted.
    wait_for(lambda: not any(egm.queue for egm in e2e.egms.values()), 10, "the machines' exceptions")
    time.sleep(0.5)
    backlog = e2e.gateway.backlog()
    assert backlog >= 2 * OUTAGE_SECONDS  # the games of the outage wait in the store
    e2e.stack.server_start()
    # Kill it while it forwards: the first batch is on its way once the store starts shrinking.
    wait_for(lambda: e2e.gateway.backlog() < backlog, 15, "the gateway to forward")
    e2e.gateway.kill()
    e2e.gateway.start()
    with playing(e2e, every=0.5, bet=3):
        time.sleep(2)
    e2e.all_delivered(timeout=30)

    seqs = e2e.gateway.seqs()
    for code, egm in e2e.egms.items():
        events = e2e.applied_events([code])
        assert [seq for _, seq, _, _ in events] == list(range(1, seqs[code] + 1)), code
        wagers = [wager for _, _, kind, wager in events if kind == 1]
        played = [bet * 50 for bet, _ in egm.games]
        # Only games the gateway itself logged as lost on the line may be missing (none in most runs), never
        # one more: the outage and the kill lose nothing, and nothing is counted twice.
        lost = e2e.gateway.games_lost_on_line(code)
        assert lost is not None, f"{code}: the machine's exception queue overflowed"
        assert in_order_within(wagers, played) and 0 <= len(played) - len(wagers) <= lost, code
