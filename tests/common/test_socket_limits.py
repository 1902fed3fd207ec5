"""Handshakes per client address per second are bounded (issue 28, finding 2), and a process keeps its
connections' claims renewed together (issue 27)."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
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


async def _claimed(secret: str, owner: str, seconds: float) -> None:
    assert await socket_limits.socket_claim("sign0", secret, owner, seconds)
    socket_limits.socket_claim_keep("sign0", secret, owner, seconds)


async def test_a_process_renews_all_its_claims_in_one_call(claim_renewals) -> None:
    secrets = [f"screen-{n}" for n in range(5)]
    for secret in secrets:
        await _claimed(secret, f"owner-{secret}", 1)
    # Every claim outlives its lease (the cache counts whole seconds), renewed every 1/3 s with the others.
    await asyncio.sleep(1.6)
    assert [await socket_limits.socket_claimed("sign0", secret) for secret in secrets] == [True] * 5
    names = sorted(socket_limits._name("sign0", secret) for secret in secrets)
    assert 3 <= len(claim_renewals) <= 5
    assert all(sorted(batch) == names for batch in claim_renewals)
    for secret in secrets:
        await socket_limits.socket_claim_release("sign0", secret, f"owner-{secret}")
    assert [await socket_limits.socket_claimed("sign0", secret) for secret in secrets] == [False] * 5
    assert socket_limits.loop_local(socket_limits._keepers, socket_limits.ClaimKeeper).task is None


async def test_a_claim_another_owner_holds_is_not_renewed(claim_renewals) -> None:
    await _claimed("screen-a", "first", 1)
    name = socket_limits._name("sign0", "screen-a")
    await sync_to_async(cache.set)(name, "second", 1)  # the claim lapsed and another took it
    await asyncio.sleep(1.2)
    assert len(claim_renewals) >= 2
    assert await socket_limits.socket_claimed("sign0", "screen-a") is False
    await socket_limits.socket_claim_release("sign0", "screen-a", "first")


async def test_a_shorter_lease_is_renewed_in_time(claim_renewals) -> None:
    await _claimed("gateway-long", "g", 30)
    await _claimed("screen-short", "s", 2)
    await asyncio.sleep(2.5)
    assert await socket_limits.socket_claimed("sign0", "screen-short") is True
    assert len(claim_renewals) >= 3
    for secret, owner in (("gateway-long", "g"), ("screen-short", "s")):
        await socket_limits.socket_claim_release("sign0", secret, owner)


async def test_a_slot_is_claimed_in_two_calls_however_many_are_held(monkeypatch) -> None:
    calls: list[str] = []
    for name in ("_get_many", "_add"):
        real = getattr(socket_limits, name, None)
        monkeypatch.setattr(socket_limits, name, _counted(real, name, calls), raising=False)
    owners = [f"owner-{n}" for n in range(51)]
    slots = [await socket_limits.socket_slot_claim("sign", "screen-s", owner, 60, 5) for owner in owners]
    assert slots == list(range(51))
    assert calls[-2:] == ["_get_many", "_add"]
    assert len(calls) == 2 * 51
    # Slot 7 given back: the next claim takes it, the first free one.
    await socket_limits.socket_claim_release("sign7", "screen-s", "owner-7")
    assert await socket_limits.socket_slot_claim("sign", "screen-s", "late", 60, 5) == 7
    assert await socket_limits.socket_slot_claim("sign", "screen-s", "full", 51, 5) is None
    await sync_to_async(cache.delete_many)([socket_limits._name(f"sign{n}", "screen-s") for n in range(60)])


def _counted(real, name: str, calls: list[str]):
    async def counted(*args, **kwargs):
        calls.append(name)
        return await real(*args, **kwargs)

    return counted
