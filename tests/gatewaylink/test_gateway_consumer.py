"""The gateway's websocket through the real ASGI application and channel layer (gateway/README.md
"Server route")."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model

from common.credentials import credentials_revoke
from gatewaylink.models import SasAward
from jackpots.hooks import (
    hit_announced_on_commit,
    levels_changed_on_commit,
    progressive_group,
    rules_changed_on_commit,
)
from jackpots.models import Hit, Level
from jackpots.services import hit_pay, hit_verify, level_resume, level_suspend
from slots.models import GatewayKey, SlotMachine
from slots.services.keys import gateway_key_issue, machine_key_issue
from tests.factories import VenueFactory
from tests.gatewaylink.helpers import (
    SOCKET_TESTS,
    Floor,
    gateway_open,
    mystery_hit,
    receive_until,
)

pytestmark = SOCKET_TESTS


def snapshot_levels(frame: dict) -> list[dict]:
    return [
        {key: level[key] for key in ("id", "name", "amount_eur", "reset_eur", "seq")}
        for jackpot in frame["jackpots"]
        for level in jackpot["levels"]
    ]


async def test_snapshot_on_connect_rounds_down_and_carries_resets(floor: Floor):
    ws = await gateway_open(floor.path)
    frame = await ws.receive_json_from(timeout=5)
    assert frame["type"] == "snapshot"
    assert [jackpot["id"] for jackpot in frame["jackpots"]] == [floor.progressive.id]
    assert snapshot_levels(frame) == [
        {"id": floor.grand.id, "name": "Grand", "amount_eur": "1523.47", "reset_eur": "1000.00", "seq": 7},
        {"id": floor.minor.id, "name": "Minor", "amount_eur": "105.00", "reset_eur": "100.00", "seq": 3},
    ]
    assert await ws.receive_nothing(timeout=0.2)
    await ws.disconnect()


@pytest.mark.parametrize("token", ["", "gw_not-a-key"])
async def test_a_bad_key_is_closed_4401(floor: Floor, token: str):
    ws = await gateway_open(f"/ws/gateway/?token={token}")
    assert await ws.receive_output(timeout=1) == {"type": "websocket.close", "code": 4401}


async def test_a_machine_key_is_no_gateway_key(floor: Floor):
    key = await database_sync_to_async(lambda: machine_key_issue(floor.sas1)[1])()
    ws = await gateway_open(f"/ws/gateway/?token={key}")
    assert await ws.receive_output(timeout=1) == {"type": "websocket.close", "code": 4401}


async def test_a_revoked_key_is_refused_and_a_connected_gateway_closed(floor: Floor, settings):
    settings.GATEWAY_HEARTBEAT_SECONDS = Decimal("0.1")
    ws = await gateway_open(floor.path)
    assert (await ws.receive_json_from(timeout=5))["type"] == "snapshot"
    await database_sync_to_async(credentials_revoke)(GatewayKey.objects.all())
    frames = []
    while (output := await ws.receive_output(timeout=2))["type"] == "websocket.send":
        frames.append(output)
    assert output == {"type": "websocket.close", "code": 4401}
    again = await gateway_open(floor.path)
    assert await again.receive_output(timeout=1) == {"type": "websocket.close", "code": 4401}


async def test_another_venues_key_sees_nothing_of_this_venue(floor: Floor):
    other = await database_sync_to_async(lambda: gateway_key_issue(VenueFactory(code="VEN"))[1])()
    ws = await gateway_open(f"/ws/gateway/?token={other}")
    assert await ws.receive_json_from(timeout=5) == {"type": "snapshot", "jackpots": []}
    await database_sync_to_async(mystery_hit)(floor.minor, floor.sas1, 10_525)
    # No progressive of the other venue: nothing reaches it, neither the hit nor the award.
    assert await ws.receive_nothing(timeout=0.3)
    await ws.disconnect()


async def test_a_foreign_origin_is_refused_at_the_handshake(floor: Floor):
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    ws = WebsocketCommunicator(application, floor.path, headers=[(b"origin", b"http://evil.example")])
    connected, code = await ws.connect()
    assert (connected, code) == (False, 1000)  # a close before accept: the server answers 403


def level_set(level: Level, current_mc: int, seq: int) -> None:
    Level.objects.filter(pk=level.pk).update(current_mc=current_mc, seq=seq)
    levels_changed_on_commit([level.id])


async def test_update_on_every_level_change_older_seqs_dropped(floor: Floor):
    ws = await gateway_open(floor.path)
    await ws.receive_json_from(timeout=5)
    await database_sync_to_async(level_set)(floor.grand, 152_400_999, 8)
    assert await ws.receive_json_from(timeout=5) == {
        "type": "update",
        "levels": [{"id": floor.grand.id, "amount_eur": "1524.00", "seq": 8, "state": "active"}],
    }
    await database_sync_to_async(level_set)(floor.grand, 152_300_000, 6)  # older than shown: dropped
    await database_sync_to_async(level_set)(floor.minor, 10_600_000, 4)
    assert await ws.receive_json_from(timeout=5) == {
        "type": "update",
        "levels": [{"id": floor.minor.id, "amount_eur": "106.00", "seq": 4, "state": "active"}],
    }
    await ws.disconnect()


async def test_a_suspension_and_a_resumption_reach_the_gateway_and_its_next_snapshot(floor: Floor):
    ws = await gateway_open(floor.path)
    await ws.receive_json_from(timeout=5)
    user = await database_sync_to_async(get_user_model().objects.create_user)("manager")
    await database_sync_to_async(level_suspend)(floor.grand, user, "controller fault")
    assert await ws.receive_json_from(timeout=5) == {
        "type": "update",
        "levels": [{"id": floor.grand.id, "amount_eur": "1523.47", "seq": 8, "state": "suspended"}],
    }
    await ws.disconnect()  # one connection per key: the gateway comes back to a snapshot
    again = await gateway_open(floor.path)
    snapshot = await again.receive_json_from(timeout=5)
    levels = [level for jackpot in snapshot["jackpots"] for level in jackpot["levels"]]
    states = [(level["id"], level["state"]) for level in levels]
    assert states == [(floor.grand.id, "suspended"), (floor.minor.id, "active")]
    await database_sync_to_async(level_resume)(floor.grand, user, "controller replaced")
    assert await again.receive_json_from(timeout=5) == {
        "type": "update",
        "levels": [{"id": floor.grand.id, "amount_eur": "1523.47", "seq": 9, "state": "active"}],
    }
    await again.disconnect()


async def test_a_retired_level_is_not_in_the_snapshot(floor: Floor):
    await database_sync_to_async(Level.objects.filter(pk=floor.grand.pk).update)(state="retired")
    ws = await gateway_open(floor.path)
    frame = await ws.receive_json_from(timeout=5)
    assert [level["id"] for level in snapshot_levels(frame)] == [floor.minor.id]


async def test_a_theme_or_rules_message_for_the_signs_leaves_the_gateway_connected(floor: Floor):
    """The signs' messages reach the progressive's group, which the gateway joins too: it ignores them
    (without a handler Channels ended the connection) and the next update still comes."""
    ws = await gateway_open(floor.path)
    await ws.receive_json_from(timeout=5)
    await database_sync_to_async(rules_changed_on_commit)(floor.progressive.id)
    # A theme's and a Caribbean Stud declaration's messages go to the same group (the signs' publish).
    group = progressive_group(floor.progressive.id)
    await get_channel_layer().group_send(
        group, {"type": "theme.changed", "progressive": floor.progressive.id, "theme": {}}
    )
    frame = {"type": "declaration", "jackpot": floor.progressive.id, "state": "pending"}
    await get_channel_layer().group_send(group, {"type": "declaration.changed", "frame": frame})
    await database_sync_to_async(level_set)(floor.grand, 152_400_999, 8)
    assert await ws.receive_json_from(timeout=5) == {
        "type": "update",
        "levels": [{"id": floor.grand.id, "amount_eur": "1524.00", "seq": 8, "state": "active"}],
    }
    await ws.disconnect()


async def test_heartbeat_at_the_configured_interval(floor: Floor, settings):
    settings.GATEWAY_HEARTBEAT_SECONDS = Decimal("0.2")
    ws = await gateway_open(floor.path)
    await ws.receive_json_from(timeout=5)
    started = asyncio.get_running_loop().time()
    beat = await ws.receive_json_from(timeout=2)
    assert beat["type"] == "heartbeat" and set(beat) == {"type", "at"}
    assert 0.15 <= asyncio.get_running_loop().time() - started < 1.5
    await ws.disconnect()


def machine_hit(floor: Floor) -> Hit:
    hit = Hit.objects.create(
        level=floor.grand,
        machine=floor.sas2,
        at=floor.grand.progressive.created_at,
        amount_cents=152_347,
        level_seq=8,
        cycle=1,
    )
    hit_announced_on_commit(hit.id)
    return hit


async def test_a_machine_hit_is_sent_as_the_signs_see_it_and_no_award(floor: Floor):
    ws = await gateway_open(floor.path)
    await ws.receive_json_from(timeout=5)
    hit = await database_sync_to_async(machine_hit)(floor)
    # The same frame as the signs' WIN, place included (the room and game of the winning machine).
    place = await database_sync_to_async(lambda: f"{hit.machine.room.name} · {hit.machine.game_title}")()
    assert await ws.receive_json_from(timeout=5) == {
        "type": "hit",
        "level": floor.grand.id,
        "amount_eur": "1523.47",
        "machine": "NOG-0102",
        "place": place,
        "reset_eur": "1000.00",
        "seq": 8,
    }
    assert await ws.receive_nothing(timeout=0.3)
    await ws.disconnect()


async def test_a_mystery_hit_of_a_sas_machine_is_sent_as_an_award(floor: Floor):
    ws = await gateway_open(floor.path)
    await ws.receive_json_from(timeout=5)
    hit = await database_sync_to_async(mystery_hit)(floor.minor, floor.sas1, 10_525)
    frames = await receive_until(ws, "hit", "award")
    assert sorted(frame["type"] for frame in frames) == ["award", "hit"]
    award = {"type": "award", "award": hit.id, "machine": "NOG-0101", "amount": 10_525}
    assert [frame for frame in frames if frame["type"] == "award"] == [award]
    await ws.disconnect()


async def test_a_mystery_hit_of_a_machine_off_sas_is_no_award(floor: Floor):
    ws = await gateway_open(floor.path)
    await ws.receive_json_from(timeout=5)
    await database_sync_to_async(mystery_hit)(floor.minor, floor.plain, 10_525)
    assert (await ws.receive_json_from(timeout=5))["machine"] == "NOG-0103"
    assert await ws.receive_nothing(timeout=0.3)
    await ws.disconnect()


async def test_unanswered_awards_are_sent_again_on_connect_until_answered(floor: Floor):
    hit = await database_sync_to_async(mystery_hit)(floor.minor, floor.sas1, 10_525, announce=False)
    for _ in range(2):  # nothing answered: sent on every connection
        ws = await gateway_open(floor.path)
        frames = await receive_until(ws, "award")
        assert [f["type"] for f in frames] == ["snapshot", "award"]
        assert frames[1] == {"type": "award", "award": hit.id, "machine": "NOG-0101", "amount": 10_525}
        await ws.disconnect()
    ws = await gateway_open(floor.path)
    await receive_until(ws, "award")
    await ws.send_json_to(award_result(hit, "handpay"))
    assert (await ws.receive_json_from(timeout=5))["type"] == "award_recorded"
    await ws.disconnect()
    ws = await gateway_open(floor.path)
    assert (await ws.receive_json_from(timeout=5))["type"] == "snapshot"
    assert await ws.receive_nothing(timeout=0.3)
    await ws.disconnect()


def award_result(hit: Hit, status: str, paid: int | None = None, **changes) -> dict:
    """The gateway's answer for an award of NOG-0101 (every award of these tests is for it)."""
    message = {
        "type": "award_result",
        "award": hit.id,
        "machine": "NOG-0101",
        "amount": hit.amount_cents,
        "status": status,
    }
    if paid is not None:
        message["paid"] = paid
    return {**message, **changes}


