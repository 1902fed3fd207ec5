"""A posted round, checked before anything is written: the cards, the seats and the jackpot bets.

Every problem raises ``RoundError`` with the API's stable code and a sentence; the round service only
starts writing once this has passed, so a bad round changes nothing.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime

import orjson

from common.api_errors import ApiError
from common.times import TimeRejected, TimeWindow, instant_parse
from tables.cards import CardError, cards_check_distinct, cards_parse
from tables.rules import CARDS_PER_SEAT, COMMUNITY_CARDS, Game

ROUND_ID_MAX = 64
# A round id travels in the void URL: letters, digits and . _ : - only.
ROUND_ID = re.compile(r"[A-Za-z0-9._:-]+")


class RoundError(ApiError):
    """``status`` is the HTTP status the API answers with (through common.api_errors)."""

    def __init__(self, code: str, detail: str, status: int = 400) -> None:
        super().__init__(status, code, detail)


VOID_REASON_MAX = 500


def void_reason_parse(body: bytes) -> str:
    """The optional ``reason`` of a void request: a string of at most VOID_REASON_MAX characters without
    NUL (PostgreSQL text cannot hold one), or RoundError 400. An empty body is no reason."""
    if not body:
        return ""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise RoundError("invalid_json", "The body is not valid UTF-8 JSON.") from None
    reason = data.get("reason", "") if isinstance(data, dict) else ""
    if not isinstance(reason, str) or "\x00" in reason or len(reason) > VOID_REASON_MAX:
        raise RoundError(
            "invalid_reason", f"reason must be text of at most {VOID_REASON_MAX} characters, without NUL."
        )
    return reason


@dataclass(frozen=True, slots=True)
class SeatInput:
    seat: int
    jackpot_bet_cents: int
    cards: tuple[int, ...]
    codes: tuple[str, ...]
    changed_card: bool


@dataclass(frozen=True, slots=True)
class RoundInput:
    round_id: str
    at: datetime
    community: tuple[int, ...]
    community_codes: tuple[str, ...]
    dealer_codes: tuple[str, ...]
    seats: tuple[SeatInput, ...]
    digest: str


@dataclass(frozen=True, slots=True)
class BetRule:
    """What a table accepts as a jackpot bet: Caribbean Stud a fixed price, Jumbo 7 a range."""

    game: str
    fixed_cents: int | None
    min_cents: int
    max_cents: int
    seats: int


def _integer(value: object, field: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise RoundError("invalid_round", f"{field} must be an integer of at least {minimum}.")
    return value


def _bet_check(rule: BetRule, bet: int, where: str) -> None:
    if bet == 0:
        return
    if rule.fixed_cents is not None and bet != rule.fixed_cents:
        raise RoundError(
            "bad_jackpot_bet",
            f"{where}: the jackpot bet at this table is {rule.fixed_cents} cents or 0, not {bet}.",
        )
    if rule.fixed_cents is None and not rule.min_cents <= bet <= rule.max_cents:
        raise RoundError(
            "bad_jackpot_bet",
            f"{where}: a jackpot bet is 0 or {rule.min_cents} to {rule.max_cents} cents, not {bet}.",
        )


def request_digest(data: dict) -> str:
    return hashlib.sha256(orjson.dumps(data, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _card_list(data: dict, field: str) -> list:
    """An optional list of card codes: absent is empty, anything but a list (null included) is refused."""
    codes = data.get(field, [])
    if not isinstance(codes, list):
        raise RoundError("invalid_round", f"{field} must be a list of card codes.")
    return codes


def _round_id(data: dict, round_id: str | None) -> str:
    """The round's id: the URL's when it names one (a void), else the body's."""
    rid = data.get("round") if round_id is None else round_id
    if not isinstance(rid, str) or len(rid) > ROUND_ID_MAX or not ROUND_ID.fullmatch(rid):
        raise RoundError(
            "invalid_round",
            f"round must be 1 to {ROUND_ID_MAX} letters, digits or . _ : - (it is part of the void URL).",
        )
    return rid


