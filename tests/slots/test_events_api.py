"""POST /api/v1/events: whole-request errors, every per-event code, and what accepted events change."""

from __future__ import annotations

from datetime import timedelta

import orjson
import pytest
from django.test import override_settings
from django.utils import timezone

from floor.credentials import credential_issue, credential_revoke
from jackpots.models import ProgressiveMachine
from slots.models import GatewayKey, MachineAlert, MachineEvent, MachineKey, SlotMachine
from slots.services import auth
from slots.services.errors import EVENT_ERRORS
from tests.factories import LevelFactory, SlotMachineFactory, VenueFactory
from tests.slots.conftest import at, game

pytestmark = pytest.mark.django_db


# --- Whole-request errors ---------------------------------------------------------------------------


def test_missing_key_is_401(machine, post_events):
    status, body = post_events([game(machine, 1)])
    assert status == 401
    assert body == {"error": "missing_key", "detail": "No Authorization: Bearer <key> header was sent."}
    assert MachineEvent.objects.count() == 0


def test_other_scheme_is_missing_key(machine, machine_key, post_events):
    status, body = post_events([game(machine, 1)], HTTP_AUTHORIZATION=f"Token {machine_key}")
    assert (status, body["error"]) == (401, "missing_key")


def test_unknown_key_is_401(machine, post_events, client):
    status, body = post_events([game(machine, 1)], key="pv_mach_not-a-real-key")
    assert (status, body) == (
        401,
        {"error": "invalid_key", "detail": "The key is unknown or has been revoked."},
    )
    response = client.post("/api/v1/events", data=b"{}", content_type="application/json")
    assert response["WWW-Authenticate"] == 'Bearer realm="events"'


def test_revoked_key_stops_working_at_once_in_the_revoking_process(machine, post_events):
    credential, key = credential_issue(MachineKey, kind="mach", machine=machine)
    assert post_events([game(machine, 1)], key=key)[0] == 200
    credential_revoke(credential)
    status, body = post_events([game(machine, 2)], key=key)
    assert (status, body["error"]) == (401, "invalid_key")
    assert list(MachineEvent.objects.values_list("seq", flat=True)) == [1]


def test_revoked_key_stops_working_in_other_processes_once_the_cache_lapses(
    machine, post_events, monkeypatch
):
    credential, key = credential_issue(MachineKey, kind="mach", machine=machine)
    assert post_events([game(machine, 1)], key=key)[0] == 200
    # Another process revoked it: this one is not told, and keeps the key for at most KEY_CACHE_SECONDS.
    MachineKey.objects.filter(pk=credential.pk).update(revoked_at=timezone.now())
    assert post_events([game(machine, 2)], key=key)[0] == 200
    later = auth.time.monotonic() + auth.KEY_CACHE_SECONDS + 0.1
    monkeypatch.setattr(auth.time, "monotonic", lambda: later)
    status, body = post_events([game(machine, 3)], key=key)
    assert (status, body["error"]) == (401, "invalid_key")
    assert sorted(MachineEvent.objects.values_list("seq", flat=True)) == [1, 2]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", "invalid_json"),
        (b"\xff\xfe", "invalid_json"),
        (b"[]", "invalid_body"),
        (b'{"events": {"machine": "NOG-0101"}}', "invalid_body"),
        (b'{"event": []}', "invalid_body"),
        (b"null", "invalid_body"),
    ],
)
def test_malformed_body_is_400(machine_key, post_events, body, code):
    status, response = post_events(body=body, key=machine_key)
    assert (status, response["error"]) == (400, code)
    assert MachineEvent.objects.count() == 0


def test_more_than_1000_events_is_400_and_stores_nothing(machine, machine_key, post_events):
    status, body = post_events([game(machine, seq) for seq in range(1, 1002)], key=machine_key)
    assert status == 400
    assert body == {
        "error": "too_many_events",
        "detail": "A request carries at most 1000 events; this one has 1001.",
    }
    assert MachineEvent.objects.count() == 0


def test_exactly_1000_events_are_accepted(machine, machine_key, post_events):
    status, body = post_events([game(machine, seq) for seq in range(1, 1001)], key=machine_key)
    assert (status, body) == (200, {"accepted": 1000, "duplicates": 0, "rejected": []})