def award_state(hit: Hit) -> tuple:
    hit.refresh_from_db()
    award = SasAward.objects.filter(hit=hit).values_list(
        "status", "asked_cents", "paid_cents", "difference_cents"
    )
    return hit.state, hit.paid_by_id, hit.paid_at is not None, list(award)


async def test_paid_short_records_the_machines_part_and_its_difference_once(floor: Floor):
    hit = await database_sync_to_async(mystery_hit)(floor.minor, floor.sas1, 10_525, announce=False)
    ws = await gateway_open(floor.path)
    await receive_until(ws, "award")
    await ws.send_json_to(award_result(hit, "paid", 10_500))
    assert await ws.receive_json_from(timeout=5) == {
        "type": "award_recorded",
        "award": hit.id,
        "status": "paid",
        "paid": 10_500,
    }
    recorded = await database_sync_to_async(award_state)(hit)
    # 25 cents short: the hit stays open for the attendants (test_award_paid_short.py).
    assert recorded == ("hit", None, False, [("paid", 10_525, 10_500, -25)])
    paid_at = (await database_sync_to_async(Hit.objects.get)(pk=hit.pk)).paid_at
    # The same answer again (a gateway that was not sure it reached us): acknowledged, nothing changes.
    await ws.send_json_to(award_result(hit, "paid", 10_500))
    assert (await ws.receive_json_from(timeout=5))["type"] == "award_recorded"
    assert await database_sync_to_async(award_state)(hit) == recorded
    assert (await database_sync_to_async(Hit.objects.get)(pk=hit.pk)).paid_at == paid_at
    # Another answer for the same award is refused.
    await ws.send_json_to(award_result(hit, "handpay"))
    assert await ws.receive_json_from(timeout=5) == {
        "type": "error",
        "error": "award_answered",
        "detail": "This award was already answered with another outcome.",
        "award": hit.id,
    }
    assert await database_sync_to_async(award_state)(hit) == recorded
    await ws.disconnect()