def _seats_list(data: dict, rule: BetRule) -> list:
    seats_raw = data.get("seats")
    if not isinstance(seats_raw, list) or not seats_raw:
        raise RoundError("invalid_round", "seats must be a non-empty list.")
    if len(seats_raw) > rule.seats:
        raise RoundError("invalid_round", f"This table has {rule.seats} seats; {len(seats_raw)} were posted.")
    return seats_raw


def _dealer_parse(codes: list, game: Game) -> tuple[int, ...]:
    """The dealer's hand: none, or exactly a seat's number of cards."""
    dealer = cards_parse(codes, count=len(codes), where="dealer") if codes else ()
    if dealer and len(dealer) != CARDS_PER_SEAT[game]:
        raise CardError(
            "wrong_card_count", f"dealer: expected {CARDS_PER_SEAT[game]} cards, got {len(dealer)}."
        )
    return dealer


def _seat_parse(raw: object, index: int, rule: BetRule, game: Game, seen: set[int]) -> SeatInput:
    """The ``index``-th posted seat; ``seen`` holds the seat numbers before it (this one is added)."""
    if not isinstance(raw, dict):
        raise RoundError("invalid_round", f"seats[{index}] must be an object.")
    number = _integer(raw.get("seat"), f"seats[{index}].seat", minimum=1)
    if number > rule.seats:
        raise RoundError("invalid_round", f"seat {number}: this table's seats are 1 to {rule.seats}.")
    if number in seen:
        raise RoundError("duplicate_seat", f"seat {number} is posted twice.")
    seen.add(number)
    where = f"seat {number}"
    bet = _integer(raw.get("jackpot_bet", 0), f"{where}: jackpot_bet")
    _bet_check(rule, bet, where)
    changed = raw.get("changed_card", False)
    if not isinstance(changed, bool):
        raise RoundError("invalid_round", f"{where}: changed_card must be true or false.")
    if changed and game != Game.CARIBBEAN_STUD:
        raise RoundError("invalid_round", f"{where}: only Caribbean Stud lets a player change a card.")
    codes = raw.get("cards")
    cards = cards_parse(codes, count=CARDS_PER_SEAT[game], where=where)
    return SeatInput(number, bet, cards, tuple(codes), changed)


def round_parse(
    data: object, rule: BetRule, *, window: TimeWindow, round_id: str | None = None
) -> RoundInput:
    """Checks a posted round against the table's game and bet rule, and its ``at`` against ``window``
    (the same bounds as the machines' events). The first fault found is the one refused, in the order
    of the body: round, at, seats, community, dealer, each seat, then cards dealt twice."""
    if not isinstance(data, dict):
        raise RoundError("invalid_round", "The body must be a JSON object.")
    rid = _round_id(data, round_id)
    try:
        at = instant_parse(data.get("at"), window)
    except TimeRejected as rejection:
        raise RoundError(rejection.code, rejection.detail) from None
    seats_raw = _seats_list(data, rule)
    game = Game(rule.game)
    try:
        community_codes = _card_list(data, "community")
        community = cards_parse(community_codes, count=COMMUNITY_CARDS[game], where="community")
        dealer_codes = _card_list(data, "dealer")
        dealer = _dealer_parse(dealer_codes, game)
        seen: set[int] = set()
        seats = [_seat_parse(raw, index, rule, game, seen) for index, raw in enumerate(seats_raw)]
        hands = [("community", community), ("dealer", dealer)]
        cards_check_distinct(hands + [(f"seat {seat.seat}", seat.cards) for seat in seats])
    except CardError as error:
        raise RoundError(error.code, error.detail) from None
    return RoundInput(
        round_id=rid,
        at=at,
        community=community,
        community_codes=tuple(community_codes),
        dealer_codes=tuple(dealer_codes),
        seats=tuple(sorted(seats, key=lambda s: s.seat)),
        digest=request_digest(data),
    )