def test_body_over_1_mib_is_413_before_the_key_is_checked(machine, post_events):
    padding = " " * (1024 * 1024)
    body = orjson.dumps({"events": [game(machine, 1)]}) + padding.encode()
    status, response = post_events(body=body)
    assert (status, response) == (
        413,
        {"error": "body_too_large", "detail": "The body is larger than 1 MiB."},
    )
    assert MachineEvent.objects.count() == 0


def test_body_of_exactly_1_mib_is_read(machine, machine_key, post_events):
    document = orjson.dumps({"events": [game(machine, 1)]})
    body = document + b" " * (1024 * 1024 - len(document))
    assert post_events(body=body, key=machine_key) == (200, {"accepted": 1, "duplicates": 0, "rejected": []})


async def test_body_over_1_mib_without_content_length_is_413():
    """Under ASGI a chunked body has no Content-Length: what actually arrives is measured."""
    from asgiref.testing import ApplicationCommunicator
    from django.core.asgi import get_asgi_application

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/v1/events",
        "raw_path": b"/api/v1/events",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }
    communicator = ApplicationCommunicator(get_asgi_application(), scope)
    chunk = b" " * (256 * 1024)
    for _ in range(4):
        await communicator.send_input({"type": "http.request", "body": chunk, "more_body": True})
    await communicator.send_input({"type": "http.request", "body": b"{}", "more_body": False})
    start = await communicator.receive_output(5)
    body = await communicator.receive_output(5)
    assert start["status"] == 413
    assert orjson.loads(body["body"]) == {
        "error": "body_too_large",
        "detail": "The body is larger than 1 MiB.",
    }


def test_get_is_405_in_the_error_format(machine_key, client):
    response = client.get("/api/v1/events", HTTP_AUTHORIZATION=f"Bearer {machine_key}")
    assert response.status_code == 405
    assert orjson.loads(response.content) == {
        "error": "method_not_allowed",
        "detail": "Only POST is allowed on this path.",
    }


# --- Per-event codes -------------------------------------------------------------------------------


def _event(slot: SlotMachine, **fields) -> dict:
    return {**game(slot, 1), **fields}


def _meters(machine: SlotMachine, meters, seq: int = 1) -> dict:
    return {"machine": machine.asset_number, "seq": seq, "at": at(seq), "type": "meters", "meters": meters}


def _without(event: dict, name: str) -> dict:
    return {key: value for key, value in event.items() if key != name}


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
    ("at_in_future", lambda m: [_event(m, at=(timezone.now() + timedelta(seconds=301)).isoformat())]),
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
    ("invalid_meters", lambda m: [_meters(m, {})]),
    ("invalid_meters", lambda m: [_meters(m, [1, 2])]),
    ("unknown_meter", lambda m: [_meters(m, {"coin_in": 5, "coins": 1})]),
    ("invalid_meter", lambda m: [_meters(m, {"coin_in": -1})]),
    ("invalid_meter", lambda m: [_meters(m, {"coin_in": 10**10})]),
    ("invalid_meter", lambda m: [_meters(m, {"coin_in": "5"})]),
    ("unknown_status", lambda m: [{**_without(_event(m, type="status"), "wager"), "status": "on_fire"}]),
    ("unknown_status", lambda m: [_event(m, type="status")]),
    ("invalid_level", lambda m: [_event(m, type="jackpot", level=0, amount=100)]),
    ("invalid_level", lambda m: [_event(m, type="jackpot", level="17", amount=100)]),
    ("invalid_amount", lambda m: [_event(m, type="jackpot", level=17, amount=0)]),
    ("invalid_amount", lambda m: [_event(m, type="jackpot", level=17)]),
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
    first = _event(machine, at="2026-11-20T18:03:05.120Z")
    again = _event(machine, at="2026-11-20T19:03:05.12+01:00")
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


# --- Exactly once ----------------------------------------------------------------------------------


def test_retry_is_a_duplicate_and_changes_nothing(machine, machine_key, post_events):
    events = [game(machine, 1), game(machine, 2, win=900)]
    assert post_events(events, key=machine_key)[1] == {"accepted": 2, "duplicates": 0, "rejected": []}
    stored = list(MachineEvent.objects.order_by("seq").values_list("id", "digest", "received_at"))
    assert post_events([*events, game(machine, 3)], key=machine_key)[1] == {
        "accepted": 1,
        "duplicates": 2,
        "rejected": [],
    }
    assert list(MachineEvent.objects.order_by("seq").values_list("id", "digest", "received_at"))[:2] == stored


