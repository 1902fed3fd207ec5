"""Lean, hand-written validation of posted events.

An events request carries up to 1000 events and the API must accept tens of thousands a second, so each
event is checked with plain type tests and dictionary look-ups, not a serializer per event. The checks run
in a fixed order (who may post, then what was posted) so a client always gets the same code for the same
mistake.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeGuard

import orjson
from django.conf import settings

from common.times import TimeRejected, TimeWindow, instant_parse
from slots.models import MachineEvent
from slots.services.errors import EVENT_ERRORS, RequestRefused
from slots.services.vocabulary import (
    BIGINT_MAX,
    EVENT_TYPES,
    MAX_EVENTS_PER_REQUEST,
    METER_NAMES,
    STATUS_FLAGS,
)

_CORE_FIELDS = ("machine", "seq", "type", "at")
_IN_SERVICE_STATES = frozenset({"in_service", "offline"})
# The types the engine applies: stored pending. Plain ints, read once per event.
_PENDING_TYPES = frozenset({int(MachineEvent.Type.GAME), int(MachineEvent.Type.JACKPOT)})


@dataclass(slots=True, frozen=True)
class KeyRow:
    """The credential a principal was read from: its table and row, which the request's write checks is
    still active (slots.services.auth)."""

    table: str
    id: int


@dataclass(slots=True, frozen=True)
class Principal:
    """Who is posting: a machine key (``machine_id``) or a venue's gateway key (``venue_id``). ``key`` is
    the credential's row; None for a caller inside the process, which has no key to check."""

    machine_id: int | None = None
    venue_id: int | None = None
    key: KeyRow | None = None

    def may_post_for(self, machine: MachineInfo) -> bool:
        if self.machine_id is not None:
            return machine.id == self.machine_id
        return machine.venue_id == self.venue_id


@dataclass(slots=True)
class MachineInfo:
    """What validation and storage need of a machine, read once per batch."""

    id: int
    asset_number: str
    venue_id: int
    bank_id: int | None
    denomination_cents: int
    min_bet_cents: int
    max_bet_cents: int
    meter_digits: int
    status: str


@dataclass(slots=True)
class ParsedEvent:
    index: int
    machine: MachineInfo
    seq: int
    type: int
    at: datetime
    payload: dict[str, Any]
    # (machine id, seq): the unique key, read a few times an event by dedupe and storage, so made once.
    key: tuple[int, int]
    payload_json: bytes = b"{}"
    digest: str = ""
    wager: int | None = None
    win: int | None = None
    level: int | None = None
    amount: int | None = None
    meters: dict[str, int] = field(default_factory=dict)
    status: str | None = None
    stored_id: int | None = None

    @property
    def pending(self) -> bool:
        return self.type in _PENDING_TYPES


@dataclass(slots=True, frozen=True)
class EventLimits:
    """The settings' bounds on amounts, read once per batch: a setting read through Django's lazy
    settings object costs more than the check it serves (3% of an event post, py-spy)."""

    win_max_cents: int
    win_max_multiple: int
    jackpot_max_cents: int


def event_limits() -> EventLimits:
    return EventLimits(
        win_max_cents=settings.GAME_WIN_MAX_CENTS,
        win_max_multiple=settings.GAME_WIN_MAX_MULTIPLE,
        jackpot_max_cents=settings.JACKPOT_MAX_CENTS,
    )


class EventRejected(Exception):
    def __init__(self, code: str, detail: str | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.detail = detail or EVENT_ERRORS[code]


def events_decode(body: bytes) -> list[Any]:
    """The ``events`` list of a request body, or RequestRefused (400) naming what is wrong."""
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise RequestRefused(400, "invalid_json") from None
    if not isinstance(document, dict) or not isinstance(document.get("events"), list):
        raise RequestRefused(400, "invalid_body")
    events: list[Any] = document["events"]
    if len(events) > MAX_EVENTS_PER_REQUEST:
        raise RequestRefused(
            400, "too_many_events", f"A request carries at most 1000 events; this one has {len(events)}."
        )
    return events


def _is_int(value: object) -> TypeGuard[int]:
    # JSON true/false decode to bool, a subclass of int: they are not numbers here.
    return type(value) is int


def event_parse(
    index: int,
    raw: object,
    *,
    machines: dict[str, MachineInfo],
    principal: Principal,
    window: TimeWindow,
    limits: EventLimits,
) -> ParsedEvent:
    """One posted event checked against its machine, or EventRejected with the first problem found."""
    if not isinstance(raw, dict):
        raise EventRejected("invalid_event")
    asset = raw.get("machine")
    machine = machines.get(asset) if isinstance(asset, str) else None
    if machine is None:
        raise EventRejected("unknown_machine", f"No machine has the asset number {asset!r}.")
    if not principal.may_post_for(machine):
        raise EventRejected("forbidden_machine", f"This key may not post events for {machine.asset_number}.")
    if machine.status not in _IN_SERVICE_STATES:
        raise EventRejected("machine_not_in_service", f"{machine.asset_number} is out of service.")
    seq = raw.get("seq")
    if not _is_int(seq) or not 0 < seq <= BIGINT_MAX:
        raise EventRejected("invalid_seq")
    type_name = raw.get("type")
    # Only a string can name a type: an object or a list is unhashable and would raise in the look-up.
    type_code = EVENT_TYPES.get(type_name) if isinstance(type_name, str) else None
    if type_code is None:
        raise EventRejected("unknown_type")
    try:
        at = instant_parse(raw.get("at"), window)
    except TimeRejected as rejection:
        raise EventRejected(rejection.code, rejection.detail) from None
    payload = {name: value for name, value in raw.items() if name not in _CORE_FIELDS}
    payload_json = orjson.dumps(payload)
    # PostgreSQL text and jsonb cannot hold NUL; the cheap byte test spares the walk for normal events.
    if b"\\u0000" in payload_json and _has_nul(payload):
        raise EventRejected("invalid_event", "Text in an event may not contain NUL characters.")
    event = ParsedEvent(
        index=index,
        machine=machine,
        seq=seq,
        type=type_code,
        at=at,
        payload=payload,
        key=(machine.id, seq),
        payload_json=payload_json,
    )
    _PAYLOAD_PARSERS[type_code](event, raw, limits)
    event.digest = _event_digest(event)
    return event


def _has_nul(value: object) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(key) or _has_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_has_nul(item) for item in value)
    return False


