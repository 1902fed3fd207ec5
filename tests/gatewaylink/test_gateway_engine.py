"""The engine's own mystery draw reaches the gateway: a mystery hit drawn for a SAS machine is sent as an
award once the engine's transaction commits (``jackpots.hooks``, the listener gatewaylink registers), beside
the WIN frame the signs get."""

from __future__ import annotations

from channels.db import database_sync_to_async

from jackpots.models import Hit, Level
from jackpots.services import contributions_apply
from tests.gatewaylink.helpers import SOCKET_TESTS, Floor, gateway_open, receive_until
from tests.jackpots.factories import GameEventFactory

pytestmark = SOCKET_TESTS


def minor_fresh_with_trigger(floor: Floor) -> None:
    """The Minor back at its reset value (€100), its trigger crossed once 5,000 cents are wagered."""
    Level.objects.filter(pk=floor.minor.pk).update(current_mc=10_000_000, trigger_mc=10_050_000)


def games(floor: Floor) -> None:
    for _ in range(4):
        GameEventFactory(machine=floor.sas2, wager_cents=1_000)
    GameEventFactory(machine=floor.sas1, wager_cents=1_000)  # the crossing wager
    contributions_apply(batch_size=10)


async def test_an_engine_mystery_hit_on_a_sas_machine_is_awarded_through_the_gateway(floor: Floor):
    await database_sync_to_async(minor_fresh_with_trigger)(floor)
    ws = await gateway_open(floor.path)
    await ws.receive_json_from(timeout=5)
    await database_sync_to_async(games)(floor)
    frames = await receive_until(ws, "hit", "award")
    hit = await database_sync_to_async(lambda: Hit.objects.get(level=floor.minor))()
    assert (hit.kind, hit.machine_id, hit.amount_cents) == ("mystery", floor.sas1.id, 10_050)
    # The hit and the award come from two listeners of the engine, in the order they registered.
    assert sorted(frame["type"] for frame in frames) == ["award", "hit", "update"]
    (win,) = [frame for frame in frames if frame["type"] == "hit"]
    (award,) = [frame for frame in frames if frame["type"] == "award"]
    assert win["machine"] == "NOG-0101"
    assert award == {"type": "award", "award": hit.id, "machine": "NOG-0101", "amount": 10_050}
    await ws.disconnect()
