"""A site's batch of entries (``POST /api/v1/link/entries``, docs/wide-area.md "Up"), checked before
anything is written: the one parser of the link's API.

Every problem raises ``LinkRefused`` 400 ``invalid_body`` naming the field, so a bad batch changes nothing.
Fields are strict: a field the entry's kind does not have is refused rather than ignored, because the
link keeps the entry as sent and its digest is its identity.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, TypeGuard

import orjson

from common.times import TimeRejected, TimeWindow, instant_parse
from linkcentral.errors import LinkRefused, invalid_body
from linkcentral.models import LinkEntry

ENTRIES_MAX = 500
ROUND_MAX = 64
POOL_CODE_MAX = 32
SEQ_MAX = 2**63 - 1
# A round's Jumbo 7 bets: far above any table's, far below where cents * a rate's denominator matters.
WAGERED_MAX_CENTS = 10**12
SEATS_MAX = 99
RATE_PLACES = 8
# The rate as the model stores it (18 digits, 8 of them decimals): a plain decimal string, no exponent.
_RATE = re.compile(r"\d{1,10}(?:\.\d{1,8})?")
_RATE_QUANTUM = Decimal(1).scaleb(-RATE_PLACES)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

_BATCH_FIELDS = frozenset({"pool", "through", "entries", "books"})
_BOOKS_FIELDS = frozenset({"seq", "wagered_cents"})
# A site's bets over its whole life: far above any casino's, inside PostgreSQL's bigint.
BOOKS_MAX_CENTS = 2**62
_SEAT_FIELDS = frozenset({"seat", "bet_cents"})
_COMMON_FIELDS = frozenset({"seq", "kind", "round", "played_at", "currency", "rate"})
_KIND_FIELDS: dict[str, frozenset[str]] = {
    LinkEntry.Kind.CONTRIBUTION: _COMMON_FIELDS | {"wagered_cents"},
    LinkEntry.Kind.CLAIM: _COMMON_FIELDS | {"bets", "seats"},
}
_TIME_SENTENCES = {
    "invalid_at": "must be an RFC 3339 date-time with an offset within ±14:00.",
    "at_too_old": "is older than the link accepts (EVENT_MAX_AGE_SECONDS).",
    "at_in_future": "is further ahead than the link accepts (EVENT_MAX_FUTURE_SECONDS).",
}


@dataclass(frozen=True, slots=True)
class EntryInput:
    seq: int
    kind: str
    round_ref: str
    played_at: datetime
    currency: str
    rate: Decimal
    wagered_cents: int
    bets: int
    seats: tuple[tuple[int, int], ...]  # a claim: (seat, bet in the site's cents), one per bet
    digest: str


@dataclass(frozen=True, slots=True)
class SiteBooksInput:
    """The site's own books: through its entry ``seq``, its contributions' bets total ``wagered_cents``
    of its currency (what the reconciliation compares with the link's books of the same entries)."""

    seq: int
    wagered_cents: int


@dataclass(frozen=True, slots=True)
class BatchInput:
    pool: str
    through: datetime
    entries: tuple[EntryInput, ...]
    books: SiteBooksInput | None = None


def _is_int(value: object) -> TypeGuard[int]:
    # JSON true/false decode to bool, a subclass of int: they are not numbers here.
    return type(value) is int


def _integer(value: object, field: str, low: int, high: int) -> int:
    if not _is_int(value) or not low <= value <= high:
        raise invalid_body(field, f"must be an integer from {low} to {high}.")
    return value


def _text(value: object, field: str, longest: int) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= longest or _CONTROL.search(value):
        raise invalid_body(field, f"must be text of 1 to {longest} characters, without control characters.")
    return value


def _instant(value: object, field: str, window: TimeWindow) -> datetime:
    try:
        return instant_parse(value, window)
    except TimeRejected as rejection:
        raise invalid_body(field, _TIME_SENTENCES[rejection.code]) from None


def _fields_check(raw: dict[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise invalid_body(f"{where}{unknown[0]}", "is not a field of this object.")


def batch_pool(data: object) -> str:
    """The batch's pool code, read first: who the site is in it decides the rest (its currency)."""
    if not isinstance(data, dict):
        raise LinkRefused(400, "invalid_body", "The body must be a JSON object.", field="")
    return _text(data.get("pool"), "pool", POOL_CODE_MAX)


def rate_parse(value: object, field: str, *, one: bool) -> Decimal:
    """The site's rate: a decimal string above 0 with at most 8 decimals (``one``: the site's currency is
    the pool's, so its rate is 1)."""
    if not isinstance(value, str) or not _RATE.fullmatch(value):
        raise invalid_body(field, f"must be a decimal string with at most {RATE_PLACES} decimals.")
    rate = Decimal(value)
    if rate <= 0:
        raise invalid_body(field, "must be above 0.")
    if one and rate != 1:
        raise invalid_body(field, "must be 1: the site's currency is the pool's.")
    return rate.quantize(_RATE_QUANTUM)


def _seat(raw: object, where: str) -> tuple[int, int]:
    """One bet of a claim, ``{"seat": n, "bet_cents": c}``: its seat and its Jumbo 7 bet in the site's
    cents (at least a cent: a seat that bet nothing has no part)."""
    if not isinstance(raw, dict):
        raise invalid_body(where.rstrip("."), 'must be an object {"seat", "bet_cents"}.')
    _fields_check(raw, _SEAT_FIELDS, where)
    seat = _integer(raw.get("seat"), f"{where}seat", 1, SEATS_MAX)
    return seat, _integer(raw.get("bet_cents"), f"{where}bet_cents", 1, WAGERED_MAX_CENTS)


def _seats(raw: dict[str, Any], where: str, bets: int) -> tuple[tuple[int, int], ...]:
    """A claim's bets, each with its seat and bet (the weights its prize is divided by), in its order."""
    seats = raw.get("seats")
    if not isinstance(seats, list) or len(seats) != bets:
        raise invalid_body(f"{where}seats", "must list each bet's seat and bet_cents (as many as bets).")
    parsed: list[tuple[int, int]] = []
    named: set[int] = set()
    for i, seat in enumerate(seats):
        parsed.append(_seat(seat, f"{where}seats[{i}]."))
        if parsed[-1][0] in named:
            raise invalid_body(f"{where}seats[{i}].seat", "names a seat already named: each seat bets once.")
        named.add(parsed[-1][0])
    return tuple(parsed)


def entry_parse(index: int, raw: object, *, currency: str, one: bool, window: TimeWindow) -> EntryInput:
    """The ``index``-th entry, in the order of its fields in docs/wide-area.md; ``currency``: the site's."""
    where = f"entries[{index}]."
    if not isinstance(raw, dict):
        raise invalid_body(f"entries[{index}]", "must be an object.")
    seq = _integer(raw.get("seq"), f"{where}seq", 1, SEQ_MAX)
    kind = raw.get("kind")
    # A list or an object is unhashable: the membership test alone would raise, not refuse.
    if not isinstance(kind, str) or kind not in _KIND_FIELDS:
        raise invalid_body(f"{where}kind", 'must be "contribution" or "claim".')
    _fields_check(raw, _KIND_FIELDS[kind], where)
    round_ref = _text(raw.get("round"), f"{where}round", ROUND_MAX)
    played_at = _instant(raw.get("played_at"), f"{where}played_at", window)
    if raw.get("currency") != currency:
        raise invalid_body(f"{where}currency", f"must be the site's currency, {currency}.")
    rate = rate_parse(raw.get("rate"), f"{where}rate", one=one)
    wagered, bets, seats = 0, 0, tuple[tuple[int, int], ...]()
    if kind == LinkEntry.Kind.CONTRIBUTION:
        wagered = _integer(raw.get("wagered_cents"), f"{where}wagered_cents", 0, WAGERED_MAX_CENTS)
    else:
        bets = _integer(raw.get("bets"), f"{where}bets", 1, SEATS_MAX)
        seats = _seats(raw, where, bets)
    fields = (seq, str(kind), round_ref, played_at.astimezone(UTC), currency, rate, wagered, bets, seats)
    return EntryInput(*fields, digest=entry_digest(*fields))


def entry_digest(*fields: object) -> str:
    """The entry's identity beside its seq: the same entry sent again has the same digest however its
    JSON was written (field order, the rate's trailing zeros, the instant's offset)."""
    canonical = [
        f.isoformat() if isinstance(f, datetime) else str(f) if isinstance(f, Decimal) else f for f in fields
    ]
    return hashlib.sha256(orjson.dumps(canonical)).hexdigest()


def batch_parse(data: dict[str, Any], *, currency: str, pool_currency: str, window: TimeWindow) -> BatchInput:
    """The whole batch, checked against the site's ``currency`` and the server's time ``window``; the first
    fault found is the one refused, in the order of the body."""
    _fields_check(data, _BATCH_FIELDS, "")
    pool = batch_pool(data)
    through = _instant(data.get("through"), "through", window)
    raw_entries = data.get("entries")
    if not isinstance(raw_entries, list) or len(raw_entries) > ENTRIES_MAX:
        raise invalid_body("entries", f"must be a list of at most {ENTRIES_MAX} entries.")
    one = currency == pool_currency
    entries = tuple(
        entry_parse(i, raw, currency=currency, one=one, window=window) for i, raw in enumerate(raw_entries)
    )
    return BatchInput(pool, through, entries, _books(data.get("books"), "books" in data))


def _books(raw: object, given: bool) -> SiteBooksInput | None:
    """The optional ``books`` (older sites send none)."""
    if not given:
        return None
    if not isinstance(raw, dict):
        raise invalid_body("books", 'must be an object {"seq", "wagered_cents"}.')
    _fields_check(raw, _BOOKS_FIELDS, "books.")
    return SiteBooksInput(
        _integer(raw.get("seq"), "books.seq", 0, SEQ_MAX),
        _integer(raw.get("wagered_cents"), "books.wagered_cents", 0, BOOKS_MAX_CENTS),
    )
