"""Playing cards and poker hands, evaluated by the server (the table never says what a hand is).

A card is an int 0..51: ``rank * 4 + suit`` with rank 0 for a two up to 12 for an ace and suit 0..3 for
S, H, D, C. Hands are evaluated with precomputed tables (a prime product per rank multiset, a bitmask per
set of ranks) so that all 2,598,960 five-card hands can be checked exhaustively in seconds.

Pure Python, no Django: the round service and the tests import it directly.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Iterable, Sequence

RANKS = "23456789TJQKA"
SUITS = "SHDC"
ACE = 12
DECK: tuple[int, ...] = tuple(range(52))


class HandCategory(enum.IntEnum):
    """Poker categories, higher is better. Values are stable: they order the pay table lines."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9

    @property
    def key(self) -> str:
        return self.name.lower()


class CardError(ValueError):
    """A round's cards cannot be played; ``code`` is the API's stable error code."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def card_parse(code: object) -> int:
    """``"AS"`` -> 51. Rank ``A K Q J T 9 … 2`` then suit ``S H D C``, upper case, exactly two characters."""
    if not isinstance(code, str) or len(code) != 2 or code[0] not in RANKS or code[1] not in SUITS:
        raise CardError(
            "unknown_card",
            f"{code!r} is not a card: a rank (A K Q J T 9 8 7 6 5 4 3 2) then a suit (S H D C), e.g. 'TS'.",
        )
    return RANKS.index(code[0]) * 4 + SUITS.index(code[1])


def card_code(card: int) -> str:
    return RANKS[card >> 2] + SUITS[card & 3]


def cards_parse(codes: object, *, count: int, where: str) -> tuple[int, ...]:
    """Parses a list of exactly ``count`` card codes; ``where`` names it in the error ('seat 3')."""
    if not isinstance(codes, list | tuple):
        raise CardError("wrong_card_count", f"{where}: cards must be a list of {count} card codes.")
    if len(codes) != count:
        raise CardError("wrong_card_count", f"{where}: expected {count} cards, got {len(codes)}.")
    try:
        return tuple(card_parse(code) for code in codes)
    except CardError as error:
        raise CardError(error.code, f"{where}: {error.detail}") from None


def cards_check_distinct(hands: Iterable[tuple[str, Sequence[int]]]) -> None:
    """Every card of a round comes from one 52-card deck: the same card twice is an error."""
    seen: dict[int, str] = {}
    for where, cards in hands:
        for card in cards:
            if card in seen:
                first = seen[card]
                place = f"twice in {where}" if first == where else f"in {first} and in {where}"
                raise CardError("duplicate_card", f"{card_code(card)} is dealt {place}.")
            seen[card] = where


# --- Precomputed tables ------------------------------------------------------------------------------------

_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
_CARD_PRIME = tuple(_PRIMES[c >> 2] for c in DECK)
_CARD_BIT = tuple(1 << (c >> 2) for c in DECK)
# Five consecutive ranks as a mask over bits 0 (two) .. 12 (ace); the wheel A-2-3-4-5 included.
_STRAIGHTS = frozenset([0b1_0000_0000_1111] + [0b11111 << low for low in range(9)])
_ROYAL = 0b11111 << 8


def _category_of_counts(counts: Sequence[int], mask: int) -> HandCategory:
    shape = sorted((n for n in counts if n), reverse=True)
    if shape[0] == 4:
        return HandCategory.FOUR_OF_A_KIND
    if shape[0] == 3:
        return HandCategory.FULL_HOUSE if shape[1] == 2 else HandCategory.THREE_OF_A_KIND
    if shape[0] == 2:
        return HandCategory.TWO_PAIR if shape[1] == 2 else HandCategory.ONE_PAIR
    return HandCategory.STRAIGHT if mask in _STRAIGHTS else HandCategory.HIGH_CARD


def _build_unsuited() -> dict[int, HandCategory]:
    """Category of every multiset of five ranks (6,175 of them), keyed by the product of rank primes."""
    table: dict[int, HandCategory] = {}
    for ranks in itertools.combinations_with_replacement(range(13), 5):
        counts = [ranks.count(r) for r in range(13)]
        if max(counts) > 4:
            continue
        product = 1
        mask = 0
        for r in ranks:
            product *= _PRIMES[r]
            mask |= 1 << r
        table[product] = _category_of_counts(counts, mask)
    return table


_UNSUITED = _build_unsuited()


def category_5(cards: Sequence[int]) -> HandCategory:
    """The category of exactly five distinct cards."""
    a, b, c, d, e = cards
    if (a & 3) == (b & 3) == (c & 3) == (d & 3) == (e & 3):
        mask = _CARD_BIT[a] | _CARD_BIT[b] | _CARD_BIT[c] | _CARD_BIT[d] | _CARD_BIT[e]
        if mask in _STRAIGHTS:
            return HandCategory.ROYAL_FLUSH if mask == _ROYAL else HandCategory.STRAIGHT_FLUSH
        return HandCategory.FLUSH
    return _UNSUITED[_CARD_PRIME[a] * _CARD_PRIME[b] * _CARD_PRIME[c] * _CARD_PRIME[d] * _CARD_PRIME[e]]


def _has_straight(mask: int) -> bool:
    # Ace low: the ace's bit also stands below the two.
    extended = (mask << 1) | (mask >> ACE & 1)
    run = extended & (extended >> 1) & (extended >> 2) & (extended >> 3) & (extended >> 4)
    return run != 0


def category_best(cards: Sequence[int]) -> HandCategory:
    """The category of the best five of five to seven distinct cards (Casino Hold'em: 2 + 5 community).

    Computed directly from rank counts and suit masks rather than by trying all 21 subsets: the tests
    check it against that brute force.
    """
    counts = [0] * 13
    suit_masks = [0, 0, 0, 0]
    for card in cards:
        counts[card >> 2] += 1
        suit_masks[card & 3] |= 1 << (card >> 2)
    flush = HandCategory.HIGH_CARD
    for mask in suit_masks:
        if mask.bit_count() >= 5:
            if mask & _ROYAL == _ROYAL:
                return HandCategory.ROYAL_FLUSH
            if _has_straight(mask):
                return HandCategory.STRAIGHT_FLUSH
            flush = HandCategory.FLUSH
    quads = trips = pairs = 0
    for n in counts:
        if n == 4:
            quads += 1
        elif n == 3:
            trips += 1
        elif n == 2:
            pairs += 1
    if quads:
        return HandCategory.FOUR_OF_A_KIND
    if trips >= 2 or (trips and pairs):
        return HandCategory.FULL_HOUSE
    if flush:
        return flush
    rank_mask = suit_masks[0] | suit_masks[1] | suit_masks[2] | suit_masks[3]
    if _has_straight(rank_mask):
        return HandCategory.STRAIGHT
    if trips:
        return HandCategory.THREE_OF_A_KIND
    if pairs >= 2:
        return HandCategory.TWO_PAIR
    if pairs:
        return HandCategory.ONE_PAIR
    return HandCategory.HIGH_CARD


def straight_flush_length(cards: Sequence[int]) -> int:
    """The length of the longest straight flush among the cards (Jumbo 7), or 0 if under five long.

    Runs are counted on each suit's ranks with the ace both below the two and above the king, so
    A-2-3-4-5-6-7 and 8-9-T-J-Q-K-A are both seven long. Seven cards cannot hold two runs of five that
    use the ace twice, so the longest run is never overstated.
    """
    suit_masks = [0, 0, 0, 0]
    for card in cards:
        suit_masks[card & 3] |= 1 << (card >> 2)
    longest = 0
    for mask in suit_masks:
        if mask.bit_count() < 5:
            continue
        run = (mask << 1) | (mask >> ACE & 1)
        length = 0
        while run:
            run &= run >> 1
            length += 1
        longest = max(longest, length)
    return longest if longest >= 5 else 0
