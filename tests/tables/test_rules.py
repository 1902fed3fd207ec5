"""Pure rules of the table games: hands per game, prize splits, conversions."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jackpots.currency import convert_cents, convert_cents_back
from tables.cards import card_parse
from tables.rules import (
    Game,
    hand_of,
    percent_of_mc,
    split_by_weight,
)


def cards(*codes: str) -> tuple[int, ...]:
    return tuple(card_parse(code) for code in codes)


@pytest.mark.parametrize(
    ("seat", "community", "hand"),
    [
        (("AH", "2H"), ("3H", "4H", "5H", "6H", "7H"), "straight_flush_7"),
        (("AH", "KH"), ("QH", "JH", "TH", "9H", "2C"), "straight_flush_6"),
        (("AH", "KH"), ("QH", "JH", "TH", "2D", "2C"), "straight_flush_5"),
        (("9S", "9H"), ("9D", "9C", "TH", "2D", "3C"), "four_of_a_kind"),
        (("9S", "9H"), ("9D", "2S", "2H", "2D", "3C"), "full_house"),
        (("AS", "3S"), ("8S", "JS", "TS", "2D", "3C"), "flush"),
        (("AS", "2D"), ("3C", "4H", "5S", "JD", "KC"), "straight"),
        (("AS", "AD"), ("3C", "4H", "9S", "JD", "KC"), "one_pair"),
    ],
)
def test_jumbo_7_hands(seat: tuple[str, ...], community: tuple[str, ...], hand: str) -> None:
    assert hand_of(Game.CASINO_HOLDEM, cards(*seat), cards(*community)) == hand


def test_caribbean_stud_hands() -> None:
    assert hand_of(Game.CARIBBEAN_STUD, cards("AS", "KS", "QS", "JS", "TS")) == "royal_flush"
    assert hand_of(Game.CARIBBEAN_STUD, cards("9S", "KS", "QS", "JS", "TS")) == "straight_flush"
    assert hand_of(Game.CARIBBEAN_STUD, cards("9S", "KS", "QS", "JS", "TD")) == "straight"


def test_split_gives_odd_cents_to_largest_remainders_then_to_the_first() -> None:
    assert split_by_weight(100, [1, 1, 1]) == [34, 33, 33]
    assert split_by_weight(101, [1, 1, 1]) == [34, 34, 33]
    # 1000 cents by bets of 100, 200 and 300: exact thirds of 1000/6 -> 166.67, 333.33, 500.
    assert split_by_weight(1000, [100, 200, 300]) == [167, 333, 500]
    # Remainders 0.5 and 0.5: the earlier share gets the cent.
    assert split_by_weight(3, [1, 1]) == [2, 1]
    assert split_by_weight(0, [5, 7]) == [0, 0]
    with pytest.raises(ValueError, match="positive weights"):
        split_by_weight(10, [1, 0])


@given(st.integers(0, 10**12), st.lists(st.integers(1, 10**6), min_size=1, max_size=30))
def test_split_loses_no_cent_and_is_within_a_cent_of_exact(total: int, weights: list[int]) -> None:
    shares = split_by_weight(total, weights)
    assert sum(shares) == total
    whole = sum(weights)
    for share, weight in zip(shares, weights, strict=True):
        assert total * weight // whole <= share <= total * weight // whole + 1


def test_percent_and_conversion_round_down() -> None:
    assert percent_of_mc(1_234_567, Decimal("10")) == 123_456
    assert percent_of_mc(1_234_567, Decimal("100")) == 1_234_567
    assert convert_cents(1000, Decimal("0.93710000")) == 937
    assert convert_cents(999, Decimal("1.06712")) == 1066
    # Exact where a Decimal reciprocal would not be: 3 / 0.3 is 10, not 3 x 3.333... = 9.999...
    assert convert_cents_back(3, Decimal("0.30000000")) == 10
    assert convert_cents_back(1000, Decimal("0.93710000")) == 1067


@given(st.integers(0, 10**9), st.decimals(min_value="0.00000001", max_value="1000", places=8))
def test_conversions_never_create_money(cents: int, rate: Decimal) -> None:
    there = convert_cents(cents, rate)
    assert there <= cents * rate < there + 1
    back = convert_cents_back(cents, rate)
    assert back * rate <= cents < (back + 1) * rate
