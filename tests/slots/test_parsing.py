"""An event's digest is its stored meaning: a retry is a duplicate when its digest equals the stored one, so
the bytes hashed never change with the code that writes them. Each type's digest is pinned here to the
SHA-1 of the JSON text written out by hand: [type, the UTC instant's isoformat, the type's fields]."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import pytest

from common.times import TimeWindow
from slots.services.parsing import EventLimits, MachineInfo, Principal, event_parse

MACHINE = MachineInfo(
    id=7,
    asset_number="VEN-0007",
    venue_id=1,
    bank_id=3,
    denomination_cents=10,
    min_bet_cents=10,
    max_bet_cents=500,
    meter_digits=10,
    status="in_service",
)
WINDOW = TimeWindow(
    earliest=datetime(2026, 11, 20, tzinfo=UTC),
    latest=datetime(2026, 11, 22, tzinfo=UTC),
    max_age_seconds=1,
    max_future_seconds=1,
)
LIMITS = EventLimits(win_max_cents=10**9, win_max_multiple=10**6, jackpot_max_cents=10**9)


def _digest(raw: dict) -> str:
    event = event_parse(
        0,
        {"machine": "VEN-0007", "seq": 1, **raw},
        machines={"VEN-0007": MACHINE},
        principal=Principal(machine_id=7),
        window=WINDOW,
        limits=LIMITS,
    )
    return event.digest


def _sha1(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


@pytest.mark.parametrize(
    ("raw", "hashed"),
    [
        (
            {"type": "game", "at": "2026-11-21T18:03:05.120+01:00", "wager": 100, "win": 50},
            '[1,"2026-11-21T17:03:05.120000+00:00",100,50]',
        ),
        (
            {"type": "game", "at": "2026-11-21T17:03:05Z", "wager": 100, "win": 0},
            '[1,"2026-11-21T17:03:05+00:00",100,0]',
        ),
        (
            {"type": "game", "at": "2026-11-21 12:03:05.0000019-05:00", "wager": 10, "win": 20},
            '[1,"2026-11-21T17:03:05.000001+00:00",10,20]',
        ),
        (
            {"type": "meters", "at": "2026-11-21t17:03:05z", "meters": {"games_played": 9, "coin_in": 1}},
            '[2,"2026-11-21T17:03:05+00:00",[["coin_in",1],["games_played",9]]]',
        ),
        (
            {"type": "jackpot", "at": "2026-11-21T17:03:05.5+00:00", "level": 2, "amount": 12345},
            '[3,"2026-11-21T17:03:05.500000+00:00",2,12345]',
        ),
        (
            {
                "type": "jackpot",
                "at": "2026-11-21T17:03:05-00:00",
                "level": 2,
                "amount": 12345,
                "paid": "machine",
                "paid_amount": 12345,
            },
            '[3,"2026-11-21T17:03:05+00:00",2,12345,"machine",12345]',
        ),
        (
            {"type": "jackpot", "at": "2026-11-21T17:03:05Z", "level": 1, "amount": 500, "paid": "attendant"},
            '[3,"2026-11-21T17:03:05+00:00",1,500,"attendant",null]',
        ),
        (
            {"type": "status", "at": "2026-11-22T03:03:05+10:00", "status": "door_open"},
            '[4,"2026-11-21T17:03:05+00:00","door_open"]',
        ),
    ],
)
def test_each_type_hashes_the_same_bytes(raw, hashed):
    assert _digest(raw) == _sha1(hashed)


def test_the_same_instant_spelled_in_any_offset_has_one_digest():
    instant = datetime(2026, 11, 21, 17, 3, 5, 120000, tzinfo=UTC)
    spellings = {
        (instant + timedelta(minutes=minutes)).replace(tzinfo=None).isoformat() + offset
        for minutes, offset in [(0, "Z"), (60, "+01:00"), (-330, "-05:30"), (840, "+14:00"), (0, "+00:00")]
    }
    digests = {_digest({"type": "game", "at": at, "wager": 100, "win": 50}) for at in spellings}
    assert digests == {_sha1('[1,"2026-11-21T17:03:05.120000+00:00",100,50]')}
