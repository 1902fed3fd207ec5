"""The rules reach the signs: in the snapshot, and as a ``rules`` frame when a parameter change applies
(a staged one at the level's next hit), through the real ASGI application and channel layer. A mystery
level's trigger is in neither."""

from __future__ import annotations

import json

from channels.db import database_sync_to_async

from jackpots.models import Level
from jackpots.services import level_hit
from jackpots.services.parameters import level_parameters_change
from signage import publish
from slots.models import SlotMachine
from tests.signage.helpers import SOCKET_TESTS, SignSetup, receive_until
from tests.signage.test_signage_consumer import open_sign
from tests.staff_fixtures import staff_member

pytestmark = SOCKET_TESTS

SIMULTANEOUS_EN = "Simultaneous wins are paid in the order played, each the amount standing at its turn"
SIMULTANEOUS_IT = "Vincite simultanee: pagate nell'ordine di gioco, ciascuna con l'importo del suo turno"


def change_staged_then_hit(setup: SignSetup) -> None:
    """The Grand asks €2.00 from its next cycle; then it is hit, and the change applies at its reset."""
    user = staff_member("marta", None)
    level_parameters_change(setup.grand, user, {"min_wager_cents": 200}, "New minimum for the Grand")
    machine = SlotMachine.objects.get(asset_number=setup.machine_asset)
    level_hit(setup.grand.pk, machine_id=machine.id)


async def test_a_parameter_change_applied_reaches_the_connected_sign(sign_setup: SignSetup) -> None:
    sign = await open_sign(sign_setup)
    snapshot = await sign.receive_json_from(timeout=3)
    assert snapshot["jackpots"][0]["rules"]["en"][0] == "Every bet qualifies"
    await database_sync_to_async(change_staged_then_hit)(sign_setup)
    frames = await receive_until(sign, "rules", timeout=10)
    assert {frame["type"] for frame in frames[:-1]} <= {"update", "hit", "heartbeat"}
    assert {name: value for name, value in frames[-1].items() if name != "n"} == {
        "type": "rules",
        "jackpot": sign_setup.progressive.id,
        "rules": {
            "it": [
                "Grand · Puntata minima qualificante €\u00a02,00",
                "Minor · Ogni puntata partecipa",
                "Grand · Valore di ripartenza €\u00a01.000,00",
                "Minor · Valore di ripartenza €\u00a0100,00",
                SIMULTANEOUS_IT,
                "Importi in EUR",
            ],
            "en": [
                "Grand · Minimum qualifying bet €\u00a02.00",
                "Minor · Every bet qualifies",
                "Grand · Reset value €\u00a01,000.00",
                "Minor · Reset value €\u00a0100.00",
                SIMULTANEOUS_EN,
                "Amounts in EUR",
            ],
        },
    }
    await sign.disconnect()


async def test_a_staged_change_says_nothing_until_it_applies(sign_setup: SignSetup) -> None:
    sign = await open_sign(sign_setup)
    await sign.receive_json_from(timeout=3)
    user = await database_sync_to_async(staff_member)("marta", None)
    await database_sync_to_async(level_parameters_change)(
        sign_setup.grand, user, {"min_wager_cents": 200}, "From the next cycle"
    )
    assert await sign.receive_nothing(timeout=0.5)
    await sign.disconnect()


def mystery_minor(setup: SignSetup) -> None:
    Level.objects.filter(pk=setup.minor.pk).update(mystery=True, limit_mc=20_000_000, trigger_mc=15_432_109)


async def test_a_mystery_level_on_the_sign_must_hit_by_and_never_its_trigger(sign_setup: SignSetup) -> None:
    await database_sync_to_async(mystery_minor)(sign_setup)
    sign = await open_sign(sign_setup)
    snapshot = await sign.receive_json_from(timeout=3)
    assert snapshot["jackpots"][0]["rules"]["en"][2:4] == [
        "Minor · Reset value €\u00a0100.00",
        "Minor · Must hit by €\u00a0200.00",
    ]
    assert snapshot["jackpots"][0]["rules"]["it"][2:4] == [
        "Minor · Valore di ripartenza €\u00a0100,00",
        "Minor · Deve uscire entro €\u00a0200,00",
    ]
    await database_sync_to_async(publish.rules_changed)(sign_setup.progressive.id)
    frame = (await receive_until(sign, "rules", timeout=10))[-1]
    assert frame["rules"] == snapshot["jackpots"][0]["rules"]
    for text in (json.dumps(snapshot, ensure_ascii=False), json.dumps(frame, ensure_ascii=False)):
        assert [shown for shown in ("154.32", "154,32", "15432109") if shown in text] == []
    await sign.disconnect()
