"""The sign's websocket through the real ASGI application and channel layer (docs/api.md "Signage")."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from common.credentials import screen_token_revoke
from config.asgi import application
from floor.models import Room
from jackpots.hooks import progressive_group
from jackpots.models import Level
from signage import publish
from signage.currency import ScreenContent
from slots.models import MachineEvent, SlotMachine
from tests.signage.helpers import (
    ORIGIN,
    SOCKET_TESTS,
    SignSetup,
    hit_record_and_announce,
    pending_event_add,
)

pytestmark = SOCKET_TESTS


async def open_sign(setup: SignSetup, *, path: str | None = None, headers=None) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(
        application, path or setup.path, headers=[ORIGIN] if headers is None else headers
    )
    connected, _ = await communicator.connect()
    assert connected
    return communicator


def link_frame(n: int, jackpot: int, state: str) -> dict:
    return {"type": "link", "n": n, "jackpot": jackpot, "state": state}


def level_set(level: Level, current_mc: int, seq: int) -> None:
    Level.objects.filter(pk=level.pk).update(current_mc=current_mc, seq=seq)


async def test_snapshot_on_connect_has_the_jackpots_shape(sign_setup: SignSetup) -> None:
    sign = await open_sign(sign_setup)
    snapshot = await sign.receive_json_from(timeout=3)
    assert snapshot == {
        "type": "snapshot",
        "n": 1,
        "jackpots": [
            {
                "id": sign_setup.progressive.id,
                "name": "Diamond Vault",
                "kind": "linked",
                "currency": "EUR",
                "venues": ["NOG"],
                "link": "up",
                "levels": [
                    {
                        "id": sign_setup.grand.id,
                        "name": "Grand",
                        "amount_eur": "1523.47",  # 152,347,999 mc rounds DOWN
                        "reset_eur": "1000.00",
                        "seq": 7,
                        "state": "active",
                        "last_hit": None,
                        "mystery": False,
                    },
                    {
                        "id": sign_setup.minor.id,
                        "name": "Minor",
                        "amount_eur": "105.00",
                        "reset_eur": "100.00",
                        "seq": 3,
                        "state": "active",
                        "last_hit": None,
                        "mystery": False,
                    },
                ],
                "theme": {
                    "preset": "classic",
                    "title": "Diamond Vault",
                    "colors": {
                        "background": "#5c0a12",
                        "background_deep": "#2a0508",
                        "accent_light": "#f6e3a1",
                        "accent": "#d9b45a",
                        "accent_dark": "#8a6420",
                        "text": "#fbf3dc",
                    },
                    "logo": None,
                },
                "rules": {
                    "it": [
                        "Ogni puntata partecipa",
                        "Grand · Valore di ripartenza €\u00a01.000,00",
                        "Minor · Valore di ripartenza €\u00a0100,00",
                        "Vincite simultanee: pagate nell'ordine di gioco, "
                        "ciascuna con l'importo del suo turno",
                        "Importi in EUR",
                    ],
                    "en": [
                        "Every bet qualifies",
                        "Grand · Reset value €\u00a01,000.00",
                        "Minor · Reset value €\u00a0100.00",
                        "Simultaneous wins are paid in the order played, "
                        "each the amount standing at its turn",
                        "Amounts in EUR",
                    ],
                },
            }
        ],
    }
    await sign.disconnect()


@pytest.mark.parametrize("case", ["wrong", "revoked", "unknown screen", "missing"])
async def test_bad_token_is_closed_with_4401(sign_setup: SignSetup, case: str) -> None:
    path = {
        "wrong": f"/ws/signage/nog-1/?token={sign_setup.token}x",
        "revoked": sign_setup.path,
        "unknown screen": f"/ws/signage/ven-9/?token={sign_setup.token}",
        "missing": "/ws/signage/nog-1/",
    }[case]
    if case == "revoked":
        await database_sync_to_async(screen_token_revoke)(sign_setup.screen)
    sign = await open_sign(sign_setup, path=path)
    assert await sign.receive_output(timeout=3) == {"type": "websocket.close", "code": 4401}
    # The disconnect a server sends after the close ends the consumer at once: a bare wait() for it to
    # end by itself ran out its whole second, every time.
    await sign.disconnect(code=4401)


@pytest.mark.parametrize(
    "headers",
    [[(b"origin", b"http://evil.example")], [(b"origin", b"null")], [(b"origin", b"http://testserver.evil")]],
    ids=["other", "null", "suffix"],
)
async def test_foreign_origin_is_refused_at_handshake(sign_setup: SignSetup, headers) -> None:
    communicator = WebsocketCommunicator(application, sign_setup.path, headers=headers)
    connected, code = await communicator.connect()
    assert (connected, code) == (False, 1000)


async def test_client_without_origin_is_served_on_its_token(sign_setup: SignSetup) -> None:
    """A sign player that is not a browser sends no Origin: its token is the credential."""
    sign = await open_sign(sign_setup, headers=[])
    snapshot = await sign.receive_json_from(timeout=3)
    assert (snapshot["type"], snapshot["n"]) == ("snapshot", 1)
    await sign.disconnect()
    wrong = await open_sign(sign_setup, path=f"{sign_setup.path}x", headers=[])
    assert await wrong.receive_output(timeout=3) == {"type": "websocket.close", "code": 4401}
    await wrong.disconnect(code=4401)  # as a server does after the close (see the test above)


async def test_configured_origins_replace_allowed_hosts(sign_setup: SignSetup, settings) -> None:
    settings.WEBSOCKET_ALLOWED_ORIGINS = ["https://signs.casinovenezia.it"]
    refused = WebsocketCommunicator(application, sign_setup.path, headers=[ORIGIN])
    assert (await refused.connect())[0] is False
    sign = await open_sign(sign_setup, headers=[(b"origin", b"https://signs.casinovenezia.it")])
    assert (await sign.receive_json_from(timeout=3))["type"] == "snapshot"
    await sign.disconnect()


async def test_burst_of_100_changes_is_coalesced_and_ends_on_the_final_value(sign_setup: SignSetup) -> None:
    sign = await open_sign(sign_setup)
    await sign.receive_json_from(timeout=3)
    grand = sign_setup.grand

    def burst() -> float:
        started = time.monotonic()
        for step in range(1, 101):
            level_set(grand, 152_347_999 + step * 10_001, 7 + step)
            publish.levels_changed([grand.id])
        return time.monotonic() - started

    elapsed = await database_sync_to_async(burst)()
    frames = await receive_until_seq(sign, grand.id, 107)
    assert await sign.receive_nothing(timeout=0.6)
    updates = [frame for frame in frames if frame["type"] == "update"]
    # One frame at once, then at most one per 250 ms while the burst lasts.
    assert 1 <= len(updates) <= 2 + int(elapsed * 4)
    assert updates[-1]["levels"] == [{"id": grand.id, "amount_eur": "1533.48", "seq": 107, "state": "active"}]
    seqs = [frame["levels"][0]["seq"] for frame in updates]
    assert seqs == sorted(set(seqs))
    await sign.disconnect()


async def receive_until_seq(sign: WebsocketCommunicator, level_id: int, seq: int) -> list[dict]:
    frames = []
    deadline = time.monotonic() + 5
    while True:
        frame = await sign.receive_json_from(timeout=max(0.01, deadline - time.monotonic()))
        frames.append(frame)
        if frame["type"] == "update" and any(
            level["id"] == level_id and level["seq"] == seq for level in frame["levels"]
        ):
            return frames


async def test_updates_are_paced_to_the_rate_and_older_seqs_dropped(sign_setup: SignSetup, settings) -> None:
    settings.SIGNAGE_MAX_UPDATES_PER_SECOND = Decimal("2")
    sign = await open_sign(sign_setup)
    await sign.receive_json_from(timeout=3)
    grand, minor = sign_setup.grand, sign_setup.minor
    group = progressive_group(sign_setup.progressive.id)
    from channels.layers import get_channel_layer

    layer = get_channel_layer()

    def message(*levels: tuple[int, str, int]) -> dict:
        return {
            "type": "levels.changed",
            "progressive": sign_setup.progressive.id,
            "levels": [{"id": i, "amount_eur": a, "seq": s, "state": "active"} for i, a, s in levels],
        }

    await layer.group_send(group, message((grand.id, "1600.00", 8)))
    first = await sign.receive_json_from(timeout=3)
    sent_first = time.monotonic()
    await layer.group_send(group, message((grand.id, "1600.50", 9), (minor.id, "105.01", 4)))
    await layer.group_send(group, message((grand.id, "1599.00", 6)))  # older than shown: ignored
    await layer.group_send(group, message((minor.id, "105.02", 5)))
    second = await sign.receive_json_from(timeout=3)
    assert time.monotonic() - sent_first >= 0.45
    assert first == {
        "type": "update",
        "n": 2,
        "levels": [{"id": grand.id, "amount_eur": "1600.00", "seq": 8, "state": "active"}],
    }
    assert second == {
        "type": "update",
        "n": 3,
        "levels": [
            {"id": grand.id, "amount_eur": "1600.50", "seq": 9, "state": "active"},
            {"id": minor.id, "amount_eur": "105.02", "seq": 5, "state": "active"},
        ],
    }
    await layer.group_send(group, message((grand.id, "1600.40", 9)))  # same seq as shown: ignored
    assert await sign.receive_nothing(timeout=0.7)
    await sign.disconnect()


async def test_signs_of_one_screen_share_the_encoded_update_each_with_its_own_n(
    sign_setup: SignSetup,
) -> None:
    first = await open_sign(sign_setup)
    await first.receive_json_from(timeout=3)
    await database_sync_to_async(hit_record_and_announce)(sign_setup.grand, "NOG-0104", 198_820, 8)
    assert (await first.receive_json_from(timeout=3))["n"] == 2
    second = await open_sign(sign_setup)
    assert (await second.receive_json_from(timeout=3))["n"] == 1
    grand = sign_setup.grand.id

    await get_channel_layer().group_send(
        progressive_group(sign_setup.progressive.id),
        {
            "type": "levels.changed",
            "progressive": sign_setup.progressive.id,
            "levels": [{"id": grand, "amount_eur": "1600.00", "seq": 9, "state": "active"}],
        },
    )
    levels = f'[{{"id":{grand},"amount_eur":"1600.00","seq":9,"state":"active"}}]'
    assert await first.receive_from(timeout=3) == f'{{"type":"update","levels":{levels},"n":3}}'
    assert await second.receive_from(timeout=3) == f'{{"type":"update","levels":{levels},"n":2}}'
    await first.disconnect()
    await second.disconnect()


async def test_heartbeat_comes_on_its_interval_without_changes(sign_setup: SignSetup, settings) -> None:
    settings.SIGNAGE_HEARTBEAT_SECONDS = Decimal("0.1")
    sign = await open_sign(sign_setup)
    await sign.receive_json_from(timeout=3)
    started = time.monotonic()
    first = await sign.receive_json_from(timeout=2)
    second = await sign.receive_json_from(timeout=2)
    elapsed = time.monotonic() - started
    assert [first["type"], first["n"], second["type"], second["n"]] == ["heartbeat", 2, "heartbeat", 3]
    assert 0.15 <= elapsed < 1.5
    at = datetime.fromisoformat(second["at"])
    assert abs(timezone.now() - at) < timedelta(seconds=5)
    await sign.disconnect()


def machine_place_set(asset_number: str, room_name: str, game_title: str) -> None:
    machine = SlotMachine.objects.select_related("room").get(asset_number=asset_number)
    Room.objects.filter(pk=machine.room_id).update(name=room_name)
    SlotMachine.objects.filter(pk=machine.pk).update(game_title=game_title)


async def test_hit_is_announced_with_machine_place_and_amount(sign_setup: SignSetup) -> None:
    await database_sync_to_async(machine_place_set)("NOG-0104", "Sala Uno", "Grease")
    sign = await open_sign(sign_setup)
    await sign.receive_json_from(timeout=3)

    await database_sync_to_async(hit_record_and_announce)(sign_setup.grand, "NOG-0104", 198_820, 8)
    assert await sign.receive_json_from(timeout=3) == {
        "type": "hit",
        "n": 2,
        "level": sign_setup.grand.id,
        "amount_eur": "1988.20",
        "machine": "NOG-0104",
        "place": "Sala Uno · Grease",
        "reset_eur": "1000.00",
        "seq": 8,
    }
    await sign.disconnect()


async def test_link_goes_down_with_no_machine_online_and_comes_back(sign_setup: SignSetup, settings) -> None:
    settings.SIGNAGE_LINK_CHECK_SECONDS = Decimal("0.05")
    sign = await open_sign(sign_setup)
    await sign.receive_json_from(timeout=3)
    pid = sign_setup.progressive.id
    machines = SlotMachine.objects.filter(asset_number="NOG-0104")
    await database_sync_to_async(machines.update)(status=SlotMachine.Status.OFFLINE)
    assert await sign.receive_json_from(timeout=3) == {
        "type": "link",
        "n": 2,
        "jackpot": pid,
        "state": "down",
    }
    await database_sync_to_async(machines.update)(status=SlotMachine.Status.IN_SERVICE)
    assert await sign.receive_json_from(timeout=3) == link_frame(3, pid, "up")
    assert await sign.receive_nothing(timeout=0.3)
    await sign.disconnect()


async def test_link_goes_down_when_pending_events_wait_too_long(sign_setup: SignSetup, settings) -> None:
    settings.SIGNAGE_LINK_CHECK_SECONDS = Decimal("0.05")
    settings.LINK_STALE_AFTER_SECONDS = 10

    event = await database_sync_to_async(pending_event_add)("NOG-0104", 9)
    sign = await open_sign(sign_setup)
    snapshot = await sign.receive_json_from(timeout=3)
    assert snapshot["jackpots"][0]["link"] == "up"  # waiting 9 s is still within the 10 s allowed
    await database_sync_to_async(MachineEvent.objects.filter(pk=event.pk).update)(
        received_at=timezone.now() - timedelta(seconds=11)
    )
    pid = sign_setup.progressive.id
    assert await sign.receive_json_from(timeout=3) == {
        "type": "link",
        "n": 2,
        "jackpot": pid,
        "state": "down",
    }
    await database_sync_to_async(MachineEvent.objects.filter(pk=event.pk).update)(
        pending=False, applied_at=timezone.now()
    )
    assert await sign.receive_json_from(timeout=3) == link_frame(3, pid, "up")
    await sign.disconnect()


async def test_snapshot_link_is_down_when_no_machine_is_online(sign_setup: SignSetup) -> None:
    await database_sync_to_async(SlotMachine.objects.update)(status=SlotMachine.Status.OFFLINE)
    sign = await open_sign(sign_setup)
    snapshot = await sign.receive_json_from(timeout=3)
    assert snapshot["jackpots"][0]["link"] == "down"
    await sign.disconnect()


async def test_signs_connecting_together_share_snapshot_reads(sign_setup: SignSetup, monkeypatch) -> None:
    """Eight signs ask for the same snapshot while the first read is still running: they need two reads,
    the one running and one after it for all the others (a read begun before a sign joined may miss a
    change it must see). The first read is held until every sign has asked, which a slow database does
    by chance: no wall-clock race decides the count."""
    from signage import snapshots

    signs_count = 8
    asked = 0
    everyone_asked = asyncio.Event()
    real_get = snapshots.SnapshotShare.get

    async def counting_get(self, key):
        nonlocal asked
        asked += 1
        if asked == signs_count:
            everyone_asked.set()
        return await real_get(self, key)

    reads = []
    real_read = snapshots._snapshot_read

    def counting_read(key):
        started = time.monotonic()
        result = real_read(key)
        reads.append((key, started, time.monotonic()))
        return result

    real_to_async = snapshots.database_sync_to_async

    def held_until_everyone_asked(function):
        call = real_to_async(function)

        async def held(*args):
            await asyncio.wait_for(everyone_asked.wait(), timeout=10)
            return await call(*args)

        return held

    monkeypatch.setattr(snapshots.SnapshotShare, "get", counting_get)
    monkeypatch.setattr(snapshots, "_snapshot_read", counting_read)
    monkeypatch.setattr(snapshots, "database_sync_to_async", held_until_everyone_asked)
    signs = await asyncio.gather(*(open_sign(sign_setup) for _ in range(signs_count)))
    snapshots_received = [await sign.receive_json_from(timeout=5) for sign in signs]
    assert {frame["jackpots"][0]["levels"][0]["amount_eur"] for frame in snapshots_received} == {"1523.47"}
    assert asked == signs_count
    assert len(reads) == 2
    assert {key for key, _, _ in reads} == {ScreenContent((sign_setup.progressive.id,), "EUR")}
    assert reads[1][1] >= reads[0][2], "the second read began after the first had ended"
    for sign in signs:
        await sign.disconnect()


async def test_one_engine_batch_over_two_progressives_makes_one_frame(
    sign_setup: SignSetup, settings
) -> None:
    settings.SIGNAGE_GATHER_MILLISECONDS = 300
    from channels.layers import get_channel_layer

    from tests.factories import LevelFactory, ProgressiveFactory

    def second_progressive() -> tuple[int, int]:
        super_spin = ProgressiveFactory(name="Super Spin", kind="wide_area")
        level = LevelFactory(progressive=super_spin, name="Super Spin", reset_mc=100_000_000_000, seq=40)
        sign_setup.screen.progressives.add(super_spin)
        return super_spin.id, level.id

    spin_id, spin_level = await database_sync_to_async(second_progressive)()
    sign = await open_sign(sign_setup)
    assert len((await sign.receive_json_from(timeout=3))["jackpots"]) == 2
    layer = get_channel_layer()
    vault_id, grand = sign_setup.progressive.id, sign_setup.grand.id

    def message(batch: str, progressive: int, level: int, amount: str, seq: int) -> dict:
        return {
            "type": "levels.changed",
            "progressive": progressive,
            "batch": batch,
            "batch_progressives": sorted([vault_id, spin_id]),
            "levels": [{"id": level, "amount_eur": amount, "seq": seq, "state": "active"}],
        }

    started = time.monotonic()
    await layer.group_send(progressive_group(vault_id), message("b1", vault_id, grand, "1600.00", 8))
    await layer.group_send(progressive_group(spin_id), message("b1", spin_id, spin_level, "1000000.05", 41))
    frame = await sign.receive_json_from(timeout=3)
    # Complete: sent at once, not after the 300 ms allowed for the rest of a batch.
    assert time.monotonic() - started < 0.25
    assert frame["levels"] == [
        {"id": grand, "amount_eur": "1600.00", "seq": 8, "state": "active"},
        {"id": spin_level, "amount_eur": "1000000.05", "seq": 41, "state": "active"},
    ]
    # A batch whose second message never comes goes out when the gathering time is up.
    await asyncio.sleep(0.3)  # past the pacing interval
    started = time.monotonic()
    await layer.group_send(progressive_group(vault_id), message("b2", vault_id, grand, "1600.10", 9))
    frame = await sign.receive_json_from(timeout=3)
    assert 0.25 <= time.monotonic() - started < 1.5
    assert frame["levels"] == [{"id": grand, "amount_eur": "1600.10", "seq": 9, "state": "active"}]
    await sign.disconnect()


async def test_a_change_published_while_the_snapshot_is_read_follows_the_snapshot(
    sign_setup: SignSetup, monkeypatch
) -> None:
    """A sign's first frame is its snapshot, whatever the hub delivers while it is read; a newer amount
    follows it, an older one is dropped."""
    from signage import snapshots

    grand = sign_setup.grand
    real_read = snapshots._snapshot_read

    def read_during_a_change(key):
        result = real_read(key)  # the snapshot holds seq 7 ...
        level_set(grand, 160_000_000, 8)  # ... and a change commits and is published while it is sent
        publish.levels_changed([grand.id])
        time.sleep(0.2)
        return result

    monkeypatch.setattr(snapshots, "_snapshot_read", read_during_a_change)
    sign = await open_sign(sign_setup)
    first = await sign.receive_json_from(timeout=5)
    second = await sign.receive_json_from(timeout=5)
    assert first["type"] == "snapshot"
    assert (second["type"], second["levels"]) == (
        "update",
        [{"id": grand.id, "amount_eur": "1600.00", "seq": 8, "state": "active"}],
    )
    await sign.disconnect()
