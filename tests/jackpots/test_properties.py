"""Property tests: any stream of wagers, rates, limits and hits gives, to the millicent, the amounts of an
independent closed-form computation, and money is conserved exactly."""

from __future__ import annotations

import dataclasses
import itertools
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jackpots.models import LedgerEntry
from jackpots.services import contributions_apply, core
from jackpots.services.levels import level_create
from slots.models import MachineEvent
from tests.jackpots.factories import GameEventFactory, JackpotEventFactory
from tests.jackpots.helpers import progressive_with_machines
from tests.jackpots.model import ModelLevel

rates = st.decimals(min_value=0, max_value=Decimal("0.2"), places=8)
resets = st.integers(min_value=0, max_value=10_000_000)


@st.composite
def level_params(draw) -> core.Params:
    reset = draw(resets)
    limit = draw(st.one_of(st.none(), st.integers(min_value=reset + 1, max_value=reset + 5_000_000)))
    return core.Params(
        reset_mc=reset,
        rate=draw(rates),
        reserve_rate=draw(st.decimals(min_value=0, max_value=Decimal("0.05"), places=8)),
        limit_mc=limit,
    )


ops = st.lists(
    st.one_of(
        st.tuples(st.just("wager"), st.integers(min_value=1, max_value=50_000)),
        st.just(("hit", 0)),
        # A win the machine credited itself, paid this many cents (below or above what the level holds).
        st.tuples(st.just("machine_paid"), st.integers(min_value=0, max_value=7_000_000)),
    ),
    max_size=60,
)


def _total(state: core.State) -> int:
    return state.current_mc + state.reserve_mc + state.overflow_mc


@given(params=level_params(), stream=ops)
def test_core_equals_closed_form_and_conserves(params, stream):
    model = ModelLevel(params)
    state, moved = core.seed(params)
    contributed, seeded, awarded = moved.contributed_mc, moved.seeded_mc, moved.awarded_mc
    for op, cents in stream:
        if op == "wager":
            model.wager(cents)
            state, moved = core.contribute(params, state, cents)
        elif op == "hit":
            paid = model.hit()
            state, moved, award = core.award(params, state, core.AwardMode.WHOLE)
            assert award.paid_cents == paid
        else:
            paid = model.hit(machine_paid_cents=cents)
            state, moved, award = core.award(params, state, core.AwardMode.WHOLE, paid_cap_cents=cents)
            assert award.paid_cents == paid <= cents
        contributed += moved.contributed_mc
        seeded += moved.seeded_mc
        awarded += moved.awarded_mc
        assert (state.current_mc, state.reserve_mc, state.overflow_mc) == (
            model.current,
            model.reserve,
            model.overflow,
        )
        assert contributed + seeded == _total(state) + awarded
    assert contributed == model.contributed
    assert seeded == model.seeded
    assert awarded == sum(model.awards_mc)


@given(
    params=level_params(),
    share=st.decimals(min_value=0, max_value=1, places=2),
    winners=st.integers(min_value=1, max_value=7),
    wagered=st.integers(min_value=0, max_value=10_000_000),
)
def test_awards_split_in_whole_cents_and_conserve(params, share, winners, wagered):
    state, _ = core.seed(params)
    state, _ = core.contribute(params, state, wagered)
    before = _total(state)
    after, moved, award = core.award(params, state, core.AwardMode.SHARE, share, winners=winners)
    assert award.per_winner_cents == int(state.current_mc * share) // 1000 // winners
    assert after.current_mc >= params.reset_mc
    assert _total(after) - before == moved.seeded_mc - moved.awarded_mc
    after, moved, award = core.award(params, state, core.AwardMode.WHOLE, winners=winners)
    assert award.per_winner_cents == state.current_mc // 1000 // winners
    assert award.reset is True
    assert (
        _total(after) - before
        == moved.seeded_mc - moved.awarded_mc
        == params.reset_mc - award.paid_cents * 1000
    )
    fixed, moved, award = core.award(params, state, core.AwardMode.FIXED, 500, winners=winners)
    assert (fixed, moved, award.paid_cents) == (state, core.Movement(), 500 * winners)


