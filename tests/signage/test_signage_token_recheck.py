"""A sign already connected is closed with 4401 once its screen's token is revoked or reissued."""

from __future__ import annotations

from decimal import Decimal

import pytest
from channels.db import database_sync_to_async

from common.credentials import screen_token_issue, screen_token_revoke
from floor.models import SignageScreen
from tests.signage.helpers import SOCKET_TESTS, SignSetup
from tests.signage.test_signage_consumer import open_sign

pytestmark = SOCKET_TESTS


@pytest.fixture(autouse=True)
def fast_checks(quiet_signs, settings) -> None:
    settings.SIGNAGE_LINK_CHECK_SECONDS = Decimal("0.05")


@pytest.mark.parametrize("change", ["revoked", "reissued", "screen deleted"])
async def test_connected_sign_is_closed_when_its_token_stops_matching(
    sign_setup: SignSetup, change: str
) -> None:
    sign = await open_sign(sign_setup)
    snapshot = await sign.receive_json_from(timeout=3)
    assert (snapshot["type"], snapshot["n"]) == ("snapshot", 1)
    assert await sign.receive_nothing(timeout=0.3)  # several checks pass while the token matches

    screen = await database_sync_to_async(SignageScreen.objects.get)(pk=sign_setup.screen.pk)
    if change == "revoked":
        await database_sync_to_async(screen_token_revoke)(screen)
    elif change == "reissued":
        await database_sync_to_async(screen_token_issue)(screen)
    else:
        await database_sync_to_async(screen.delete)()

    assert await sign.receive_output(timeout=3) == {"type": "websocket.close", "code": 4401}
    await sign.disconnect()


async def test_a_sign_with_the_new_token_stays_open_after_a_reissue(sign_setup: SignSetup) -> None:
    old = await open_sign(sign_setup)
    await old.receive_json_from(timeout=3)
    screen = await database_sync_to_async(SignageScreen.objects.get)(pk=sign_setup.screen.pk)
    token = await database_sync_to_async(screen_token_issue)(screen)
    new = await open_sign(sign_setup, path=f"/ws/signage/{screen.slug}/?token={token}")
    assert (await new.receive_json_from(timeout=3))["type"] == "snapshot"

    assert await old.receive_output(timeout=3) == {"type": "websocket.close", "code": 4401}
    assert await new.receive_nothing(timeout=0.3)
    await new.disconnect()
    await old.disconnect()