def _game_parse(event: ParsedEvent, raw: dict[str, Any], limits: EventLimits) -> None:
    wager, win = raw.get("wager"), raw.get("win")
    if not _is_int(wager) or wager <= 0:
        raise EventRejected("invalid_wager")
    machine = event.machine
    if not machine.min_bet_cents <= wager <= machine.max_bet_cents:
        raise EventRejected(
            "wager_out_of_range",
            f"A wager of {wager} cents is outside {machine.asset_number}'s bets "
            f"({machine.min_bet_cents} to {machine.max_bet_cents} cents).",
        )
    if not _is_int(win) or win < 0:
        raise EventRejected("invalid_win")
    cap = limits.win_max_cents
    if win > cap:
        raise EventRejected(
            "win_out_of_range", f"A win of {win} cents is more than the largest win accepted, {cap} cents."
        )
    if win > wager * limits.win_max_multiple:
        raise EventRejected(
            "win_out_of_range",
            f"A win of {win} cents is more than {limits.win_max_multiple} times the wager of {wager} cents.",
        )
    event.wager, event.win = wager, win


def _meters_parse(event: ParsedEvent, raw: dict[str, Any], limits: EventLimits) -> None:
    meters = raw.get("meters")
    if not isinstance(meters, dict) or not meters:
        raise EventRejected("invalid_meters")
    modulus = min(10**event.machine.meter_digits, BIGINT_MAX + 1)
    for name, value in meters.items():
        if name not in METER_NAMES:
            raise EventRejected("unknown_meter", f"{name!r} is not a known meter.")
        if not _is_int(value) or not 0 <= value < modulus:
            raise EventRejected(
                "invalid_meter",
                f"Meter {name} must be an integer from 0 to {modulus - 1}, not {value!r}.",
            )
    event.meters = meters


def _jackpot_parse(event: ParsedEvent, raw: dict[str, Any], limits: EventLimits) -> None:
    level, amount = raw.get("level"), raw.get("amount")
    if not _is_int(level) or not 0 < level <= BIGINT_MAX:
        raise EventRejected("invalid_level")
    if not _is_int(amount) or amount <= 0:
        raise EventRejected("invalid_amount")
    cap = limits.jackpot_max_cents
    if amount > cap:
        raise EventRejected(
            "amount_out_of_range", f"A jackpot of {amount} cents is more than the {cap} cents accepted."
        )
    event.level, event.amount = level, amount
    _payer_parse(raw, cap)


def _payer_parse(raw: dict[str, Any], cap: int) -> None:
    """Who paid (optional): "machine" with the cents it credited itself (``paid_amount``, at least a cent,
    at most the jackpot cap), or "attendant" (a handpay lockup) with no ``paid_amount``."""
    paid, paid_amount = raw.get("paid"), raw.get("paid_amount")
    if paid is None and paid_amount is None:
        return
    if paid == "machine":
        if not _is_int(paid_amount) or not 0 < paid_amount <= cap:
            raise EventRejected(
                "invalid_paid",
                f"A jackpot paid by the machine needs `paid_amount`, the cents it paid: 1 to {cap}.",
            )
        return
    if paid == "attendant" and paid_amount is None:
        return
    raise EventRejected("invalid_paid")


def _status_parse(event: ParsedEvent, raw: dict[str, Any], limits: EventLimits) -> None:
    status = raw.get("status")
    if not isinstance(status, str) or status not in STATUS_FLAGS:
        raise EventRejected("unknown_status", f"{status!r} is not a known status.")
    event.status = status


_PAYLOAD_PARSERS: dict[int, Callable[[ParsedEvent, dict[str, Any], EventLimits], None]] = {
    MachineEvent.Type.GAME: _game_parse,
    MachineEvent.Type.METERS: _meters_parse,
    MachineEvent.Type.JACKPOT: _jackpot_parse,
    MachineEvent.Type.STATUS: _status_parse,
}


def _event_digest(event: ParsedEvent) -> str:
    """SHA-1 of the event's meaning: a retry that spells the same instant or meters differently matches.

    The instant enters as its UTC isoformat text; orjson writes an aware datetime as exactly that text
    (microseconds only when there are some, "+00:00"), without the Python call (0.8 of 2 µs an event).
    Stored digests are compared with retries', so these bytes never change (tests/slots/test_parsing.py).
    """
    at = event.at if event.at.tzinfo is UTC else event.at.astimezone(UTC)
    if event.type == MachineEvent.Type.GAME:
        content: tuple[object, ...] = (event.type, at, event.wager, event.win)
    elif event.type == MachineEvent.Type.METERS:
        content = (event.type, at, sorted(event.meters.items()))
    elif event.type == MachineEvent.Type.JACKPOT:
        content = (event.type, at, event.level, event.amount)
        # Who paid is part of the report's meaning; a report without it keeps its earlier digest.
        if "paid" in event.payload:
            content += (event.payload["paid"], event.payload.get("paid_amount"))
    else:
        content = (event.type, at, event.status)
    return hashlib.sha1(orjson.dumps(content), usedforsecurity=False).hexdigest()
