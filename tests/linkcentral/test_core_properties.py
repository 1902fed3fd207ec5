"""Property tests of the link's arithmetic: for random entries from several sites, at random rates, arriving
in any order with any throughs, ``linkcentral.core`` gives to the millicent what the independent model
(``tests/linkcentral/model.py``) gives; the result does not depend on the order entries arrived in once they
are settled; money is conserved; the parts add up to the prize, each within a cent of its share by the
bets, as the tables divide a Jumbo 7 (``tables.rules.split_by_weight``), and no site's parts convert to
more than the prize is worth."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from jackpots.services import core as engine
from linkcentral import core
from tables.rules import split_by_weight
from tests.linkcentral.model import (
    ModelEntry,
    ModelPool,
    model_horizon,
    model_parts,
    model_pool_cents,
    model_site_cents,
    model_weight,
)

T0 = datetime(2026, 11, 27, 10, 0, tzinfo=UTC)
SITES = ["CHX", "LUG", "NOG"]
rates = st.decimals(min_value=Decimal("0.5"), max_value=Decimal("2"), places=8)


@st.composite
def level_params(draw: st.DrawFn) -> engine.Params:
    reset = draw(st.integers(min_value=0, max_value=10_000_000))
    limit = draw(st.one_of(st.none(), st.integers(min_value=reset + 1, max_value=reset + 3_000_000)))
    return engine.Params(
        reset_mc=reset,
        rate=draw(st.decimals(min_value=0, max_value=Decimal("0.3"), places=8)),
        reserve_rate=draw(st.decimals(min_value=0, max_value=Decimal("0.05"), places=8)),
        limit_mc=limit,
    )


@st.composite
def site_entries(draw: st.DrawFn) -> list[core.Entry]:
    """Each site's entries with seqs from 1, played at a few shared instants (so ties happen) and each at
    its site's rate, which may change between entries."""
    entries = []
    for site in SITES:
        rate = draw(rates)
        count = draw(st.integers(min_value=0, max_value=8))
        for seq in range(1, count + 1):
            if draw(st.integers(min_value=0, max_value=5)) == 0:
                rate = draw(rates)
            played_at = T0 + timedelta(seconds=draw(st.integers(min_value=0, max_value=12)))
            if draw(st.integers(min_value=0, max_value=3)) == 0:
                bets = draw(st.integers(min_value=0, max_value=4))
                numbers = draw(st.lists(st.integers(1, 7), min_size=bets, max_size=bets, unique=True))
                # Bets from a cent (under a pool cent at most rates: weight 1) to a high table's.
                amounts = st.one_of(st.integers(1, 3), st.integers(1, 200_000))
                seats = tuple((seat, draw(amounts)) for seat in numbers)
                entries.append(core.Entry(site, seq, played_at, core.CLAIM, rate, bets=bets, seats=seats))
            else:
                wagered = draw(st.integers(min_value=0, max_value=200_000))
                entries.append(
                    core.Entry(site, seq, played_at, core.CONTRIBUTION, rate, wagered_cents=wagered)
                )
    return entries


def as_model(entry: core.Entry) -> ModelEntry:
    return ModelEntry(
        entry.site,
        entry.seq,
        entry.played_at,
        entry.kind,
        entry.rate,
        entry.wagered_cents,
        entry.bets,
        entry.seats,
    )


def start_state(params: engine.Params) -> engine.State:
    return engine.seed(params)[0]


def awards_view(run: core.Run) -> list[tuple]:
    return [
        (
            a.played_at,
            a.cycle,
            a.prize_mc,
            [(p.entry.site, p.entry.seq, p.seat, p.weight, p.amount_mc) for p in a.parts],
        )
        for a in run.awards
    ]


throughs_st = st.lists(
    st.one_of(st.none(), st.integers(min_value=-5, max_value=20).map(lambda s: T0 + timedelta(seconds=s))),
    min_size=len(SITES),
    max_size=len(SITES),
)