async def test_handpay_leaves_the_hit_for_the_attendants(floor: Floor):
    hit = await database_sync_to_async(mystery_hit)(floor.minor, floor.sas1, 150_000, announce=False)
    ws = await gateway_open(floor.path)
    await receive_until(ws, "award")
    await ws.send_json_to(award_result(hit, "handpay"))
    assert await ws.receive_json_from(timeout=5) == {
        "type": "award_recorded",
        "award": hit.id,
        "status": "handpay",
        "paid": 0,
    }
    assert await database_sync_to_async(award_state)(hit) == (
        "hit",
        None,
        False,
        [("handpay", 150_000, 0, 0)],
    )
    await ws.disconnect()


BAD_ANSWERS = [
    ("not json", "invalid_message"),
    ([1, 2], "invalid_message"),
    ({"type": "award"}, "invalid_message"),
    ({"type": "award_result", "award": "7"}, "invalid_award"),
    ({"type": "award_result", "award": True}, "invalid_award"),
    ({"status": "lost"}, "invalid_status"),
    ({"paid": None}, "invalid_paid"),
    ({"status": "paid", "paid": -1}, "invalid_paid"),
    ({"status": "paid", "paid": 1.5}, "invalid_paid"),
    ({"status": "paid", "paid": 10_526}, "award_overpaid"),
    ({"machine": "NOG-0102"}, "machine_mismatch"),
    ({"amount": 10_000}, "amount_mismatch"),
    ({"amount": "10525"}, "amount_mismatch"),
    ({"award": 999_999}, "unknown_award"),
]


