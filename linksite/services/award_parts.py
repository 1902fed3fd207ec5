"""An award from the link, recorded for payment at this site's hits desk.

Each of the award's parts (only this site's) names the claim's round (``<table>:<round>``,
``wire.round_ref``) and seat and what it pays in the site's cents at the claim's rate. The parts are
recorded, in the transaction that keeps the award (so once: the award is kept once), as a prize of the
progressive's level with one part per seat (``tables.services.outside``): the desk verifies and pays
them as it pays the parts of a local shared prize. The money is the link's, so the local level's
amounts do not move.

A part this site cannot place (its round or seat is not here, the round is void, the seat already holds
a part, the part is malformed) is never dropped silently: the award is kept with its body, the parts that
can be placed are recorded, and the fault (each part left out, with its cents) is logged as an error and
put on the membership's ``last_error``, for staff to pay it by hand (the forwarder's next answered post
clears ``last_error``: the log's error and the award's body are the lasting record).

The claims the parts name are then no longer pending (``claims_awarded``): the signs hear it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from common.money import MC_PER_CENT
from jackpots.services.errors import EngineError
from linksite.models import LinkMembership, OutboxEntry, SiteAward
from linksite.services.acks import membership_error
from linksite.services.pending import pending_tell_on_commit
from tables.models import PayLine, PrizePart, Table, TableRound, TableSeat
from tables.rules import HAND_ORDER
from tables.services.outside import PartOwed, share_outside_record

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Placed:
    owed: list[PartOwed]
    faults: list[str]


def _whole(part: dict[str, Any], name: str) -> int | None:
    value = part.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _seat_find(membership: LinkMembership, ref: object, number: int) -> TableSeat | str:
    """The seat the part pays, or why it is not here."""
    if not isinstance(ref, str) or ":" not in ref:
        return f"round {ref!r} is not <table>:<round>"
    code, round_id = ref.split(":", 1)
    table = Table.objects.filter(code=code, progressive_id=membership.progressive_id).first()
    if table is None:
        return f"table {code} of this progressive is not here"
    round_ = TableRound.objects.filter(table=table, round_id=round_id).first()
    if round_ is None:
        return f"round {ref} is not here"
    if round_.state != TableRound.State.RECORDED:
        return f"round {ref} is {round_.state}"
    seat = TableSeat.objects.select_related("round__table__venue").filter(round=round_, seat=number).first()
    if seat is None:
        return f"round {ref} has no seat {number}"
    if PrizePart.objects.filter(seat=seat).exists():
        return f"round {ref} seat {number} already holds a prize part"
    return seat


def _parts_place(membership: LinkMembership, parts: list[Any]) -> _Placed:
    owed: list[PartOwed] = []
    faults: list[str] = []
    for part in parts:
        if not isinstance(part, dict):
            faults.append(f"part {part!r} is not an object")
            continue
        number, cents, amount_mc = (_whole(part, n) for n in ("seat", "site_cents", "amount_mc"))
        if number is None or cents is None or amount_mc is None:
            faults.append(f"part {part.get('number')!r} lacks its seat, site_cents or amount_mc")
            continue
        found = _seat_find(membership, part.get("round"), number)
        if not isinstance(found, str) and any(owed.seat.pk == found.pk for owed in owed):
            found = f"seat {number} of round {part.get('round')} is named twice"
        if isinstance(found, str):
            faults.append(f"part {part.get('number')!r} ({cents} cents): {found}")
            continue
        # Each part is whole cents of the pool's currency (the progressive's: the claim's rate converts it).
        owed.append(PartOwed(found, cents, amount_mc // MC_PER_CENT))
    return _Placed(owed, faults)


def _percent_hand(membership: LinkMembership) -> str:
    """The hand the progressive's percentage prize pays on (Jumbo 7: the 7-card straight flush)."""
    hands = set(
        PayLine.objects.filter(
            pay_table__progressive_id=membership.progressive_id, kind=PayLine.Kind.PERCENT
        ).values_list("hand", flat=True)
    )
    return next((hand for hand in HAND_ORDER if hand in hands), HAND_ORDER[0])


def _played_at(body: dict[str, Any], placed: _Placed) -> datetime:
    text = body.get("played_at")
    parsed = parse_datetime(text) if isinstance(text, str) else None
    if parsed is None or parsed.tzinfo is None:
        return min(owed.seat.round.at for owed in placed.owed)
    return parsed


def award_parts_record(award: SiteAward) -> int:
    """Records the award's parts for the desk (in the caller's transaction); the number recorded."""
    membership = award.membership
    body = award.body
    parts = body.get("parts", [])
    placed = _parts_place(membership, parts if isinstance(parts, list) else [parts])
    faults = list(placed.faults)
    recorded = 0
    if placed.owed:
        level_id = membership.progressive.pay_table.level_id
        try:
            with transaction.atomic():
                share_outside_record(
                    level_id,
                    hand=_percent_hand(membership),
                    at=_played_at(body, placed),
                    base_mc=_whole(body, "amount_mc") or 0,
                    parts=placed.owed,
                    reference=f"link award {award.link_award_id}",
                )
            recorded = len(placed.owed)
        except EngineError as error:  # the level is suspended or retired: no hit can be recorded on it
            cents = sum(owed.cents for owed in placed.owed)
            faults.append(f"{len(placed.owed)} parts ({cents} cents) not recorded: {error.message}")
    if faults:
        what = f"Award {award.link_award_id} not fully recorded for the desk; pay by hand: "
        fault = what + "; ".join(faults)
        log.error("link membership %s: %s", membership.pk, fault)
        membership_error(membership.pk, fault)
    return recorded


def claims_awarded(membership: LinkMembership, award: dict[str, Any]) -> None:
    """The claims the award's parts name (by their ``seq``) are no longer pending; the signs hear it. A
    part without a usable seq leaves its claim pending: staff see it, with the fault on the membership."""
    parts = award.get("parts")
    named = (
        _whole(part, "seq") for part in (parts if isinstance(parts, list) else []) if isinstance(part, dict)
    )
    claims = OutboxEntry.objects.filter(
        membership=membership,
        kind=OutboxEntry.Kind.CLAIM,
        seq__in={seq for seq in named if seq is not None},
        awarded_at__isnull=True,
    )
    if claims.update(awarded_at=timezone.now()):
        pending_tell_on_commit(membership.progressive_id)