@settings(max_examples=300, deadline=None)
@given(
    params=level_params(),
    entries=site_entries(),
    throughs=throughs_st,
    clock=st.tuples(st.integers(min_value=0, max_value=300), st.integers(min_value=0, max_value=200)),
    data=st.data(),
)
def test_core_agrees_with_the_model_whatever_the_arrival_order(
    params, entries, throughs, clock, data
) -> None:
    now, settle = T0 + timedelta(seconds=clock[0]), timedelta(seconds=clock[1])
    horizon = core.settled_horizon(throughs, now, settle)
    assert horizon == model_horizon(throughs, now, settle)
    arrived = data.draw(st.permutations(entries))

    settled = core.entries_order(arrived, horizon)
    run = core.entries_run(params, start_state(params), settled)

    # Arrival order does not matter once settled: the same entries in another order give the same run.
    again = core.entries_run(params, start_state(params), core.entries_order(entries, horizon))
    assert again == run
    assert [core.order_key(e) for e in settled] == sorted(core.order_key(e) for e in settled)
    assert all(e.played_at < horizon for e in settled)
    assert len(settled) == sum(1 for e in entries if e.played_at < horizon)

    model = ModelPool(params)
    model.play([as_model(e) for e in arrived if e.played_at < horizon])
    state = run.state
    assert (state.current_mc, state.reserve_mc, state.overflow_mc, state.cycle) == (
        model.current,
        model.reserve,
        model.overflow,
        model.cycle,
    )
    assert awards_view(run) == [(a.played_at, a.cycle, a.prize_mc, a.parts) for a in model.awards]
    assert {(a.entry.site, a.entry.seq): a.cycle for a in run.applied} == model.cycles
    assert [a.entry for a in run.applied] == _model_applied_order(settled)

    # Conservation: the pool holds the seeds and every contribution's share, less the prizes.
    contributed = sum(a.movement.contributed_mc for a in run.applied)
    seeded = params.reset_mc + sum(a.movement.seeded_mc for a in run.awards)
    awarded = sum(a.prize_mc for a in run.awards)
    assert state.current_mc + state.reserve_mc + state.overflow_mc == seeded + contributed - awarded
    assert contributed == model.contributed + model.added + model._share(params.reserve_rate)
    assert [a.pool_cents for a in run.applied if a.entry.kind == core.CONTRIBUTION] == [
        model_pool_cents(a.entry.wagered_cents, a.entry.rate)
        for a in run.applied
        if a.entry.kind == "contribution"
    ]

    for award in run.awards:
        amounts = [p.amount_mc for p in award.parts]
        assert sum(amounts) == award.prize_mc
        assert all(amount % 1000 == 0 for amount in amounts)  # whole cents, as the tables pay
        assert [p.number for p in award.parts] == list(range(1, len(award.parts) + 1))
        assert [(p.entry, p.seat, p.bet_cents) for p in award.parts] == [
            (c, seat, bet) for c in award.claims for seat, bet in c.seats
        ]
        weights = [p.weight for p in award.parts]
        assert weights == [model_weight(p.bet_cents, p.entry.rate) for p in award.parts]
        # Each part within one cent of its exact share of the prize by the bets in the pool's cents.
        for part in award.parts:
            share = Fraction(award.prize_mc // 1000 * part.weight, sum(weights))
            assert abs(part.amount_mc // 1000 - share) < 1
        # The same parts as the tables' own Jumbo 7 split, cent for cent.
        assert [a // 1000 for a in amounts] == split_by_weight(award.prize_mc // 1000, weights)
        for site in SITES:
            for rate in {p.entry.rate for p in award.parts if p.entry.site == site}:
                mine = [p for p in award.parts if p.entry.site == site and p.entry.rate == rate]
                paid = sum(core.site_cents(p.amount_mc, rate) for p in mine)
                assert paid == sum(model_site_cents(p.amount_mc, rate) for p in mine)
                assert paid <= core.site_cents(award.prize_mc, rate)


def _model_applied_order(settled: list[core.Entry]) -> list[core.Entry]:
    """At each instant the contributions in the order of play, then the claims."""
    out: list[core.Entry] = []
    instants = sorted({e.played_at for e in settled})
    for instant in instants:
        at = [e for e in settled if e.played_at == instant]
        out += [e for e in at if e.kind == core.CONTRIBUTION] + [e for e in at if e.kind == core.CLAIM]
    return out


@settings(max_examples=200, deadline=None)
@given(params=level_params(), entries=site_entries(), data=st.data())
def test_applied_post_by_post_it_is_the_order_of_play(params, entries, data) -> None:
    """Sites post their entries in seq order, in batches, each with its through; the link applies what is
    settled after every post. With a settle window longer than the play, no entry is ever late, and the
    pool ends exactly as the whole order of play applied at once."""
    settle = timedelta(hours=1)
    now = T0 + timedelta(seconds=30)
    by_site = {site: sorted((e for e in entries if e.site == site), key=lambda e: e.seq) for site in SITES}
    throughs: dict[str, datetime | None] = dict.fromkeys(SITES)
    received: list[core.Entry] = []
    applied: set[tuple[str, int]] = set()
    state = start_state(params)
    prizes: list[int] = []
    posts = data.draw(
        st.lists(st.tuples(st.sampled_from(SITES), st.integers(0, 3), st.integers(0, 13)), max_size=20)
    )
    # Then each site posts whatever it has left and says it played through the end.
    posts += [(site, 10**6, 13) for site in SITES]
    for site, count, through_s in posts:
        batch, by_site[site] = by_site[site][:count], by_site[site][count:]
        received += batch
        # A site may say it played through any instant up to its earliest unsent round (all, once done).
        upto = min((e.played_at for e in by_site[site]), default=T0 + timedelta(seconds=13))
        sent_through = min(upto, T0 + timedelta(seconds=through_s))
        previous = throughs[site]
        throughs[site] = sent_through if previous is None else max(previous, sent_through)
        horizon = core.settled_horizon(throughs.values(), now, settle)
        todo = [e for e in received if (e.site, e.seq) not in applied]
        run = core.entries_run(params, state, core.entries_order(todo, horizon))
        state = run.state
        prizes += [a.prize_mc for a in run.awards]
        applied |= {(a.entry.site, a.entry.seq) for a in run.applied}
    once = core.entries_run(params, start_state(params), entries)
    assert state == once.state
    assert prizes == [a.prize_mc for a in once.awards]
    assert applied == {(e.site, e.seq) for e in entries}


@given(
    prize=st.integers(min_value=0, max_value=10**10),
    weights=st.lists(
        st.one_of(st.integers(1, 5), st.integers(1, 10**8), st.sampled_from([7, 14, 21])),
        min_size=1,
        max_size=40,
    ),
)
def test_parts_are_the_models_and_the_tables(prize, weights) -> None:
    """Equal remainders (equal or multiple weights) are drawn often: they must go to the earlier bet."""
    parts = core.parts_split(prize, weights)
    assert parts == model_parts(prize, weights)
    assert parts == split_by_weight(prize, weights)
    assert sum(parts) == prize


@given(cents=st.integers(min_value=1, max_value=10**10), rate=st.one_of(rates, st.just(Decimal("150.5"))))
def test_a_bets_weight_is_its_pool_cents_and_at_least_one(cents, rate) -> None:
    assert core.bet_weight(cents, rate) == model_weight(cents, rate)
    assert core.bet_weight(cents, rate) == max(core.pool_cents(cents, rate), 1)


@given(cents=st.integers(min_value=0, max_value=10**10), rate=rates)
def test_conversions_are_the_models(cents, rate) -> None:
    assert core.pool_cents(cents, rate) == model_pool_cents(cents, rate)
    assert core.site_cents(cents, rate) == model_site_cents(cents, rate)


def test_state_is_a_frozen_value() -> None:
    """``again == run`` above compares values: the run's records are frozen dataclasses."""
    run = core.entries_run(engine.Params(reset_mc=0, rate=Decimal("0.1")), engine.State(current_mc=0), [])
    assert dataclasses.is_dataclass(run) and run == core.Run(engine.State(current_mc=0), (), ())