@pytest.mark.parametrize(("change", "code"), BAD_ANSWERS)
async def test_bad_answers_are_refused_and_change_nothing(floor: Floor, change, code):
    hit = await database_sync_to_async(mystery_hit)(floor.minor, floor.sas1, 10_525, announce=False)
    ws = await gateway_open(floor.path)
    await receive_until(ws, "award")
    if isinstance(change, dict) and change.get("type") != "award_result" and "type" not in change:
        changed = {**award_result(hit, "paid", 10_500), **change}
        await ws.send_json_to({key: value for key, value in changed.items() if value is not None})
    elif isinstance(change, str):
        await ws.send_to(text_data=change)
    else:
        await ws.send_json_to(change)
    frame = await ws.receive_json_from(timeout=5)
    assert (frame["type"], frame["error"]) == ("error", code)
    assert await database_sync_to_async(award_state)(hit) == ("hit", None, False, [])
    await ws.disconnect()


async def test_an_award_of_another_venue_is_unknown(floor: Floor):
    hit = await database_sync_to_async(mystery_hit)(floor.minor, floor.sas1, 10_525, announce=False)
    other = await database_sync_to_async(lambda: gateway_key_issue(VenueFactory(code="VEN"))[1])()
    ws = await gateway_open(f"/ws/gateway/?token={other}")
    await ws.receive_json_from(timeout=5)
    await ws.send_json_to(award_result(hit, "paid", 10_525))
    assert (await ws.receive_json_from(timeout=5))["error"] == "unknown_award"
    assert await database_sync_to_async(award_state)(hit) == ("hit", None, False, [])
    await ws.disconnect()


