"""The gateway package's own server channel (gateway/broadcast.py) consumes what this route sends, and
what it sends back (gateway/app.py) is what this route records: the frames travel through the real ASGI
application and are handed to the gateway's parser, and the gateway's award answer is sent back as built."""

from __future__ import annotations

from types import SimpleNamespace

from channels.db import database_sync_to_async

from gateway.app import GatewayCallbacks
from gateway.broadcast import ProgressiveBoard, ServerChannel
from gatewaylink.models import SasAward
from jackpots.hooks import levels_changed_on_commit
from jackpots.models import Hit, Level
from tests.gatewaylink.helpers import SOCKET_TESTS, Floor, gateway_open, mystery_hit, receive_until

pytestmark = SOCKET_TESTS


def gateway_side(floor: Floor) -> tuple[ProgressiveBoard, ServerChannel, list[dict]]:
    """The gateway's board for SAS group 1 (Grand = SAS level 1, Minor = 2), as its configuration maps it."""
    board = ProgressiveBoard({floor.grand.id: (1, 1), floor.minor.id: (1, 2)})
    commands: list[dict] = []
    return board, ServerChannel("ws://unused", board, commands.append), commands


def level_set(level: Level, current_mc: int, seq: int) -> None:
    Level.objects.filter(pk=level.pk).update(current_mc=current_mc, seq=seq)
    levels_changed_on_commit([level.id])


async def test_the_gateways_parser_takes_snapshot_update_hit_and_commands(floor: Floor):
    board, channel, commands = gateway_side(floor)
    ws = await gateway_open(floor.path)
    channel.handle(await ws.receive_json_from(timeout=5))
    assert board.amounts == {(1, 1): 152_347, (1, 2): 10_500}
    assert board.resets == {(1, 1): 100_000, (1, 2): 10_000}
    assert board.group_amounts(1, now=board.heard) == {1: 152_347, 2: 10_500}

    await database_sync_to_async(level_set)(floor.grand, 152_400_999, 8)
    channel.handle(await ws.receive_json_from(timeout=5))
    assert board.amounts[(1, 1)] == 152_400

    hit = await database_sync_to_async(mystery_hit)(floor.minor, floor.sas1, 10_525)
    for frame in await receive_until(ws, "hit", "award"):
        channel.handle(frame)
    assert board.amounts[(1, 2)] == 10_000  # the hit's reset amount until the next update
    assert commands == [{"type": "award", "award": hit.id, "machine": "NOG-0101", "amount": 10_525}]
    await ws.disconnect()


async def test_the_gateways_award_answer_is_recorded(floor: Floor):
    _board, channel, commands = gateway_side(floor)
    hit = await database_sync_to_async(mystery_hit)(floor.minor, floor.sas1, 10_525, announce=False)
    ws = await gateway_open(floor.path)
    for frame in await receive_until(ws, "award"):
        channel.handle(frame)
    # What the gateway sends once the machine confirmed the legacy bonus (exception 7C): whole credits of
    # 50 cents, so 10,500 of the 10,525 asked.
    award = commands[0]
    GatewayCallbacks(SimpleNamespace(channel=channel)).award_done(
        award["machine"],
        {"award": award["award"], "amount": award["amount"], "status": "paid", "paid": 10_500},
    )
    await ws.send_json_to(channel.outbox.pop(0))
    assert await ws.receive_json_from(timeout=5) == {
        "type": "award_recorded",
        "award": hit.id,
        "status": "paid",
        "paid": 10_500,
    }
    channel.handle({"type": "award_recorded", "award": hit.id, "status": "paid", "paid": 10_500})
    assert len(commands) == 1  # the acknowledgement is no command for the gateway

    def recorded() -> tuple:
        return Hit.objects.get(pk=hit.pk).state, list(
            SasAward.objects.values_list("status", "asked_cents", "paid_cents", "difference_cents")
        )

    # The fraction of a credit the machine could not credit (25 cents) stays on the desk for the attendants.
    assert await database_sync_to_async(recorded)() == ("hit", [("paid", 10_525, 10_500, -25)])
    await ws.disconnect()


async def test_the_gateways_handpay_answer_is_recorded(floor: Floor):
    _board, channel, commands = gateway_side(floor)
    hit = await database_sync_to_async(mystery_hit)(floor.minor, floor.sas1, 150_000, announce=False)
    ws = await gateway_open(floor.path)
    for frame in await receive_until(ws, "award"):
        channel.handle(frame)
    # Above the machine's limit the gateway answers handpay without sending LP 8A (gateway/host_awards.py).
    GatewayCallbacks(SimpleNamespace(channel=channel)).award_done(
        "NOG-0101", {"award": commands[0]["award"], "amount": 150_000, "status": "handpay", "paid": 0}
    )
    await ws.send_json_to(channel.outbox.pop(0))
    assert (await ws.receive_json_from(timeout=5))["status"] == "handpay"
    state = await database_sync_to_async(lambda: Hit.objects.get(pk=hit.pk).state)()
    assert state == "hit"
    await ws.disconnect()
