"""A screen token holds a bounded number of live sign connections (SIGNAGE_CONNECTIONS_PER_SCREEN): one
more is closed with 4429 right after its snapshot, and a slot a sign leaves is free again at once; the
process renews its signs' slots together, not one sign at a time."""

from __future__ import annotations

import asyncio
from decimal import Decimal

from channels.testing import WebsocketCommunicator

from common.socket_limits import _name
from config.asgi import application
from signage.consumers import CLOSE_TOO_MANY
from tests.signage.helpers import ORIGIN, SOCKET_TESTS, SignSetup

pytestmark = SOCKET_TESTS


async def _open(setup: SignSetup) -> tuple[WebsocketCommunicator, dict]:
    sign = WebsocketCommunicator(application, setup.path, headers=[ORIGIN])
    connected, _ = await sign.connect()
    assert connected
    return sign, await sign.receive_output(timeout=5)


async def test_one_connection_past_the_screens_limit_is_closed_and_a_left_slot_is_free(
    sign_setup: SignSetup, settings
) -> None:
    settings.SIGNAGE_CONNECTIONS_PER_SCREEN = 3
    opened = [await _open(sign_setup) for _ in range(3)]
    assert [output["type"] for _, output in opened] == ["websocket.send"] * 3  # each got its snapshot
    extra, output = await _open(sign_setup)
    assert output["type"] == "websocket.send" and '"snapshot"' in output["text"]
    assert await extra.receive_output(timeout=5) == {"type": "websocket.close", "code": CLOSE_TOO_MANY}
    await extra.disconnect()
    first, _ = opened.pop(0)
    await first.disconnect()
    again, output = await _open(sign_setup)
    assert output["type"] == "websocket.send" and '"snapshot"' in output["text"]
    for sign, _ in [*opened, (again, None)]:
        await sign.disconnect()


async def test_the_signs_slots_are_renewed_together(sign_setup: SignSetup, settings, claim_renewals) -> None:
    # Heartbeats every 0.5 s: a slot's lease is 2.5 s, renewed every 0.83 s for all the process's signs.
    settings.SIGNAGE_HEARTBEAT_SECONDS = Decimal("0.5")
    opened = [await _open(sign_setup) for _ in range(3)]
    await asyncio.sleep(1.2)
    slots = sorted(_name(f"sign{slot}", sign_setup.screen.token_digest) for slot in range(3))
    assert claim_renewals, "no renewal"
    assert sorted(claim_renewals[-1]) == slots
    assert {lease for _, lease in claim_renewals[-1].values()} == {2.5}
    # Each sign had two heartbeats: renewed one by one, that would have been six calls.
    assert len(claim_renewals) <= 2
    for sign, _ in opened:
        await sign.disconnect()
