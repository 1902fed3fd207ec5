"""Recording a hit: a machine's jackpot report, a mystery trigger, a table's award, an attendant's report.

A hit is recorded under the level's row lock, so near-simultaneous hits on a level are ordered (``number``)
and each takes the amount standing when its turn comes (rule 7). Every step records who and when (rule 8).

A machine's jackpot report is a hit only if the machine could win the level with the game that triggered
it: the machine's last game before the report in its seq order (the game event with the highest seq below
the report's, other event types skipped). That game must exist, reach the level's minimum wager and, on a
max-bet-only level, be a max bet; the machine must be an enabled member in service and the level a live,
machine-triggered one. Otherwise the report is refused (``machine_report_refusal``): a ``HitRefusal`` with
its code and a ``jackpot_refused`` alert for the floor, nothing paid. The engine decides it when it applies
the report, so the API answers ``accepted`` (the report is stored) and the refusal is on record.

Verifying and paying a hit: ``hit_payment``; voiding one: ``hit_voids``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db.models import Max, Q
from django.utils import timezone

from floor.models import Venue
from jackpots.models import Hit, HitKind, HitRefusal, LedgerEntry, Level, ProgressiveMachine
from jackpots.services import core
from jackpots.services.hit_numbers import hit_ref_assign
from jackpots.services.level_write import Locked, Written, levels_write
from jackpots.services.levels import Snapshot, ledger_entry, level_params, snapshot, trigger_randbelow
from jackpots.services.parameters import staged_changes_apply
from jackpots.services.states import level_in_play_check
from slots.models import MachineAlert, MachineEvent, SlotMachine

logger = logging.getLogger(__name__)


def _hit_number_next(level: Level) -> int:
    return (Hit.objects.filter(level=level).aggregate(n=Max("number"))["n"] or 0) + 1


@dataclass(frozen=True)
class Play:
    """A hit's place in the order of play: its triggering event's time, machine and seq."""

    at: datetime
    machine_id: int
    seq: int


def _played_after(level: Level, play: Play) -> bool:
    """Whether a hit already numbered on the level was played after ``play`` (which is then late)."""
    later = (
        Q(at__gt=play.at)
        | Q(at=play.at, machine_id__gt=play.machine_id)
        | Q(at=play.at, machine_id=play.machine_id, play_seq__gt=play.seq)
    )
    return Hit.objects.filter(later, level=level, play_seq__isnull=False).exists()


# A triggering game: (event id, wager cents, is max bet).
Game = tuple[int, int, bool | None]


def jackpot_report_payer(event_id: int) -> tuple[str, int | None]:
    """Who paid a machine's jackpot report, as it said: ("machine", cents it paid), ("attendant", None)
    or ("", None). The events parser has bounded both fields; read only for a report (rare), so the
    engine's claim of thousands of games does not carry payloads."""
    payload = MachineEvent.objects.filter(id=event_id).values_list("payload", flat=True).first() or {}
    paid = payload.get("paid", "")
    if paid == "machine":
        return paid, int(payload["paid_amount"])
    return (paid, None) if paid == "attendant" else ("", None)


def triggering_game(machine_id: int, seq: int, applied_by: datetime | None = None) -> Game | None:
    """The machine's last game before its report ``seq`` in seq order (one indexed look-up). The engine
    asks while it applies the report, so it sees the games stored by then; ``applied_by`` (the report's
    batch time) asks the same afterwards: a game that reached the server after its report was applied is
    late and does not change what the report was judged on."""
    games = MachineEvent.objects.filter(machine_id=machine_id, type=MachineEvent.Type.GAME, seq__lt=seq)
    if applied_by is not None:
        games = games.filter(applied_at__lte=applied_by)
    game = games.order_by("-seq").values_list("id", "wager_cents", "is_max_bet").first()
    if game is None:
        return None
    game_id, wager, is_max_bet = game
    assert wager is not None  # the ingest stores every game with its wager
    return game_id, wager, is_max_bet


def _member_live(level: Level, machine_id: int) -> bool | None:
    """None when the machine is not a member of the level's progressive, else whether it is live: an
    enabled member in service (rule 5)."""
    member = (
        ProgressiveMachine.objects.filter(progressive_id=level.progressive_id, machine_id=machine_id)
        .values_list("enabled", "machine__status")
        .first()
    )
    if member is None:
        return None
    enabled, status = member
    return enabled and status == SlotMachine.Status.IN_SERVICE


