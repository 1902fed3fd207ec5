"""A percentage prize decided outside this installation (a wide-area link's pool): its parts paid at the
hits desk like the parts of a local shared prize, while the local level's amounts stay as they are.

The money is the link's, so nothing is taken from the local level: the prize's engine Hit is recorded
with the engine's FIXED award mode (``core.award`` moves nothing and writes no ledger row), as the tables
record a fixed prize at or above the two-person threshold (``rounds._fixed_hit_record``). It still goes
through ``levels_write`` under the level's lock, because the Hit takes the level's next hit number and
is announced like every other hit; no level amount is written. The ``PrizeShare`` and ``PrizePart`` rows
are then what the desk already lists, verifies and pays (``parts.part_verify``, ``parts.part_pay``; the
Hit is paid once every part is, ``parts.share_hit_settle``).

Each seat takes part in the prize as in a local one (its ``share``, and its ``share_cents`` the part in
cents of the progressive's currency, weighted by them), so the reports and the audit's check that a
prize's parts add up to it (``tables.audit``) hold for it too. Every part waits for the desk (never paid at
the table: the table's answer for the round never told it to pay), verified by one person under its
venue's two-person threshold, by two at or above it. A round voided afterwards voids its parts as it
voids a local prize's (``voids``): a void hand pays nothing here; the link is not told.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.utils import timezone

from jackpots.currency import convert_cents
from jackpots.models import HitKind
from jackpots.services import core
from jackpots.services.hit_recording import award_record_locked
from jackpots.services.level_write import Locked, Written, levels_write
from tables.models import PrizePart, PrizeShare, TableSeat


@dataclass(frozen=True)
class PartOwed:
    """A seat's part as decided elsewhere: ``cents`` in its round's venue currency (what is paid),
    ``pool_cents`` in the progressive's."""

    seat: TableSeat
    cents: int
    pool_cents: int


def share_outside_record(
    level_id: int,
    *,
    hand: str,
    at: datetime,
    base_mc: int,
    parts: list[PartOwed],
    reference: str,
) -> PrizeShare:
    """The prize (one engine Hit of the parts' ``pool_cents``, that moves nothing on the level) and one
    open part per seat at the amount it was decided. ``at``: when the prize was played; it is closed
    (nothing joins a prize decided elsewhere, and no later local round finds it open), so the desk may
    pay it at once."""
    if not parts:
        raise ValueError("a prize decided elsewhere needs at least one part")
    venue = parts[0].seat.round.table.venue
    prize_cents = sum(owed.pool_cents for owed in parts)

    def step(locked: Locked) -> Written[PrizeShare]:
        level = locked.levels[level_id]
        recorded = award_record_locked(
            level,
            locked.state(level_id),
            at=at,
            kind=HitKind.TABLE,
            mode=core.AwardMode.FIXED,
            value=prize_cents,
            reference=reference,
            venue=venue,
        )
        share = PrizeShare.objects.create(
            level=level,
            hand=hand,
            hit=recorded.hits[0],
            opened_at=at,
            closes_at=min(at, timezone.now()),
            percent=Decimal(100),
            base_mc=base_mc,
            prize_cents=prize_cents,
        )
        for owed in parts:
            _seat_join(owed, share)
        PrizePart.objects.bulk_create(
            PrizePart(share=share, seat=owed.seat, currency=owed.seat.round.currency, amount_cents=owed.cents)
            for owed in parts
        )
        # No state: FIXED leaves the level as it stands (no amount saved, no ledger row).
        return Written(hits=recorded.hits, result=share)

    return levels_write([level_id], step).returned()


def _seat_join(owed: PartOwed, share: PrizeShare) -> None:
    """The seat's place in the prize, as a local division leaves it (``rounds.shares_resplit``)."""
    seat = owed.seat
    seat.share, seat.share_weight, seat.share_cents = share, owed.pool_cents, owed.pool_cents
    seat.award_cents = convert_cents(seat.share_cents + seat.fixed_cents, Decimal(seat.round.rate))
    seat.save(update_fields=["share", "share_weight", "share_cents", "award_cents"])
