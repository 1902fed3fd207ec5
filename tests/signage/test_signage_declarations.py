"""A Caribbean Stud declaration on the signs: every sign of the progressive gets a ``declaration`` frame
(state pending) when it opens and (state released) when it ends, live through the hub; a sign connecting
while it is pending gets it right after its snapshot."""

from __future__ import annotations

from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model

from tables.models import TableDeclaration
from tables.services.declarations import declaration_release
from tests.signage.helpers import SOCKET_TESTS, receive_until
from tests.signage.test_signage_consumer import open_sign
from tests.signage.test_signage_tables import TableSign, royal_posted, table_sign  # noqa: F401
from tests.tables.factories import at

pytestmark = SOCKET_TESTS


def frame(sign_of: TableSign, declaration: TableDeclaration, state: str, **extra) -> dict:
    return {
        "type": "declaration",
        "id": declaration.id,
        "jackpot": sign_of.progressive.id,
        "level": sign_of.level.id,
        "state": state,
        "outcome": None,
        "table": "NOG-CSP-1",
        "seat": 1,
        "hand": "royal_flush",
        "opened_at": at(0),
        "expires_at": at(60),
        "released_at": None,
        **extra,
    }


@database_sync_to_async
def released() -> TableDeclaration:
    user = get_user_model().objects.create_user(username="supervisor")
    return declaration_release(TableDeclaration.objects.get(), user, "hand seen")


def without_n(frame: dict) -> dict:
    return {name: value for name, value in frame.items() if name != "n"}


async def test_a_sign_gets_the_declaration_live_and_its_release(table_sign: TableSign) -> None:  # noqa: F811
    sign = await open_sign(table_sign)
    assert (await sign.receive_json_from(timeout=3))["type"] == "snapshot"
    status, answer = await royal_posted("NOG-CSP-1")
    assert (status, answer["pending"]) == (201, True)
    frames = await receive_until(sign, "declaration", timeout=10)
    declaration = await database_sync_to_async(TableDeclaration.objects.get)()
    assert without_n(frames[-1]) == frame(table_sign, declaration, "pending")
    after = await released()
    frames = await receive_until(sign, "declaration", timeout=10)
    assert without_n(frames[-1]) == frame(
        table_sign, declaration, "released", outcome="released", released_at=after.released_at.isoformat()
    )
    await sign.disconnect()


async def test_a_sign_connecting_during_a_declaration_gets_it_after_its_snapshot(
    table_sign: TableSign,  # noqa: F811
) -> None:
    await royal_posted("NOG-CSP-1")
    declaration = await database_sync_to_async(TableDeclaration.objects.get)()
    sign = await open_sign(table_sign)
    first = await sign.receive_json_from(timeout=3)
    second = await sign.receive_json_from(timeout=3)
    assert (first["type"], first["n"]) == ("snapshot", 1)
    assert second == {**frame(table_sign, declaration, "pending"), "n": 2}
    await sign.disconnect()
    await released()
    # Once released, a new sign gets its snapshot and nothing else.
    sign = await open_sign(table_sign)
    assert (await sign.receive_json_from(timeout=3))["type"] == "snapshot"
    assert await sign.receive_nothing(timeout=0.3)
    await sign.disconnect()