def machine_report_refusal(
    level: Level | None, params: core.Params | None, *, machine_id: int, seq: int
) -> tuple[str, int | None] | None:
    """Why a jackpot report of ``machine_id`` (seq ``seq``) on ``level`` (locked, with its ``params``) is
    not a hit, as (code, triggering game id); None when it is one."""
    live = None if level is None or params is None else _member_live(level, machine_id)
    if level is None or params is None or live is None:
        return HitRefusal.Code.NOT_A_MEMBER, None
    if level.state == Level.State.SUSPENDED:
        return HitRefusal.Code.LEVEL_SUSPENDED, None
    if level.state == Level.State.RETIRED:
        return HitRefusal.Code.LEVEL_RETIRED, None
    if level.mystery:
        return HitRefusal.Code.MYSTERY_LEVEL, None
    if not live:
        return HitRefusal.Code.MACHINE_NOT_LIVE, None
    game = triggering_game(machine_id, seq)
    if game is None:
        return HitRefusal.Code.NO_TRIGGERING_GAME, None
    game_id, wager, is_max_bet = game
    if wager < params.min_wager_cents:
        return HitRefusal.Code.WAGER_BELOW_MINIMUM, game_id
    if params.max_bet_only and not is_max_bet:
        return HitRefusal.Code.NOT_MAX_BET, game_id
    return None


def hit_refusals_record(refusals: list[HitRefusal], *, now: datetime) -> None:
    """Stores refused reports and alerts the floor, one ``jackpot_refused`` alert per report."""
    if not refusals:
        return
    seqs = dict(MachineEvent.objects.filter(id__in=[r.event_id for r in refusals]).values_list("id", "seq"))
    alerts = []
    for refusal in refusals:
        refusal.detail = (
            f"Jackpot report (seq {seqs[refusal.event_id]}) on level {refusal.level_id} refused: "
            f"{refusal.code}. Nothing is paid; check the machine."
        )
        logger.warning("machine %s: %s", refusal.machine_id, refusal.detail)
        alerts.append(
            MachineAlert(
                machine_id=refusal.machine_id,
                kind=MachineAlert.Kind.JACKPOT_REFUSED,
                seq=seqs[refusal.event_id],
                at=now,
                detail=refusal.detail,
                payload={
                    "level": refusal.level_id,
                    "code": refusal.code,
                    "game_event": refusal.game_event_id,
                },
            )
        )
    HitRefusal.objects.bulk_create(refusals)
    MachineAlert.objects.bulk_create(alerts)


@dataclass(frozen=True)
class Recorded:
    state: core.State
    hits: list[Hit]
    entries: list[LedgerEntry]
    award: core.Award


def award_record_locked(
    level: Level,
    state: core.State,
    *,
    at: datetime,
    kind: str,
    mode: core.AwardMode = core.AwardMode.WHOLE,
    value: Decimal | int = 0,
    winners: int = 1,
    machine_id: int | None = None,
    event_id: int | None = None,
    machine_amount_cents: int | None = None,
    machine_paid_cents: int | None = None,
    reported_paid: str = "",
    reference: str = "",
    play: Play | None = None,
    venue: Venue | None = None,
) -> Recorded:
    """Records a win on a level the caller has locked; the caller saves ``state`` on the level.

    One Hit per winner (each its own order number); the level resets only on a WHOLE award. The staged
    parameter changes take effect at that reset (rule 4) and a mystery level draws its next trigger.
    ``play``: the triggering event's place in the order of play (engine hits), recorded on the hit.
    ``machine_paid_cents``: the machine credited the win itself (its report's ``paid_amount``): the hit is
    recorded paid by the machine and the level pays out no more than that (``core.award``).
    ``venue``: where a machine-less hit (a table prize) was won, for its hit number; a machine's hit is
    numbered in its machine's venue.

    Only an active level is won: a suspended or retired one raises (``level_suspended``,
    ``level_retired``), whichever path asked (a machine's report is refused before it gets here)."""
    level_in_play_check(level)
    params = level_params(level)
    before = snapshot(params, state)
    next_params = params
    if mode is core.AwardMode.WHOLE:
        next_params = staged_changes_apply(level, at, state.cycle + 1)
    new_state, movement, award = core.award(
        params,
        state,
        mode,
        value,
        winners=winners,
        next_params=next_params,
        randbelow=trigger_randbelow,
        paid_cap_cents=machine_paid_cents,
    )
    hits = _hits_create(
        level,
        state,
        award,
        kind=kind,
        at=at,
        winners=winners,
        machine_id=machine_id,
        event_id=event_id,
        machine_amount_cents=machine_amount_cents,
        reported_paid=reported_paid,
        before=before,
        play=play,
    )
    if venue is None and machine_id is not None:
        venue = Venue.objects.filter(rooms__machines__id=machine_id).first()
    for hit in hits:
        hit_ref_assign(hit, venue)
    if machine_paid_cents is not None:
        _paid_by_machine(hits[0], machine_paid_cents)
    entries = []
    if movement != core.Movement():
        ledger_kind = LedgerEntry.Kind.HIT if award.reset else LedgerEntry.Kind.AWARD
        entries.append(
            ledger_entry(
                level,
                ledger_kind,
                movement,
                new_state,
                at=at,
                params=params,
                hit=hits[0],
                reference=reference,
            )
        )
    return Recorded(new_state, hits, entries, award)


