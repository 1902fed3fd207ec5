"""A level suspended or resumed reaches its signs live, in its update frame; a retired level is on no sign
(docs/level-states.md)."""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model

from config.asgi import application
from jackpots.models import Level
from jackpots.services import level_resume, level_suspend
from tests.signage.helpers import ORIGIN, SOCKET_TESTS, SignSetup

pytestmark = SOCKET_TESTS


async def _sign(setup: SignSetup) -> WebsocketCommunicator:
    sign = WebsocketCommunicator(application, setup.path, headers=[ORIGIN])
    assert (await sign.connect())[0]
    return sign


def _levels(snapshot: dict) -> list[tuple[str, str]]:
    return [
        (level["name"], level["state"]) for jackpot in snapshot["jackpots"] for level in jackpot["levels"]
    ]


async def test_a_sign_receives_the_suspension_and_the_resumption_live(sign_setup: SignSetup) -> None:
    sign = await _sign(sign_setup)
    assert _levels(await sign.receive_json_from(timeout=3)) == [("Grand", "active"), ("Minor", "active")]
    user = await database_sync_to_async(get_user_model().objects.create_user)("manager")
    await database_sync_to_async(level_suspend)(sign_setup.grand, user, "controller fault")
    frame = await sign.receive_json_from(timeout=3)
    assert {key: frame[key] for key in ("type", "levels")} == {
        "type": "update",
        "levels": [{"id": sign_setup.grand.id, "amount_eur": "1523.47", "seq": 8, "state": "suspended"}],
    }
    await database_sync_to_async(level_resume)(sign_setup.grand, user, "controller replaced")
    frame = await sign.receive_json_from(timeout=3)
    assert frame["levels"] == [
        {"id": sign_setup.grand.id, "amount_eur": "1523.47", "seq": 9, "state": "active"}
    ]
    await sign.disconnect()


async def test_a_sign_connecting_to_a_suspended_level_gets_it_in_its_snapshot(sign_setup: SignSetup) -> None:
    await database_sync_to_async(level_suspend)(sign_setup.minor, None, "signs being replaced")
    sign = await _sign(sign_setup)
    assert _levels(await sign.receive_json_from(timeout=3)) == [("Grand", "active"), ("Minor", "suspended")]
    await sign.disconnect()


async def test_a_retired_level_is_on_no_sign(sign_setup: SignSetup) -> None:
    await database_sync_to_async(Level.objects.filter(pk=sign_setup.minor.pk).update)(state="retired")
    sign = await _sign(sign_setup)
    assert _levels(await sign.receive_json_from(timeout=3)) == [("Grand", "active")]
    await sign.disconnect()
