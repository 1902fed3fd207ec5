"""Exact values of the link's arithmetic (``linkcentral.core``): conversions at their rounding edges, the
settle horizon, the order of play, the parts of a prize, and a run of contributions and claims."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from jackpots.services import core as engine
from linkcentral import core

T0 = datetime(2026, 11, 27, 10, 0, tzinfo=UTC)
CHF, EUR, GBP = Decimal("0.935"), Decimal("1"), Decimal("1.0723")
PARAMS = engine.Params(reset_mc=100_000_000, rate=Decimal("0.2"))


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def bets(site: str, seq: int, seconds: float, wagered: int, rate: Decimal) -> core.Entry:
    return core.Entry(site, seq, at(seconds), core.CONTRIBUTION, rate, wagered_cents=wagered)


def claim(
    site: str, seq: int, seconds: float, rate: Decimal, seats: tuple[tuple[int, int], ...]
) -> core.Entry:
    """A claim whose bets are ``seats``: (seat, bet in the site's cents)."""
    return core.Entry(site, seq, at(seconds), core.CLAIM, rate, bets=len(seats), seats=seats)


def test_pool_cents_rounds_down_at_the_sites_rate() -> None:
    assert core.pool_cents(1500, CHF) == 1604  # 1604.28
    assert core.pool_cents(935, CHF) == 1000  # exact
    assert core.pool_cents(934, CHF) == 998  # 998.93
    assert core.pool_cents(1000, GBP) == 932  # 932.57
    assert core.pool_cents(1, GBP) == 0
    assert core.pool_cents(0, CHF) == 0
    assert core.pool_cents(2500, EUR) == 2500


def test_pool_cents_refuses_a_negative_bet_or_a_rate_of_zero() -> None:
    with pytest.raises(ValueError):
        core.pool_cents(-1, EUR)
    with pytest.raises(ValueError):
        core.pool_cents(100, Decimal(0))


def test_site_cents_rounds_down_once_on_the_exact_product() -> None:
    assert core.site_cents(1_000_000, CHF) == 935
    assert core.site_cents(1_999, EUR) == 1
    assert core.site_cents(999, EUR) == 0
    assert core.site_cents(932, GBP) == 0  # 999.38 mc
    assert core.site_cents(933, GBP) == 1  # 1000.46 mc
    # Floored once: 1070 mc x 0.935 = 1000.45 mc is a cent, though 1070 mc is only 1 whole cent (0.93).
    assert core.site_cents(1_070, CHF) == 1
    assert core.site_cents(14_429_572, CHF) == 13_491


def test_settled_horizon_waits_for_the_slowest_member_but_no_longer_than_the_window() -> None:
    now, settle = at(200), timedelta(seconds=120)
    assert core.settled_horizon([at(100), at(90)], now, settle) == at(90)
    assert core.settled_horizon([at(100), None], now, settle) == at(80)  # never heard from
    assert core.settled_horizon([at(50), at(150)], now, settle) == at(80)  # silent past the window
    assert core.settled_horizon([at(190), at(195)], now, settle) == at(190)
    assert core.settled_horizon([], now, settle) == at(80)


def test_entries_order_is_time_site_seq_and_the_horizon_excluded() -> None:
    a = bets("NOG", 7, 1, 100, EUR)
    b = bets("CHX", 9, 1, 100, CHF)
    c = bets("CHX", 8, 1, 100, CHF)
    d = claim("AAA", 1, 0.5, EUR, ((1, 100),))
    e = bets("AAA", 2, 2, 100, EUR)  # at the horizon: not settled
    assert core.order_key(a) == (at(1), "NOG", 7)
    assert core.entries_order([a, b, c, d, e], at(2)) == [d, c, b, a]


def test_bet_weight_is_the_bet_in_pool_cents_down_and_never_below_one() -> None:
    assert [core.bet_weight(bet, CHF) for bet in (700, 1300, 400)] == [
        748,
        1390,
        427,
    ]  # 748.66, 1390.37, 427.81
    assert core.bet_weight(935, CHF) == 1000  # exact
    assert core.bet_weight(2500, EUR) == 2500
    assert core.bet_weight(1073, GBP) == 1000  # 1000.65
    assert core.pool_cents(1, GBP) == 0 and core.bet_weight(1, GBP) == 1  # under a pool cent: still shares
    with pytest.raises(ValueError):
        core.bet_weight(0, EUR)


def test_parts_split_is_by_weight_in_cents_the_cents_left_to_the_largest_remainders() -> None:
    # 4083 x (748, 1390, 427) / 2565 = 1190.68, 2212.62, 679.70: 4081 down, the 2 cents left to the
    # largest remainders, the third's (0.70) then the first's (0.68).
    assert core.parts_split(4083, [748, 1390, 427]) == [1191, 2212, 680]
    assert core.parts_split(4083, [427, 1390, 748]) == [680, 2212, 1191]


def test_parts_split_equal_remainders_go_to_the_earlier_bet() -> None:
    assert core.parts_split(10, [1, 1, 1]) == [4, 3, 3]
    assert core.parts_split(7, [2, 1, 1, 2]) == [3, 1, 1, 2]  # 2.33, 1.17, 1.17, 2.33: the first 2.33
    assert core.parts_split(1, [5, 5]) == [1, 0]
    assert core.parts_split(0, [1, 2]) == [0, 0]
    assert core.parts_split(5, [3]) == [5]


def test_parts_split_refuses_no_bet_a_weight_under_a_cent_or_a_negative_prize() -> None:
    for prize, weights in ((5, []), (5, [3, 0]), (-1, [1])):
        with pytest.raises(ValueError):
            core.parts_split(prize, weights)


def test_a_run_contributions_then_claims_of_one_instant_share_one_prize() -> None:
    entries = [
        bets("CHX", 1, 1, 1500, CHF),  # 1604 pool cents: +320_800 mc
        bets("NOG", 1, 2, 2500, EUR),  # +500_000 mc
        claim("CHX", 2, 2, CHF, ((2, 500), (5, 1000), (6, 100))),  # weights 534, 1069, 106
        claim("NOG", 2, 2, EUR, ((1, 2500), (3, 500), (4, 100), (7, 1))),  # weights 2500, 500, 100, 1
        bets("LUG", 1, 2, 1000, GBP),  # after the claims by site, yet in before them: 932 cents, +186_400
        bets("CHX", 3, 3, 935, CHF),  # the next cycle: 1000 cents, +200_000
        claim("LUG", 2, 4, GBP, ((3, 250),)),  # wins from the reset
    ]
    run = core.entries_run(PARAMS, engine.seed(PARAMS)[0], reversed(entries))

    first, second = run.awards
    assert (first.played_at, first.cycle, first.before.current_mc) == (at(2), 1, 101_007_200)
    assert first.prize_mc == 101_007_000  # whole cents; the 200 mc rest stays in the pool
    # 101,007 cents by the weights (total 4810): 101,002 down, the 5 cents left to the largest remainders
    # (x/4810: the 7th's 4807, the 6th's 4510, the 3rd's 4492, the 5th's 3310, the 1st's 3208; not the
    # 4th's 2120 nor the 2nd's 1603).
    assert [(p.number, p.entry.site, p.seat, p.bet_cents, p.weight, p.amount_mc) for p in first.parts] == [
        (1, "CHX", 2, 500, 534, 11_214_000),
        (2, "CHX", 5, 1000, 1069, 22_448_000),
        (3, "CHX", 6, 100, 106, 2_226_000),
        (4, "NOG", 1, 2500, 2500, 52_498_000),
        (5, "NOG", 3, 500, 500, 10_500_000),
        (6, "NOG", 4, 100, 100, 2_100_000),
        (7, "NOG", 7, 1, 1, 21_000),
    ]
    assert sum(p.amount_mc for p in first.parts) == first.prize_mc
    assert [core.site_cents(p.amount_mc, CHF) for p in first.parts[:3]] == [10_485, 20_988, 2_081]
    assert first.state.current_mc == 100_000_200
    assert (second.cycle, second.before.current_mc, second.prize_mc) == (2, 100_200_200, 100_200_000)
    assert [(p.entry.site, p.seat, p.weight, p.amount_mc) for p in second.parts] == [
        ("LUG", 3, 233, 100_200_000)
    ]
    assert (run.state.current_mc, run.state.cycle, run.state.hits) == (100_000_200, 3, 2)
    assert [(a.entry.site, a.entry.seq, a.cycle, a.pool_cents) for a in run.applied] == [
        ("CHX", 1, 1, 1604),
        ("LUG", 1, 1, 932),
        ("NOG", 1, 1, 2500),
        ("CHX", 2, 1, 0),
        ("NOG", 2, 1, 0),
        ("CHX", 3, 2, 1000),
        ("LUG", 2, 2, 0),
    ]
    assert [a.movement.contributed_mc for a in run.applied] == [320_800, 186_400, 500_000, 0, 0, 200_000, 0]


def test_a_claim_with_no_pool_growth_wins_the_reset_value_divided_by_the_bets() -> None:
    seats = ((4, 700), (5, 1300), (6, 400))  # weights 748, 1390, 427
    run = core.entries_run(PARAMS, engine.seed(PARAMS)[0], [claim("CHX", 1, 1, CHF, seats)])
    (award,) = run.awards
    assert award.prize_mc == 100_000_000
    # 100,000 x (748, 1390, 427) / 2565 = 29161.79, 54191.03, 16647.17: the cent left to the first.
    assert [p.amount_mc for p in award.parts] == [29_162_000, 54_191_000, 16_647_000]
    assert [core.site_cents(p.amount_mc, CHF) for p in award.parts] == [27_266, 50_668, 15_564]
    assert (run.state.current_mc, run.state.cycle) == (100_000_000, 2)


def test_equal_bets_share_equally_the_odd_cent_to_the_earlier() -> None:
    seats = ((4, 500), (5, 500), (6, 500))
    (award,) = core.entries_run(PARAMS, engine.seed(PARAMS)[0], [claim("CHX", 1, 1, CHF, seats)]).awards
    assert [p.amount_mc for p in award.parts] == [33_334_000, 33_333_000, 33_333_000]


def test_a_bet_under_a_pool_cent_shares_as_one_cent() -> None:
    # 1 GBP cent is 0.93 pool cents: weight 1 beside 1000 (1073 / 1.0723 = 1000.65).
    seats = ((1, 1), (2, 1073))
    (award,) = core.entries_run(PARAMS, engine.seed(PARAMS)[0], [claim("LUG", 1, 1, GBP, seats)]).awards
    assert [(p.weight, p.amount_mc) for p in award.parts] == [(1, 100_000), (1000, 99_900_000)]


def test_a_claim_with_no_bets_wins_nothing() -> None:
    nobody = core.Entry("CHX", 1, at(1), core.CLAIM, CHF, bets=0)
    run = core.entries_run(PARAMS, engine.seed(PARAMS)[0], [nobody])
    assert run.awards == ()
    assert [(a.entry, a.cycle) for a in run.applied] == [(nobody, 1)]
    assert (run.state.current_mc, run.state.cycle) == (100_000_000, 1)


def test_a_claim_must_name_the_seat_and_bet_of_each_bet() -> None:
    two = core.Entry("CHX", 1, at(1), core.CLAIM, CHF, bets=2, seats=((3, 500),))
    with pytest.raises(ValueError):
        core.entries_run(PARAMS, engine.seed(PARAMS)[0], [two])


def test_the_reset_takes_the_next_parameters() -> None:
    staged = engine.Params(reset_mc=50_000_000, rate=Decimal("0.1"))
    entries = [claim("CHX", 1, 1, CHF, ((1, 100),)), bets("CHX", 2, 2, 935, CHF)]
    run = core.entries_run(PARAMS, engine.seed(PARAMS)[0], entries, next_params=staged)
    assert run.awards[0].state.current_mc == 50_000_000
    assert run.state.current_mc == 50_100_000  # 1000 cents at the staged 0.1


def test_runs_split_ends_each_piece_at_an_instant_with_a_claim() -> None:
    a, b, c = bets("CHX", 1, 1, 10, CHF), claim("CHX", 2, 1, CHF, ((1, 10),)), bets("NOG", 1, 1, 10, EUR)
    d, e = bets("NOG", 2, 2, 10, EUR), bets("NOG", 3, 3, 10, EUR)
    assert core.runs_split([a, b, c, d, e]) == [[a, b, c], [d, e]]
    assert core.runs_split([d, e]) == [[d, e]]
    assert core.runs_split([]) == []
