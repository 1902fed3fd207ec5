"""Handshakes per client address per second are bounded (issue 28, finding 2)."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from common import socket_limits
from common.socket_limits import handshake_allowed


@pytest.fixture
def one_second(monkeypatch):
    monkeypatch.setattr(socket_limits.time, "time", lambda: 1_900_000_000.5)
    yield
    cache.delete_many([f"socket:handshakes:{a}:1900000000" for a in ("198.51.100.7", "198.51.100.8")])


async def test_the_handshake_past_the_limit_from_one_address_is_refused(one_second, settings) -> None:
    settings.WEBSOCKET_HANDSHAKES_PER_SECOND = 60
    answers = [await handshake_allowed("198.51.100.7") for _ in range(61)]
    assert answers == [True] * 60 + [False]
    assert await handshake_allowed("198.51.100.8") is True