def _hits_create(
    level: Level,
    state: core.State,
    award: core.Award,
    *,
    kind: str,
    at: datetime,
    winners: int,
    machine_id: int | None,
    event_id: int | None,
    machine_amount_cents: int | None,
    reported_paid: str,
    before: Snapshot,
    play: Play | None,
) -> list[Hit]:
    """One Hit per winner of ``award``, numbered next on the level (``state``: the level before it)."""
    number = _hit_number_next(level)
    late = play is not None and _played_after(level, play)
    hits = []
    for i in range(winners):
        discrepancy = None
        if machine_amount_cents is not None:
            discrepancy = machine_amount_cents - award.per_winner_cents
            if discrepancy:
                logger.warning(
                    "hit on level %s: machine shows %s cents, the system pays %s cents",
                    level.id,
                    machine_amount_cents,
                    award.per_winner_cents,
                )
        hits.append(
            Hit.objects.create(
                level=level,
                machine_id=machine_id,
                at=at,
                amount_cents=award.per_winner_cents,
                amount_mc=award.locked_mc,
                level_seq=state.seq,
                cycle=state.cycle,
                kind=kind,
                number=number + i,
                machine_amount_cents=machine_amount_cents,
                reported_paid=reported_paid,
                discrepancy_cents=discrepancy,
                event_id=event_id,
                before=before,
                play_seq=play.seq if play is not None else None,
                late=late,
            )
        )
    return hits


def _paid_by_machine(hit: Hit, paid_cents: int) -> None:
    """The machine credited the win itself: the hit is paid, by that machine, when it was won. It never
    reaches the desk and no handpay reset is sent for it (``gatewaylink.selectors``)."""
    hit.state, hit.paid_at = Hit.State.PAID, hit.at
    hit.paid_by_machine_id, hit.machine_paid_cents = hit.machine_id, paid_cents
    if paid_cents != hit.amount_cents:
        logger.warning(
            "hit %s on level %s: the machine paid itself %s cents, the level paid out %s cents",
            hit.pk,
            hit.level_id,
            paid_cents,
            hit.amount_cents,
        )
    hit.save(update_fields=["state", "paid_at", "paid_by_machine", "machine_paid_cents"])


def _award_step(level_id: int, **award: Any) -> Callable[[Locked], Written[Recorded]]:
    """A level write that records an award on the locked level (``award_record_locked``'s arguments)."""

    def step(locked: Locked) -> Written[Recorded]:
        recorded = award_record_locked(locked.levels[level_id], locked.state(level_id), **award)
        return Written({level_id: recorded.state}, recorded.entries, recorded.hits, result=recorded)

    return step


def level_award(
    level_id: int,
    *,
    mode: core.AwardMode,
    value: Decimal | int = 0,
    winners: int = 1,
    at: datetime | None = None,
    kind: str = HitKind.TABLE,
    reference: str = "",
) -> Recorded:
    """Primitive for the table games: locks the level, records the award, writes the ledger."""
    step = _award_step(
        level_id,
        at=at or timezone.now(),
        kind=kind,
        mode=mode,
        value=value,
        winners=winners,
        reference=reference,
    )
    return levels_write([level_id], step).returned()


def level_hit(level_id: int, *, machine_id: int | None = None, at: datetime | None = None) -> Hit:
    """A machine-triggered hit reported outside the event stream (e.g. by an attendant)."""
    step = _award_step(level_id, at=at or timezone.now(), kind=HitKind.MACHINE, machine_id=machine_id)
    return levels_write([level_id], step).returned().hits[0]