@st.composite
def mystery_params(draw) -> core.Params:
    """Mystery levels with reserves up to the size of the displayed rate, so reserves and overflow often
    carry a cycle's start far above the reset value, sometimes to the limit."""
    reset = draw(resets)
    return core.Params(
        reset_mc=reset,
        rate=draw(st.decimals(min_value=Decimal("0.0001"), max_value=Decimal("0.2"), places=8)),
        reserve_rate=draw(st.decimals(min_value=0, max_value=Decimal("0.2"), places=8)),
        limit_mc=draw(st.integers(min_value=reset + 1, max_value=reset + 2_000_000)),
        mystery=True,
    )


@settings(max_examples=300)
@given(
    params=mystery_params(),
    draws=st.lists(st.integers(min_value=0, max_value=10**12), min_size=1, max_size=8),
    wagers=st.lists(st.integers(min_value=1, max_value=50_000), min_size=1, max_size=200),
)
def test_mystery_trigger_lies_between_the_cycle_start_and_the_limit(params, draws, wagers):
    """Over many cycles with reserves and overflow: each trigger is in [start, limit), above the start
    unless the start is at the limit, the independent model draws the same one, and no cycle stands at
    or past its trigger when it starts (so it hits on its first wager only if that wager's own growth
    reaches the trigger, or when the start is at the limit)."""

    def drawer():
        picks = itertools.cycle(draws)
        return lambda n: next(picks) % n

    engine_draw, model_draw = drawer(), drawer()
    model = ModelLevel(params)
    state, _ = core.seed(params)
    state = dataclasses.replace(state, trigger_mc=core.draw_trigger(params, state.current_mc, engine_draw))
    assert state.trigger_mc == model.trigger(model_draw)
    for cents in wagers:
        start, trigger = state.current_mc, state.trigger_mc
        if start >= params.limit_mc - 1:
            assert trigger == start
        else:
            assert start < trigger < params.limit_mc
            # Not already crossed: only a wager whose own growth reaches the trigger hits.
            assert not core.mystery_crossed(params, state, 0)
        crossed = core.mystery_crossed(params, state, cents)
        state, _ = core.contribute(params, state, cents)
        model.wager(cents)
        if crossed:
            model.hit()
            state, _, _ = core.award(params, state, core.AwardMode.WHOLE, randbelow=engine_draw)
            assert (state.current_mc, state.reserve_mc) == (model.start, model.reserve)
            assert state.trigger_mc == model.trigger(model_draw)


events = st.lists(
    st.one_of(
        st.tuples(
            st.just("game"), st.integers(0, 2), st.integers(min_value=1, max_value=2_000), st.booleans()
        ),
        st.tuples(st.just("jackpot"), st.integers(0, 2), st.just(0), st.just(False)),
    ),
    min_size=1,
    max_size=40,
)


@pytest.mark.django_db
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(params=level_params(), stream=events, batch_size=st.integers(min_value=1, max_value=15))
def test_batches_equal_closed_form_of_the_raw_events(params, stream, batch_size):
    params = core.Params(
        reset_mc=params.reset_mc,
        rate=params.rate,
        reserve_rate=params.reserve_rate,
        limit_mc=params.limit_mc,
        min_wager_cents=100,
        max_bet_only=False,
    )
    progressive, machines = progressive_with_machines(3)
    level = level_create(progressive, name="Grand", position=1, params=params)
    for kind, index, wager, _ in stream:
        if kind == "game":
            GameEventFactory(machine=machines[index], wager_cents=wager)
        else:
            JackpotEventFactory(machine=machines[index], level_id=level.id, amount_cents=1)
    assert contributions_apply(batch_size=batch_size) == len(stream)
    # The independent computation, from the raw events as stored.
    model = ModelLevel(params)
    paid = []
    last_game: dict[int, int] = {}  # each machine's last wager: a report is a hit only if it was eligible
    for event in MachineEvent.objects.filter(machine__in=machines).order_by("at", "machine_id", "seq"):
        if event.type == MachineEvent.Type.JACKPOT:
            if last_game.get(event.machine_id, 0) >= params.min_wager_cents:
                paid.append(model.hit())
            continue
        last_game[event.machine_id] = event.wager_cents
        if event.wager_cents >= params.min_wager_cents:
            model.wager(event.wager_cents)
    level.refresh_from_db()
    assert (level.current_mc, level.reserve_mc, level.overflow_mc) == (
        model.current,
        model.reserve,
        model.overflow,
    )
    assert [h.amount_cents for h in level.hit_records.order_by("number")] == paid
    assert level.wagered_cents == sum(w for k, _, w, _ in stream if k == "game" and w >= 100)
    rows = LedgerEntry.objects.filter(level=level)
    contributed = sum(r.contributed_mc for r in rows)
    seeded = sum(r.seeded_mc for r in rows)
    awarded = sum(r.awarded_mc for r in rows)
    assert contributed + seeded == level.current_mc + level.reserve_mc + level.overflow_mc + awarded
    assert contributed == model.contributed
    assert MachineEvent.objects.filter(machine__in=machines, pending=True).count() == 0


