"""The process's budget of request bodies (common.request_body.BodyBudget): reservations are whole,
granted first come first served, and every way a waiter leaves (granted, timed out, cancelled) leaves the
budget exact."""

from __future__ import annotations

import asyncio

import pytest

from common.request_body import BodyBudget


@pytest.fixture
def budget(settings) -> BodyBudget:
    settings.API_BODY_BUDGET = 100
    return BodyBudget()


async def _waiting(budget: BodyBudget, count: int) -> None:
    while len(budget._waiting) != count:
        await asyncio.sleep(0)


async def test_reservations_within_the_budget_are_granted_at_once_and_given_back(budget):
    assert (await budget.reserve(60, 1), await budget.reserve(40, 1), budget.held) == (60, 40, 100)
    budget.release(60)
    budget.release(40)
    assert budget.held == 0


async def test_a_reservation_over_the_budget_is_cut_to_the_budget(budget):
    assert await budget.reserve(250, 1) == 100
    budget.release(100)
    assert budget.held == 0


async def test_a_waiter_is_served_before_a_later_smaller_one_that_would_fit(budget):
    await budget.reserve(70, 1)
    large = asyncio.create_task(budget.reserve(80, 5))
    await _waiting(budget, 1)
    # 30 bytes are free and 20 would fit, but the 80 asked first: granting the 20 could starve it.
    small = asyncio.create_task(budget.reserve(20, 5))
    await _waiting(budget, 2)
    budget.release(70)
    assert (await large, await small, budget.held) == (80, 20, 100)


async def test_a_waiter_whose_time_runs_out_gets_nothing_and_lets_the_next_one_in(budget):
    await budget.reserve(70, 1)
    large = asyncio.create_task(budget.reserve(80, 0.05))
    await _waiting(budget, 1)
    small = asyncio.create_task(budget.reserve(20, 5))
    assert await large is None
    assert (await small, budget.held, len(budget._waiting)) == (20, 90, 0)


async def test_a_cancelled_waiter_holds_nothing_granted_or_not(budget):
    await budget.reserve(100, 1)
    waiter = asyncio.create_task(budget.reserve(50, 5))
    await _waiting(budget, 1)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert (budget.held, len(budget._waiting)) == (100, 0)
    # Granted in the same turn as it is cancelled: what it was granted is given back.
    waiter = asyncio.create_task(budget.reserve(50, 5))
    await _waiting(budget, 1)
    budget.release(100)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert (budget.held, len(budget._waiting)) == (0, 0)
