"""Voiding table rounds and table prizes.

A round's void: the prize it held alone is voided (``prize_void_locked``), a prize other rounds share is
divided again among them, its seats' fixed prizes that wait for the floor are voided
(``fixed_prize_void_locked``), and its bets come back out with a negative contribution, so ``jackpots_audit``
stays clean. A prize's void, from a round's void or from the hits queue (``table_hit_void``), is one path:
the engine's ``hit_void`` restores the level with its compensating ledger row, and the prize is voided
everywhere else: the shared-prize record, every seat's part and every round's stored answer (what a retry
answers). Its rounds stay recorded and voidable: a later void of one refunds its bets and divides nothing.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from floor.models import SignificantEvent
from floor.services.significant import significant_event_record
from jackpots.currency import convert_cents
from jackpots.models import Hit, HitKind, LedgerEntry, Level
from jackpots.services import core
from jackpots.services.errors import EngineError
from jackpots.services.hit_voids import hit_void, hits_took_from_level
from jackpots.services.level_write import Locked, Written, levels_write
from jackpots.services.levels import ledger_entry, levels_lock
from tables.models import PrizePart, PrizeShare, Table, TableRound, TableSeat
from tables.round_input import RoundError
from tables.services.parts import parts_void, share_floor_paid_refuse
from tables.services.rounds import round_answer, round_reference, shares_resplit


def _contributions_reverse(
    params: core.Params, state: core.State, round_: TableRound
) -> tuple[core.State, core.Movement]:
    """Takes the round's bets back out of the level by the carry rule: afterwards, what was added since
    the cycle started is again floor(wagered x rate) of the bets that remain. Recorded as a negative
    contribution so the audit's replay of the carry holds."""
    wagered = round_.wagered_pool_cents
    carry = state.carry_wagered_cents - wagered
    added = state.carry_added_mc - core.share_mc(carry, params.rate)
    reserved = state.carry_reserved_mc - core.share_mc(carry, params.reserve_rate)
    from_overflow = min(state.overflow_mc, added)
    new = dataclasses.replace(
        state,
        current_mc=state.current_mc - (added - from_overflow),
        reserve_mc=state.reserve_mc - reserved,
        overflow_mc=state.overflow_mc - from_overflow,
        wagered_cents=state.wagered_cents - wagered,
        seq=state.seq + 1,
        carry_wagered_cents=carry,
        carry_added_mc=state.carry_added_mc - added,
        carry_reserved_mc=state.carry_reserved_mc - reserved,
    )
    return new, core.Movement(
        current_delta_mc=-(added - from_overflow),
        reserve_delta_mc=-reserved,
        overflow_delta_mc=-from_overflow,
        contributed_mc=-(added + reserved),
        wagered_cents=-wagered,
    )


def round_void(table: Table, round_id: str, *, reason: str, user=None) -> dict:
    """Voids a round: its prizes (the engine's hit void, or a new division when other rounds share the
    prize), its contributions (a compensating ledger row), and its bets are refunded. Voiding a voided
    round answers the same again."""
    reason = (reason or "").strip() or "Round declared void at the table."
    level_id = table.progressive.pay_table.level_id
    voiding = _Voiding(table, round_id, reason, user, level_id)
    return levels_write([level_id], voiding.step).result


@dataclass(frozen=True)
class _Voiding:
    """A round's void; ``step`` is its level write."""

    table: Table
    round_id: str
    reason: str
    user: object
    level_id: int

    def step(self, locked: Locked) -> Written[dict]:
        level = locked.levels[self.level_id]
        round_ = (
            TableRound.objects.select_for_update().filter(table=self.table, round_id=self.round_id).first()
        )
        if round_ is None:
            raise RoundError(
                "round_not_found", f"Table {self.table.code} has no round {self.round_id}.", status=404
            )
        if round_.state == TableRound.State.VOIDED:
            return Written(result=_void_answer(round_))
        if level.state == Level.State.RETIRED:  # its money moved away: nothing comes back to it
            raise RoundError(
                "level_retired", f"The progressive of table {self.table.code} is retired.", status=409
            )
        if self.user is None and _carries_floor_prize(round_):
            raise RoundError(
                "void_needs_person",
                f"Round {self.round_id} carries a prize at or above the two-person threshold: only people "
                "in the workspace can void it, with a reason.",
                status=409,
            )
        later = Hit.objects.filter(level=level, number__gt=round_.hit_number).exclude(state=Hit.State.VOIDED)
        if hits_took_from_level(later):  # a later fixed prize never counted this round's bets
            raise RoundError(
                "later_hit",
                "A later prize on this progressive counted this round's bets: void that round first.",
                status=409,
            )
        now = timezone.now()
        shares = list(
            PrizeShare.objects.filter(seats__round=round_, voided=False).distinct().order_by("-hit__number")
        )
        round_.state = TableRound.State.VOIDED
        round_.voided_at, round_.voided_by, round_.void_reason = now, self.user, self.reason
        round_.save(update_fields=["state", "voided_at", "voided_by", "void_reason"])
        significant_event_record(
            SignificantEvent.Kind.VOID,
            venue=self.table.venue_id,
            at=now,
            subject=self.table.code,
            level_id=self.level_id,
            user=self.user,
            detail=f"Round {self.round_id} voided: {self.reason}",
            reference=self.reference,
        )
        kept = self._prizes_void(round_, shares)
        level.refresh_from_db()  # the prizes' voids wrote the level
        state = locked.state(level.id)
        entries = []
        if round_.wagered_pool_cents:
            params = locked.params(level.id)
            state, entry = self._bets_reverse(level, round_, params=params, state=state, kept=kept, at=now)
            entries.append(entry)
        return Written({level.id: state}, entries, result=_void_answer(round_))

    @property
    def reference(self) -> str:
        return round_reference(self.table, self.round_id)

    def _prizes_void(self, round_: TableRound, shares: list[PrizeShare]) -> bool:
        """Voids the round's fixed prizes waiting for the floor and the prizes it held alone, divides again
        the prizes it shares; returns whether it shares one."""
        fixed = round_.seat_rows.filter(fixed_hit__isnull=False).exclude(fixed_hit__state=Hit.State.VOIDED)
        reason = f"{self.reference}: {self.reason}"
        kept = False
        try:
            for seat in fixed.select_related("fixed_hit", "round"):
                fixed_prize_void_locked(seat, self.user, reason)
            for share in shares:
                share_floor_paid_refuse(share)
                if share.seats.filter(round__state=TableRound.State.RECORDED).exists():
                    shares_resplit(share, {})
                    kept = True
                    continue
                prize_void_locked(share, self.user, reason)
        except EngineError as error:
            raise RoundError(error.code, error.message, status=409) from None
        return kept

    def _bets_reverse(
        self,
        level: Level,
        round_: TableRound,
        *,
        params: core.Params,
        state: core.State,
        kept: bool,
        at: datetime,
    ) -> tuple[core.State, LedgerEntry]:
        """The round's bets out of the level: its new state and the (negative) contribution row."""
        if state.cycle != round_.cycle or state.carry_wagered_cents < round_.wagered_pool_cents:
            if kept:  # this round's prize reset the level and other rounds still share it
                raise RoundError(
                    "shared_award",
                    "Rounds at other tables share the prize this round won: void them first.",
                    status=409,
                )
            # The carry base restarted since (a suspended level's parameters changed).
            raise RoundError(
                "carry_restarted",
                "The level's parameters changed since this round: its bets can no longer be taken back.",
                status=409,
            )
        state, movement = _contributions_reverse(params, state, round_)
        # A negative contribution: the audit replays it with the carry rule like any other.
        kind = LedgerEntry.Kind.CONTRIBUTION
        return state, ledger_entry(
            level, kind, movement, state, at=at, params=params, reference=self.reference
        )


