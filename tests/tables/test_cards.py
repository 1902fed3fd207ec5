"""The hand evaluator: exhaustive five-card counts, seven-card straight flushes derived combinatorially."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.cards import (
    DECK,
    CardError,
    HandCategory,
    card_code,
    card_parse,
    cards_check_distinct,
    cards_parse,
    category_5,
    category_best,
    straight_flush_length,
)

H = HandCategory


def hand(*codes: str) -> tuple[int, ...]:
    return tuple(card_parse(code) for code in codes)


def test_all_five_card_hands_match_the_known_counts() -> None:
    counts = Counter(map(category_5, itertools.combinations(DECK, 5)))
    assert counts == {
        H.ROYAL_FLUSH: 4,
        H.STRAIGHT_FLUSH: 36,
        H.FOUR_OF_A_KIND: 624,
        H.FULL_HOUSE: 3_744,
        H.FLUSH: 5_108,
        H.STRAIGHT: 10_200,
        H.THREE_OF_A_KIND: 54_912,
        H.TWO_PAIR: 123_552,
        H.ONE_PAIR: 1_098_240,
        H.HIGH_CARD: 1_302_540,
    }
    assert sum(counts.values()) == 2_598_960


def sf_counts_by_length(suits: int, hand_size: int = 7, ranks: int = 13) -> dict[int, int]:
    """Hands of ``hand_size`` cards from a deck of ``suits`` x ``ranks`` whose longest straight flush is
    5, 6 or 7 long, derived without evaluating any hand.

    On each suit the ranks stand on a line of ``ranks + 1`` places (the ace at both ends). A longest run
    is a window of L places whose cards are all in the hand while the cards just outside it (one at a
    line end, two elsewhere) are not; the other ``hand_size - L`` cards are any of the rest. A hand of at
    most seven cards has one such window, so the counts add up without overlap.
    """
    deck = suits * ranks
    places = ranks + 1
    counts = {}
    for length in (5, 6, 7):
        total = 0
        for start in range(places - length + 1):
            outside = (start > 0) + (start + length < places)
            total += comb(deck - length - outside, hand_size - length)
        counts[length] = suits * total
    return counts


def test_seven_card_straight_flush_formula_matches_brute_force_on_a_two_suit_deck() -> None:
    two_suits = [card for card in DECK if card & 3 < 2]
    enumerated = Counter(map(straight_flush_length, itertools.combinations(two_suits, 7)))
    del enumerated[0]
    assert enumerated == sf_counts_by_length(suits=2)
    assert enumerated == {7: 16, 6: 328, 5: 3_496}


def test_seven_card_straight_flushes_of_each_length_on_the_full_deck() -> None:
    counts = sf_counts_by_length(suits=4)
    assert counts == {7: 32, 6: 1_592, 5: 39_960}
    # The published total of seven-card hands holding a straight flush (royal included): 41,584.
    assert sum(counts.values()) == 41_584
    # Every one of the 32 seven-long ones, enumerated and evaluated.
    sevens = [
        run
        for suit in range(4)
        for low in range(-1, 7)
        for run in [tuple(rank_or_low_ace(r) * 4 + suit for r in range(low, low + 7))]
    ]
    assert len(set(sevens)) == 32
    assert all(straight_flush_length(run) == 7 for run in sevens)


def rank_or_low_ace(rank: int) -> int:
    """Rank -1 stands for the ace played below the two."""
    return 12 if rank == -1 else rank


@pytest.mark.parametrize(
    ("codes", "length"),
    [
        (("AH", "2H", "3H", "4H", "5H", "6H", "7H"), 7),
        (("8S", "9S", "TS", "JS", "QS", "KS", "AS"), 7),
        (("AD", "2D", "3D", "4D", "5D", "6D", "KD"), 6),
        (("TC", "JC", "QC", "KC", "AC", "2C", "3C"), 5),
        (("QC", "KC", "AC", "2C", "3C", "4C", "9H"), 0),
        (("9H", "8H", "7H", "6H", "5H", "5S", "5D"), 5),
        (("9H", "8H", "7H", "6H", "4H", "3H", "2H"), 0),
    ],
)
def test_longest_straight_flush_examples(codes: tuple[str, ...], length: int) -> None:
    assert straight_flush_length(hand(*codes)) == length


def test_best_of_seven_matches_trying_all_21_subsets() -> None:
    rng = random.Random(20261121)
    for _ in range(20_000):
        cards = rng.sample(DECK, 7)
        assert category_best(cards) == max(map(category_5, itertools.combinations(cards, 5)))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=5, max_size=7, unique=True))
def test_best_of_five_to_seven_property(cards: list[int]) -> None:
    assert category_best(cards) == max(map(category_5, itertools.combinations(cards, 5)))
    length = straight_flush_length(cards)
    assert (length >= 5) == (category_best(cards) >= H.STRAIGHT_FLUSH)


@pytest.mark.parametrize(
    ("codes", "category"),
    [
        (("AS", "KS", "QS", "JS", "TS"), H.ROYAL_FLUSH),
        (("5D", "4D", "3D", "2D", "AD"), H.STRAIGHT_FLUSH),
        (("AS", "2D", "3C", "4H", "5S"), H.STRAIGHT),
        (("QS", "KD", "AC", "2H", "3S"), H.HIGH_CARD),
        (("9C", "9D", "9H", "9S", "2C"), H.FOUR_OF_A_KIND),
        (("9C", "9D", "9H", "2S", "2C"), H.FULL_HOUSE),
        (("9C", "9D", "4H", "2S", "2C"), H.TWO_PAIR),
    ],
)
def test_five_card_examples(codes: tuple[str, ...], category: HandCategory) -> None:
    assert category_5(hand(*codes)) == category
    assert category_best(hand(*codes)) == category


def test_card_codes_round_trip() -> None:
    assert [card_code(card) for card in DECK][:5] == ["2S", "2H", "2D", "2C", "3S"]
    assert all(card_parse(card_code(card)) == card for card in DECK)
    assert card_parse("AS") == 48


@pytest.mark.parametrize("bad", ["10S", "as", "AX", "1S", "", "ASS", 12, None])
def test_unknown_card_codes_are_refused(bad: object) -> None:
    with pytest.raises(CardError) as error:
        card_parse(bad)
    assert error.value.code == "unknown_card"


def test_card_lists_wrong_count_and_duplicates() -> None:
    with pytest.raises(CardError) as error:
        cards_parse(["AS", "KS"], count=5, where="seat 2")
    assert (error.value.code, error.value.detail) == ("wrong_card_count", "seat 2: expected 5 cards, got 2.")
    with pytest.raises(CardError) as error:
        cards_parse("AS KS", count=2, where="seat 1")
    assert error.value.code == "wrong_card_count"
    with pytest.raises(CardError) as error:
        cards_parse(["AS", "ZZ"], count=2, where="seat 1")
    assert error.value.code == "unknown_card"
    assert error.value.detail.startswith("seat 1: 'ZZ' is not a card")
    with pytest.raises(CardError) as error:
        cards_check_distinct([("community", hand("AS", "KS")), ("seat 3", hand("2C", "AS"))])
    assert (error.value.code, error.value.detail) == (
        "duplicate_card",
        "AS is dealt in community and in seat 3.",
    )
    with pytest.raises(CardError) as error:
        cards_check_distinct([("seat 1", hand("AS", "AS"))])
    assert error.value.detail == "AS is dealt twice in seat 1."
