"""POST /api/v1/events: every per-event code, and who may post for which machine."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from common.credentials import credential_issue
from jackpots.models import ProgressiveMachine
from slots.models import GatewayKey, MachineEvent, SlotMachine
from slots.services.errors import EVENT_ERRORS
from tests.factories import LevelFactory, SlotMachineFactory, VenueFactory
from tests.slots.helpers import at, game, meters_event

pytestmark = pytest.mark.django_db


# --- Per-event codes -------------------------------------------------------------------------------


def _event(slot: SlotMachine, **fields) -> dict:
    return {**game(slot, 1), **fields}


def _without(event: dict, name: str) -> dict:
    return {key: value for key, value in event.items() if key != name}


def _jackpot(machine, **paid) -> dict:
    return _event(machine, type="jackpot", level=17, amount=100, **paid)


REJECTIONS = [
    ("invalid_event", lambda m: ["not an object"]),
    ("invalid_event", lambda m: [None]),
    ("invalid_event", lambda m: [_event(m, note="a\x00b")]),
    ("invalid_event", lambda m: [_event(m, extra={"k\x00": [1, "x"]})]),
    ("unknown_machine", lambda m: [_event(m, machine="NOG-9999")]),
    ("unknown_machine", lambda m: [_event(m, machine="NOG-0101\x00")]),
    ("unknown_machine", lambda m: [_event(m, machine="N" * 5000)]),
    ("unknown_machine", lambda m: [_event(m, machine=101)]),
    ("unknown_machine", lambda m: [_without(_event(m), "machine")]),
    ("invalid_seq", lambda m: [_event(m, seq=0)]),
    ("invalid_seq", lambda m: [_event(m, seq=-5)]),
    ("invalid_seq", lambda m: [_event(m, seq="7")]),
    ("invalid_seq", lambda m: [_event(m, seq=7.0)]),
    ("invalid_seq", lambda m: [_event(m, seq=True)]),
    ("invalid_seq", lambda m: [_event(m, seq=2**63)]),
    ("invalid_seq", lambda m: [_without(_event(m), "seq")]),
    ("unknown_type", lambda m: [_event(m, type="bonus")]),
    ("unknown_type", lambda m: [_without(_event(m), "type")]),
    ("invalid_at", lambda m: [_event(m, at="2026-11-21 18:03")]),
    ("invalid_at", lambda m: [_event(m, at="2026-11-21T18:03:05")]),
    ("invalid_at", lambda m: [_event(m, at="2026-13-21T18:03:05Z")]),
    ("invalid_at", lambda m: [_event(m, at="21/11/2026 18:03:05Z")]),
    ("invalid_at", lambda m: [_event(m, at=1763748185)]),
    ("invalid_at", lambda m: [_event(m, at="2026-11-21T18:03:05+15:00")]),
    ("at_in_future", lambda m: [_event(m, at=(timezone.now() + timedelta(seconds=301)).isoformat())]),
    ("at_too_old", lambda m: [_event(m, at=(timezone.now() - timedelta(days=7, seconds=1)).isoformat())]),
    ("invalid_wager", lambda m: [_event(m, wager=0)]),
    ("invalid_wager", lambda m: [_event(m, wager=-50)]),
    ("invalid_wager", lambda m: [_event(m, wager=4.5)]),
    ("invalid_wager", lambda m: [_event(m, wager="450")]),
    ("invalid_wager", lambda m: [_without(_event(m), "wager")]),
    ("wager_out_of_range", lambda m: [_event(m, wager=49)]),
    ("wager_out_of_range", lambda m: [_event(m, wager=451)]),
    ("invalid_win", lambda m: [_event(m, win=-1)]),
    ("invalid_win", lambda m: [_event(m, win=None)]),
    ("invalid_win", lambda m: [_without(_event(m), "win")]),
    ("win_out_of_range", lambda m: [_event(m, wager=50, win=5_000_001)]),
    ("win_out_of_range", lambda m: [_event(m, win=2**63 - 1)]),
    ("invalid_meters", lambda m: [meters_event(m, {})]),
    ("invalid_meters", lambda m: [meters_event(m, [1, 2])]),
    ("unknown_meter", lambda m: [meters_event(m, {"coin_in": 5, "coins": 1})]),
    ("invalid_meter", lambda m: [meters_event(m, {"coin_in": -1})]),
    ("invalid_meter", lambda m: [meters_event(m, {"coin_in": 10**10})]),
    ("invalid_meter", lambda m: [meters_event(m, {"coin_in": "5"})]),
    ("unknown_status", lambda m: [{**_without(_event(m, type="status"), "wager"), "status": "on_fire"}]),
    ("unknown_status", lambda m: [_event(m, type="status")]),
    ("invalid_level", lambda m: [_event(m, type="jackpot", level=0, amount=100)]),
    ("invalid_level", lambda m: [_event(m, type="jackpot", level="17", amount=100)]),
    ("invalid_amount", lambda m: [_event(m, type="jackpot", level=17, amount=0)]),
    ("invalid_amount", lambda m: [_event(m, type="jackpot", level=17)]),
    ("amount_out_of_range", lambda m: [_event(m, type="jackpot", level=17, amount=10**10 + 1)]),
    ("invalid_paid", lambda m: [_jackpot(m, paid="machine")]),
    ("invalid_paid", lambda m: [_jackpot(m, paid="machine", paid_amount=0)]),
    ("invalid_paid", lambda m: [_jackpot(m, paid="machine", paid_amount="5")]),
    ("invalid_paid", lambda m: [_jackpot(m, paid="machine", paid_amount=10**10 + 1)]),
    ("invalid_paid", lambda m: [_jackpot(m, paid="attendant", paid_amount=100)]),
    ("invalid_paid", lambda m: [_jackpot(m, paid="house")]),
    ("invalid_paid", lambda m: [_jackpot(m, paid_amount=100)]),
    ("invalid_paid", lambda m: [_jackpot(m, paid=["machine"])]),
    ("level_not_played", lambda m: [_event(m, type="jackpot", level=999_999, amount=100)]),
]


@pytest.mark.parametrize(
    ("code", "events"), REJECTIONS, ids=[f"{c}-{i}" for i, (c, _) in enumerate(REJECTIONS)]
)
def test_each_invalid_event_is_rejected_with_its_code_and_changes_nothing(
    machine, machine_key, post_events, code, events
):
    status, body = post_events(events(machine), key=machine_key)
    assert status == 200
    assert body["accepted"] == 0
    assert body["duplicates"] == 0
    assert [(item["index"], item["error"]) for item in body["rejected"]] == [(0, code)]
    assert body["rejected"][0]["detail"]
    assert MachineEvent.objects.count() == 0
    machine.refresh_from_db()
    assert machine.last_seen is None


def test_every_event_code_is_covered_by_a_test():
    tested = {code for code, _ in REJECTIONS} | {
        "forbidden_machine",
        "machine_not_in_service",
        "seq_conflict",
    }
    assert tested == set(EVENT_ERRORS)


def test_wager_limits_are_inclusive(machine, machine_key, post_events):
    status, body = post_events([game(machine, 1, wager=50), game(machine, 2, wager=450)], key=machine_key)
    assert (status, body) == (200, {"accepted": 2, "duplicates": 0, "rejected": []})


def test_at_up_to_5_minutes_ahead_is_accepted(machine, machine_key, post_events):
    ahead = (timezone.now() + timedelta(seconds=290)).isoformat()
    assert post_events([_event(machine, at=ahead)], key=machine_key)[1]["accepted"] == 1


def test_rfc3339_spellings_of_one_instant_are_the_same_event(machine, machine_key, post_events):
    day = (timezone.now() - timedelta(days=1)).date().isoformat()
    first = _event(machine, at=f"{day}T18:03:05.120Z")
    again = _event(machine, at=f"{day}T19:03:05.12+01:00")
    assert post_events([first], key=machine_key)[1]["accepted"] == 1
    assert post_events([again], key=machine_key)[1] == {"accepted": 0, "duplicates": 1, "rejected": []}


def test_machine_key_may_not_post_for_another_machine(machine, machine_key, post_events):
    other = SlotMachineFactory(room=machine.room)
    status, body = post_events([game(machine, 1), game(other, 1)], key=machine_key)
    assert status == 200
    assert body["accepted"] == 1
    assert body["rejected"] == [
        {
            "index": 1,
            "error": "forbidden_machine",
            "detail": f"This key may not post events for {other.asset_number}.",
        }
    ]
    assert not MachineEvent.objects.filter(machine=other).exists()


def test_gateway_key_posts_for_any_machine_of_its_venue_only(machine, gateway_key, post_events):
    neighbour = SlotMachineFactory(room=machine.room)
    venezia = VenueFactory(code="VEN", name="Ca' Vendramin Calergi")
    elsewhere = SlotMachineFactory(room__venue=venezia)
    status, body = post_events([game(machine, 1), game(neighbour, 1), game(elsewhere, 1)], key=gateway_key)
    assert (status, body["accepted"]) == (200, 2)
    assert [(item["index"], item["error"]) for item in body["rejected"]] == [(2, "forbidden_machine")]


def test_out_of_service_machine_is_rejected_and_stays_so(machine, machine_key, post_events):
    SlotMachine.objects.filter(pk=machine.pk).update(status=SlotMachine.Status.OUT_OF_SERVICE)
    body = post_events([game(machine, 1)], key=machine_key)[1]
    assert [(item["index"], item["error"]) for item in body["rejected"]] == [(0, "machine_not_in_service")]
    machine.refresh_from_db()
    assert (machine.status, machine.last_seen) == (SlotMachine.Status.OUT_OF_SERVICE, None)


def test_jackpot_for_a_level_the_machine_plays_is_stored(machine, machine_key, post_events):
    level = LevelFactory()
    ProgressiveMachine.objects.create(progressive=level.progressive, machine=machine)
    event = {"machine": machine.asset_number, "seq": 9, "at": at(9), "type": "jackpot", "level": level.pk,
             "amount": 120050}  # fmt: skip
    assert post_events([event], key=machine_key)[1] == {"accepted": 1, "duplicates": 0, "rejected": []}
    stored = MachineEvent.objects.get()
    assert (stored.type, stored.level_id, stored.amount_cents, stored.pending) == (3, level.pk, 120050, True)


def test_jackpot_for_a_disabled_membership_or_another_progressive_is_rejected(
    machine, machine_key, post_events
):
    played = LevelFactory()
    ProgressiveMachine.objects.create(progressive=played.progressive, machine=machine, enabled=False)
    other = LevelFactory()
    events = [
        {"machine": machine.asset_number, "seq": seq, "at": at(seq), "type": "jackpot", "level": level.pk,
         "amount": 500}
        for seq, level in ((1, played), (2, other))
    ]  # fmt: skip
    body = post_events(events, key=machine_key)[1]
    assert [(item["index"], item["error"]) for item in body["rejected"]] == [
        (0, "level_not_played"),
        (1, "level_not_played"),
    ]


def test_a_second_gateway_key_of_another_venue(post_events, machine):
    venezia = VenueFactory(code="VEN", name="Ca' Vendramin Calergi")
    key = credential_issue(GatewayKey, kind="gw", venue=venezia)[1]
    body = post_events([game(machine, 1)], key=key)[1]
    assert [item["error"] for item in body["rejected"]] == ["forbidden_machine"]