def test_same_seq_other_content_is_a_conflict_recorded_for_the_floor(machine, machine_key, post_events):
    post_events([game(machine, 7, win=0)], key=machine_key)
    status, body = post_events([game(machine, 7, win=5000)], key=machine_key)
    assert status == 200
    assert (body["accepted"], body["duplicates"]) == (0, 0)
    assert [(item["index"], item["error"]) for item in body["rejected"]] == [(0, "seq_conflict")]
    assert MachineEvent.objects.get().win_cents == 0
    alert = MachineAlert.objects.get()
    assert (alert.machine_id, alert.kind, alert.seq, alert.payload["win"]) == (
        machine.pk,
        "seq_conflict",
        7,
        5000,
    )


def test_repeats_inside_one_batch(machine, machine_key, post_events):
    events = [game(machine, 1), game(machine, 1), game(machine, 1, win=10)]
    body = post_events(events, key=machine_key)[1]
    assert (body["accepted"], body["duplicates"]) == (1, 1)
    assert [(item["index"], item["error"]) for item in body["rejected"]] == [(2, "seq_conflict")]
    assert MachineAlert.objects.filter(kind="seq_conflict").count() == 1


def test_rejected_events_do_not_stop_the_valid_ones(machine, machine_key, post_events):
    events = [game(machine, 1), _event(machine, seq=2, wager=0), game(machine, 3)]
    body = post_events(events, key=machine_key)[1]
    assert (body["accepted"], [item["index"] for item in body["rejected"]]) == (2, [1])
    assert sorted(MachineEvent.objects.values_list("seq", flat=True)) == [1, 3]


# --- What accepted events change -------------------------------------------------------------------


def test_game_is_stored_ready_for_the_engine(machine, machine_key, post_events):
    post_events([game(machine, 1, wager=450, win=900), game(machine, 2, wager=100)], key=machine_key)
    rows = list(
        MachineEvent.objects.order_by("seq").values_list(
            "type",
            "wager_cents",
            "win_cents",
            "bank_id",
            "denomination_cents",
            "is_max_bet",
            "pending",
            "payload",
        )
    )
    assert rows == [
        (1, 450, 900, machine.bank_id, 50, True, True, {"wager": 450, "win": 900}),
        (1, 100, 0, machine.bank_id, 50, False, True, {"wager": 100, "win": 0}),
    ]


def test_events_move_last_seen_and_games_move_last_game_at(machine, machine_key, post_events):
    before = timezone.now()
    post_events([game(machine, 2), game(machine, 1)], key=machine_key)
    machine.refresh_from_db()
    assert machine.last_seen >= before
    assert machine.last_game_at == MachineEvent.objects.get(seq=2).at
    status_event = {
        "machine": machine.asset_number,
        "seq": 3,
        "at": at(3),
        "type": "status",
        "status": "tilt",
    }
    post_events([status_event], key=machine_key)
    machine.refresh_from_db()
    assert machine.last_game_at == MachineEvent.objects.get(seq=2).at


def test_an_offline_machine_comes_back_with_its_next_event(machine, machine_key, post_events):
    SlotMachine.objects.filter(pk=machine.pk).update(status=SlotMachine.Status.OFFLINE)
    assert post_events([game(machine, 1)], key=machine_key)[1]["accepted"] == 1
    machine.refresh_from_db()
    assert machine.status == SlotMachine.Status.IN_SERVICE


@pytest.mark.parametrize(
    ("statuses", "flags"),
    [
        (["door_open"], (True, False, False, True)),
        (["door_open", "door_closed"], (False, False, False, True)),
        (["tilt"], (False, True, False, True)),
        (["tilt", "power_off"], (False, True, False, False)),
        (["tilt", "power_off", "power_on"], (False, False, False, True)),
        (["handpay_lockup"], (False, False, True, True)),
        (["handpay_lockup", "handpay_reset"], (False, False, False, True)),
    ],
)
def test_status_events_set_the_machine_flags(machine, machine_key, post_events, statuses, flags):
    events = [
        {"machine": machine.asset_number, "seq": seq, "at": at(seq), "type": "status", "status": status}
        for seq, status in enumerate(statuses, start=1)
    ]
    # Posted newest first: they are applied in seq order all the same.
    assert post_events(events[::-1], key=machine_key)[1]["accepted"] == len(statuses)
    machine.refresh_from_db()
    assert (machine.door_open, machine.tilted, machine.handpay_locked, machine.powered) == flags
    assert machine.status_seq == len(statuses)


