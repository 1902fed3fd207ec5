"""A gateway whose store is lost (issue 21, finding 4): moved aside, the next start numbered every
machine from seq 1 again, the server refused each event as seq_conflict and the gateway dropped them (76
events and 76 floor alerts in 60 s). It now numbers each machine's events after the server's last seq."""

from __future__ import annotations

import os
import time

import pytest

from tests.gateway_e2e.conftest import E2E
from tests.gateway_e2e.test_progressive import playing

pytestmark = [pytest.mark.postgres, pytest.mark.redis]


def test_a_gateway_started_on_an_empty_store_loses_and_refuses_nothing(e2e: E2E) -> None:
    with playing(e2e, every=0.5, bet=3):
        time.sleep(2)
    e2e.all_delivered()
    before = e2e.gateway.seqs()
    games_before = {code: len(egm.games) for code, egm in e2e.egms.items()}
    e2e.gateway.stop()
    for suffix in ("", "-wal", "-shm", ".map.json"):  # the disk lost: the store and its map copy
        if os.path.exists(e2e.gateway.store + suffix):
            os.remove(e2e.gateway.store + suffix)
    e2e.gateway.start()
    with playing(e2e, every=0.5, bet=3):
        time.sleep(4)
    e2e.all_delivered(timeout=30)  # nothing rejected: the store's rejected table is empty

    assert e2e.query("SELECT count(*) FROM slots_machinealert WHERE kind = 'seq_conflict'") == [(0,)]
    after = e2e.gateway.seqs()
    for code, egm in e2e.egms.items():
        events = e2e.applied_events([code])
        assert [seq for _, seq, _, _ in events] == list(range(1, after[code] + 1)), code
        assert after[code] > before[code], code  # numbered on from the server's last seq
        # Every game played on the empty store, once: the events numbered after the server's last seq.
        wagers = [wager for _, seq, kind, wager in events if kind == 1 and seq > before[code]]
        assert wagers == [bet * 50 for bet, _ in egm.games[games_before[code] :]], code
        assert len(egm.games) > games_before[code], code
