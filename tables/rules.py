"""The table games' jackpot rules as pure functions: which hand a seat holds, how a prize is shared,
how money crosses currencies. No database here; the round service applies them to locked rows."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from decimal import ROUND_FLOOR, Decimal

from django.db import models
from django.utils.translation import gettext_lazy as _

from jackpots.services import core
from tables.cards import HandCategory, category_5, category_best, straight_flush_length


class Game(models.TextChoices):
    CARIBBEAN_STUD = "caribbean_stud", _("Caribbean Stud Poker")
    CASINO_HOLDEM = "casino_holdem", _("Casino Hold'em (Jumbo 7)")


class Hand(models.TextChoices):
    """What a pay table line pays on. Jumbo 7 counts a straight flush by its length (7, 6 or 5 cards)."""

    ROYAL_FLUSH = "royal_flush", _("Royal Flush")
    STRAIGHT_FLUSH_7 = "straight_flush_7", _("7-card Straight Flush")
    STRAIGHT_FLUSH_6 = "straight_flush_6", _("6-card Straight Flush")
    STRAIGHT_FLUSH_5 = "straight_flush_5", _("5-card Straight Flush")
    STRAIGHT_FLUSH = "straight_flush", _("Straight Flush")
    FOUR_OF_A_KIND = "four_of_a_kind", _("Four of a Kind")
    FULL_HOUSE = "full_house", _("Full House")
    FLUSH = "flush", _("Flush")
    STRAIGHT = "straight", _("Straight")
    THREE_OF_A_KIND = "three_of_a_kind", _("Three of a Kind")
    TWO_PAIR = "two_pair", _("Two Pair")
    ONE_PAIR = "one_pair", _("One Pair")
    HIGH_CARD = "high_card", _("High Card")


# Best first: percent prizes of different hands in one round are paid in this order, each on the amount
# standing when its turn comes (the engine's rule for near-simultaneous hits).
HAND_ORDER: tuple[str, ...] = tuple(Hand.values)

# The hands a Caribbean Stud player must declare (the Casinò's rule): the linked tables wait for them.
DECLARED_HANDS: tuple[str, ...] = (Hand.ROYAL_FLUSH, Hand.STRAIGHT_FLUSH)

CARDS_PER_SEAT = {Game.CARIBBEAN_STUD: 5, Game.CASINO_HOLDEM: 2}
COMMUNITY_CARDS = {Game.CARIBBEAN_STUD: 0, Game.CASINO_HOLDEM: 5}


def hand_of(game: str, seat_cards: Sequence[int], community: Sequence[int] = ()) -> str:
    """The pay-table hand a seat holds: Caribbean Stud its five cards; Jumbo 7 the longest straight flush
    among its seven (the ace high or low), else the best five of the seven."""
    if game == Game.CARIBBEAN_STUD:
        return category_5(seat_cards).key
    cards = (*seat_cards, *community)
    length = straight_flush_length(cards)
    if length:
        return f"straight_flush_{length}"
    category = category_best(cards)
    assert category < HandCategory.STRAIGHT_FLUSH  # a straight flush has a length
    return category.key


def split_by_weight(total_cents: int, weights: Sequence[int]) -> list[int]:
    """Divides ``total_cents`` in proportion to ``weights`` without losing a cent.

    Each share is first rounded down; the cents left over (fewer than the number of shares) go one each
    to the largest remainders, and between equal remainders to the earlier share (the seat recorded first,
    i.e. the first table's round, then the lower seat number). Equal weights give equal parts with the odd
    cents to the first winners.
    """
    if total_cents < 0 or not weights or min(weights) <= 0:
        raise ValueError("a split needs a non-negative total and positive weights")
    whole = sum(weights)
    shares = [total_cents * w // whole for w in weights]
    left = total_cents - sum(shares)
    by_remainder = sorted(range(len(weights)), key=lambda i: (-(total_cents * weights[i] % whole), i))
    for i in by_remainder[:left]:
        shares[i] += 1
    return shares


def percent_of_mc(amount_mc: int, percent: Decimal) -> int:
    """``percent`` % of a pool amount, in millicents rounded down (a prize never exceeds the pool)."""
    return int((Decimal(amount_mc) * percent / 100).to_integral_value(rounding=ROUND_FLOOR))


def movement_add(a: core.Movement, b: core.Movement) -> core.Movement:
    """The sum of two movements (a round's seats, one after the other)."""
    return core.Movement(
        **{
            f.name: (getattr(a, f.name) or getattr(b, f.name))
            if f.name == "carry_restart"
            else getattr(a, f.name) + getattr(b, f.name)
            for f in dataclasses.fields(core.Movement)
        }
    )