def _carries_floor_prize(round_: TableRound) -> bool:
    """Whether the round holds a prize at or above its venue's two-person threshold still standing: a part
    the floor pays, or a fixed prize waiting for two people (issue 21, finding 9: a table key voided a round
    carrying a €9,498.78 jackpot with no person named)."""
    threshold = round_.table.venue.handpay_threshold_cents
    seats = round_.seat_rows.all()
    big_part = PrizePart.objects.filter(seat__in=seats, amount_cents__gte=threshold).exclude(
        state=PrizePart.State.VOIDED
    )
    fixed = seats.filter(fixed_hit__isnull=False).exclude(fixed_hit__state=Hit.State.VOIDED)
    return big_part.exists() or fixed.exists()


def prize_void_locked(share: PrizeShare, user, reason: str) -> Hit:
    """Voids a table prize everywhere; the caller holds the level's lock. The engine refuses (EngineError)
    a hit the floor has paid or one a later hit depends on, and then nothing changes."""
    share_floor_paid_refuse(share)
    hit = hit_void(share.hit, user, reason)
    parts_void(list(share.prize_parts.all()))
    share.voided = True
    share.save(update_fields=["voided"])
    seats = list(share.seats.select_related("round__table"))
    for seat in seats:
        seat.share_cents = 0
        seat.award_cents = convert_cents(seat.fixed_cents, Decimal(seat.round.rate))
        seat.save(update_fields=["share_cents", "award_cents"])
    for round_ in {seat.round_id: seat.round for seat in seats}.values():
        round_.response = round_answer(round_)
        round_.save(update_fields=["response"])
    return hit


def fixed_prize_void_locked(seat: TableSeat, user, reason: str) -> Hit:
    """Voids a seat's fixed prize at or above the threshold (its own hit, which moved nothing on the level):
    the seat's prize and its round's stored answer; the caller holds the level's lock."""
    hit = hit_void(seat.fixed_hit, user, reason)
    seat.fixed_cents = 0
    seat.award_cents = convert_cents(seat.share_cents, Decimal(seat.round.rate))
    seat.save(update_fields=["fixed_cents", "award_cents"])
    seat.round.response = round_answer(seat.round)
    seat.round.save(update_fields=["response"])
    return hit


def table_hit_void(hit: Hit, user, reason: str) -> Hit:
    """The hits queue's void of a table hit: its prize is voided everywhere, as a round's void does."""
    with transaction.atomic():
        levels_lock([hit.level_id])
        share = PrizeShare.objects.select_for_update().filter(hit=hit).first()
        seat = TableSeat.objects.select_for_update().select_related("round").filter(fixed_hit=hit).first()
        if hit.kind == HitKind.TABLE and share is not None:
            floor_part = share.prize_parts.filter(state__in=[PrizePart.State.OPEN, PrizePart.State.VERIFIED])
            if floor_part.exists():  # two people void a part the floor pays, on the desk
                raise EngineError(
                    "void_the_parts",
                    _("%(hit)s is a shared prize: void a winner's part on its own row of the hits desk.")
                    % {"hit": hit.ref},
                )
            return prize_void_locked(share, user, reason)
        if hit.kind == HitKind.TABLE and seat is not None:
            return fixed_prize_void_locked(seat, user, reason)
        return hit_void(hit, user, reason)


def _void_answer(round_: TableRound) -> dict:
    return {
        "round": round_.round_id,
        "table": round_.table.code,
        "state": round_.state,
        "currency": round_.currency,
        "refunds": [
            {"seat": seat.seat, "jackpot_bet": seat.jackpot_bet_cents}
            for seat in round_.seat_rows.order_by("seat")
        ],
        "reason": round_.void_reason,
    }