def handpay_paid(floor: Floor, machine: SlotMachine) -> Hit:
    SlotMachine.objects.filter(pk=machine.pk).update(handpay_locked=True)
    hit = Hit.objects.create(
        level=floor.grand,
        machine=machine,
        at=floor.progressive.created_at,
        amount_cents=152_347,
        level_seq=8,
        cycle=1,
    )
    users = [get_user_model().objects.create_user(name) for name in ("attendant", "manager")]
    hit = hit_verify(hit_verify(hit, users[0]), users[1])  # two people at or above the threshold
    hit_pay(hit, users[0])
    return hit


async def test_a_paid_handpay_resets_the_sas_machine_then_on_every_connect_while_locked(floor: Floor):
    ws = await gateway_open(floor.path)
    await ws.receive_json_from(timeout=5)
    await database_sync_to_async(handpay_paid)(floor, floor.sas2)
    assert await ws.receive_json_from(timeout=5) == {"type": "handpay_reset", "machine": "NOG-0102"}
    await ws.disconnect()
    ws = await gateway_open(floor.path)
    frames = await receive_until(ws, "handpay_reset")
    assert frames[1:] == [{"type": "handpay_reset", "machine": "NOG-0102"}]
    await ws.disconnect()
    # The machine reported the reset: nothing more to send.
    await database_sync_to_async(SlotMachine.objects.filter(pk=floor.sas2.pk).update)(handpay_locked=False)
    ws = await gateway_open(floor.path)
    await ws.receive_json_from(timeout=5)
    assert await ws.receive_nothing(timeout=0.3)
    await ws.disconnect()


async def test_a_paid_hit_of_a_machine_off_sas_sends_no_reset(floor: Floor):
    ws = await gateway_open(floor.path)
    await ws.receive_json_from(timeout=5)
    await database_sync_to_async(handpay_paid)(floor, floor.plain)
    assert await ws.receive_nothing(timeout=0.3)
    await ws.disconnect()


async def test_one_live_connection_per_key_freed_the_moment_it_drops(floor: Floor):
    # The benchmark's kills showed a restarted gateway refused ~12 s: its own listener held the key. The
    # server frees a dropped connection's claim at once (1006: the peer vanished, as a SIGKILL leaves it),
    # and a second key of the venue is a connection of its own.
    first = await gateway_open(f"/ws/gateway/?token={floor.token}")
    assert (await first.receive_json_from(timeout=5))["type"] == "snapshot"
    second = await gateway_open(f"/ws/gateway/?token={floor.token}")
    assert await second.receive_output(timeout=1) == {"type": "websocket.close", "code": 4409}
    watch_key = await database_sync_to_async(lambda: gateway_key_issue(floor.sas1.room.venue)[1])()
    watcher = await gateway_open(f"/ws/gateway/?token={watch_key}")
    assert (await watcher.receive_json_from(timeout=5))["type"] == "snapshot"
    await first.disconnect(code=1006)
    restarted = await gateway_open(f"/ws/gateway/?token={floor.token}")
    assert (await restarted.receive_json_from(timeout=5))["type"] == "snapshot"
    await restarted.disconnect()
    await watcher.disconnect()