def test_an_older_status_arriving_late_does_not_overwrite_a_newer_one(machine, machine_key, post_events):
    def status(seq: int, name: str) -> dict:
        return {"machine": machine.asset_number, "seq": seq, "at": at(seq), "type": "status", "status": name}

    post_events([status(5, "door_closed")], key=machine_key)
    post_events([status(4, "door_open")], key=machine_key)
    machine.refresh_from_db()
    assert (machine.door_open, machine.status_seq) == (False, 5)
    assert MachineEvent.objects.count() == 2


@override_settings(CELERY_TASK_ALWAYS_EAGER=False)
def test_with_a_worker_a_process_asks_the_engine_at_most_every_tenth_of_a_second(
    machine, machine_key, post_events, django_capture_on_commit_callbacks, monkeypatch
):
    from slots.services import ingest

    calls = []
    monkeypatch.setattr(ingest.contributions_apply_task, "delay", lambda: calls.append(1))
    monkeypatch.setattr(ingest, "_engine_notified_at", [float("-inf")])
    clock = [1000.0]
    monkeypatch.setattr(ingest.time, "monotonic", lambda: clock[0])
    for seq, step in ((1, 0.05), (2, 0.06), (3, 0.0)):
        with django_capture_on_commit_callbacks(execute=True):
            post_events([game(machine, seq)], key=machine_key)
        clock[0] += step
    # Asked at 1000.0, not at 1000.05 (too soon), again at 1000.11.
    assert calls == [1, 1]


def test_engine_is_asked_once_per_request_after_commit(
    machine, machine_key, post_events, django_capture_on_commit_callbacks, monkeypatch
):
    from slots.services import ingest

    calls = []
    monkeypatch.setattr(ingest.contributions_apply_task, "delay", lambda: calls.append(1))
    monkeypatch.setattr(ingest, "_engine_notified_at", [float("-inf")])
    with django_capture_on_commit_callbacks(execute=True):
        post_events([game(machine, seq) for seq in range(1, 51)], key=machine_key)
    assert calls == [1]
    status_event = {
        "machine": machine.asset_number,
        "seq": 99,
        "at": at(99),
        "type": "status",
        "status": "tilt",
    }
    with django_capture_on_commit_callbacks(execute=True):
        post_events([status_event, game(machine, 1)], key=machine_key)
    assert calls == [1], "no game or jackpot stored: the engine has nothing to do"


def test_gateway_batch_of_many_machines_with_meters_and_status(machine, gateway_key, post_events):
    others = SlotMachineFactory.create_batch(3, room=machine.room)
    events = []
    for number, each in enumerate([machine, *others]):
        events += [
            game(each, 1),
            _meters(each, {"coin_in": 1000 * (number + 1), "games_played": 3}, seq=2),
            {"machine": each.asset_number, "seq": 3, "at": at(3), "type": "status", "status": "door_open"},
        ]
    body = post_events(events, key=gateway_key)[1]
    assert body == {"accepted": 12, "duplicates": 0, "rejected": []}
    assert sorted(SlotMachine.objects.values_list("door_open", flat=True)) == [True] * 4
    assert SlotMachine.objects.filter(last_game_at__isnull=True).count() == 0


def test_unknown_extra_fields_are_kept_in_the_payload(machine, machine_key, post_events):
    post_events([game(machine, 1, denomination_game="2x3x4x5x")], key=machine_key)
    assert MachineEvent.objects.get().payload == {"wager": 450, "win": 0, "denomination_game": "2x3x4x5x"}


def test_a_second_gateway_key_of_another_venue(post_events, machine):
    venezia = VenueFactory(code="VEN", name="Ca' Vendramin Calergi")
    key = credential_issue(GatewayKey, kind="gw", venue=venezia)[1]
    body = post_events([game(machine, 1)], key=key)[1]
    assert [item["error"] for item in body["rejected"]] == ["forbidden_machine"]