wager_lists = st.lists(st.integers(min_value=100, max_value=100_000), max_size=8)


@pytest.mark.django_db
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(params=level_params(), before=wager_lists, after=wager_lists)
def test_a_void_leaves_the_level_as_if_the_hit_never_happened(params, before, after):
    from django.contrib.auth import get_user_model

    from jackpots.audit import jackpots_audit
    from jackpots.services import hit_void, level_hit

    progressive, machines = progressive_with_machines(1)
    level = level_create(progressive, name="Grand", position=1, params=params)
    model = ModelLevel(params)
    for wager in before:
        GameEventFactory(machine=machines[0], wager_cents=wager)
        model.wager(wager)
    contributions_apply()
    hit = level_hit(level.id, machine_id=machines[0].id)
    for wager in after:
        GameEventFactory(machine=machines[0], wager_cents=wager)
        model.wager(wager)
    contributions_apply()
    user, _ = get_user_model().objects.get_or_create(username="supervisor")
    hit_void(hit, user, "malfunction")
    level.refresh_from_db()
    assert (level.current_mc, level.reserve_mc, level.overflow_mc) == (
        model.current,
        model.reserve,
        model.overflow,
    )
    assert (level.cycle, level.hits, level.total_won_cents) == (1, 0, 0)
    assert [d for d in jackpots_audit()[1] if d.level_id == level.id] == []


@pytest.mark.django_db
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rate=st.decimals(min_value=Decimal("0.001"), max_value=Decimal("0.2"), places=8),
    draws=st.lists(st.integers(min_value=0, max_value=10**9), min_size=1, max_size=6),
    wagers=st.lists(st.integers(min_value=1, max_value=200_000), min_size=1, max_size=40),
    batch_size=st.integers(min_value=1, max_value=12),
)
def test_mystery_hits_fall_on_the_crossing_wager_whatever_the_batches(rate, draws, wagers, batch_size):
    import secrets

    from jackpots.models import Hit

    def drawer():
        index = 0

        def randbelow(n: int) -> int:
            nonlocal index
            index += 1
            return draws[(index - 1) % len(draws)] % n

        return randbelow

    params = core.Params(50_000_000, rate, Decimal("0.001"), limit_mc=60_000_000, mystery=True)
    original = secrets.randbelow
    secrets.randbelow = drawer()
    try:
        progressive, machines = progressive_with_machines(2)
        level = level_create(progressive, name="Mystery", position=1, params=params)
        events = [GameEventFactory(machine=machines[i % 2], wager_cents=w) for i, w in enumerate(wagers)]
        contributions_apply(batch_size=batch_size)
    finally:
        secrets.randbelow = original
    model_draw = drawer()
    model = ModelLevel(params)
    trigger = model.trigger(model_draw)
    expected = []
    for event in events:
        model.wager(event.wager_cents)
        if model.current >= trigger:
            expected.append((event.machine_id, model.hit()))
            trigger = model.trigger(model_draw)
    hits = Hit.objects.filter(level=level).order_by("number")
    assert [(h.machine_id, h.amount_cents) for h in hits] == expected
    level.refresh_from_db()
    assert (level.current_mc, level.reserve_mc, level.trigger_mc) == (model.current, model.reserve, trigger)
