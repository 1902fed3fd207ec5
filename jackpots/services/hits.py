"""Hits: recording (machine-triggered, mystery, table awards), verification, payment and void.

A hit is recorded under the level's row lock, so near-simultaneous hits on a level are ordered (``number``)
and each takes the amount standing when its turn comes (rule 7). Every step records who and when (rule 8).

A machine's jackpot report is a hit only if the machine could win the level with the game that triggered
it: the machine's last game before the report in its seq order (the game event with the highest seq below
the report's, other event types skipped). That game must exist, reach the level's minimum wager and, on a
max-bet-only level, be a max bet; the machine must be an enabled member in service and the level a live,
machine-triggered one. Otherwise the report is refused (``machine_report_refusal``): a ``HitRefusal`` with
its code and a ``jackpot_refused`` alert for the floor, nothing paid. The engine decides it when it applies
the report, so the API answers ``accepted`` (the report is stored) and the refusal is on record.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Min, Q, QuerySet
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from common.money import cents_eur
from floor.models import SignificantEvent, Venue
from floor.services.significant import significant_event_record
from jackpots import publish
from jackpots.models import (
    Hit,
    HitKind,
    HitRefusal,
    LedgerEntry,
    Level,
    LevelChange,
    ProgressiveMachine,
    Table,
)
from jackpots.services import core
from jackpots.services.errors import EngineError
from jackpots.services.hit_numbers import hit_label, hit_ref_assign
from jackpots.services.level_write import Locked, Written, levels_write
from jackpots.services.levels import (
    ledger_entry,
    level_params,
    level_state,
    snapshot,
    snapshot_params,
    snapshot_state,
    trigger_randbelow,
)
from jackpots.services.machine_split import machine_parts_insert, void_parts, wagers_since
from jackpots.services.parameters import parameters_set, staged_changes_apply
from jackpots.services.states import level_in_play_check, level_retired_error
from jackpots.services.winners import Winner, winner_record
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
    return games.order_by("-seq").values_list("id", "wager_cents", "is_max_bet").first()


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
    live = None if level is None else _member_live(level, machine_id)
    if live is None:
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
    before: dict,
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
    reaches the desk and no handpay reset is sent for it (``jackpots.gateway.selectors``)."""
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


def hit_machine_award_record(hit: Hit, paid_cents: int, *, now: datetime) -> None:
    """A mystery award's machine credited ``paid_cents`` of it (LP 8A, the gateway's ``award_result``),
    the hit locked by the caller. All of it: the hit is paid by that machine. Less (0 included): the
    machine's part is recorded, the hit stays on the desk for the attendants to pay the rest
    (``Hit.attendant_cents``) and the floor is alerted. The level paid the whole award when it was won,
    so the machine's part and the attendants' add up to it: nothing is invented or lost."""
    if paid_cents > 0:
        hit.paid_by_machine_id, hit.machine_paid_cents = hit.machine_id, paid_cents
    fields = ["paid_by_machine", "machine_paid_cents"]
    if paid_cents >= hit.amount_cents:
        hit.state, hit.paid_at = Hit.State.PAID, now
        hit.save(update_fields=[*fields, "state", "paid_at"])
        return
    hit.save(update_fields=fields)
    short = hit.amount_cents - paid_cents
    detail = (
        f"Award {hit.pk} on level {hit.level_id}: the machine credited {paid_cents} of {hit.amount_cents} "
        f"cents; the attendants pay the remaining {short} cents from the hits desk."
    )
    logger.warning("machine %s: %s", hit.machine_id, detail)
    MachineAlert.objects.create(
        machine_id=hit.machine_id,
        kind=MachineAlert.Kind.AWARD_PAID_SHORT,
        seq=hit.play_seq or 0,
        at=now,
        detail=detail,
        payload={
            "hit": hit.pk,
            "award_cents": hit.amount_cents,
            "paid_cents": paid_cents,
            "short_cents": short,
        },
    )


def _award_step(level_id: int, **award) -> Callable[[Locked], Written[Recorded]]:
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
    return levels_write([level_id], step).result


def level_hit(level_id: int, *, machine_id: int | None = None, at: datetime | None = None) -> Hit:
    """A machine-triggered hit reported outside the event stream (e.g. by an attendant)."""
    step = _award_step(level_id, at=at or timezone.now(), kind=HitKind.MACHINE, machine_id=machine_id)
    return levels_write([level_id], step).result.hits[0]


def _threshold_cents(hit: Hit) -> int:
    """The two-person threshold of the venue where the hit happened: the machine's, or for a table's fixed
    prize the table's. (A shared percentage prize is verified part by part, each at its own venue's
    threshold: ``jackpots.tables.services.parts``.)"""
    if hit.machine_id is not None:
        return hit.machine.room.venue.handpay_threshold_cents
    if hit.kind == HitKind.TABLE:
        won = Q(rounds__seat_rows__share__hit=hit) | Q(rounds__seat_rows__fixed_hit=hit)
        lowest = Table.objects.filter(won).aggregate(lowest=Min("venue__handpay_threshold_cents"))["lowest"]
        if lowest is not None:
            return lowest
    return settings.HANDPAY_THRESHOLD_CENTS


def _hit_lock(hit: Hit) -> Hit:
    return Hit.objects.select_for_update(of=("self",)).select_related("machine__room__venue").get(pk=hit.pk)


def hit_verify(hit: Hit, user) -> Hit:
    """An attendant verifies. At or above the venue's threshold two different people must (Nevada MICS):
    the first is ``verified_by``, the second ``second_verified_by``; only then is the hit verified."""
    with transaction.atomic():
        hit = _hit_lock(hit)
        if hasattr(hit, "prize_share"):
            raise EngineError(
                "pay_the_parts",
                _("%(hit)s is a shared prize: verify each winner's part on its own row.")
                % {"hit": hit_label(hit)},
            )
        if hit.state != Hit.State.HIT:
            raise EngineError(
                "hit_not_open",
                _("Hit %(hit)s is %(state)s; only an open hit can be verified.")
                % {"hit": hit_label(hit), "state": hit.get_state_display().lower()},
            )
        verification_record(hit, user, two_people=hit.amount_cents >= _threshold_cents(hit))
    return hit


def verification_record(record: Hit, user, *, two_people: bool) -> None:
    """One person's verification of a locked hit or prize part (their fields and "verified" state are the
    same): the first is ``verified_by``, at or above the threshold a different second person
    ``second_verified_by``; only then is it verified."""
    now = timezone.now()
    if record.verified_by_id is None:
        record.verified_by, record.verified_at = user, now
        if not two_people:
            record.state = Hit.State.VERIFIED
    elif record.verified_by_id == user.pk:
        raise EngineError(
            "second_verifier_required",
            _("This hit is at or above the two-person threshold: a different person must verify it too."),
        )
    else:
        record.second_verified_by, record.second_verified_at = user, now
        record.state = Hit.State.VERIFIED
    record.save(
        update_fields=["verified_by", "verified_at", "second_verified_by", "second_verified_at", "state"]
    )


def paid_already(label: str, by: str, at: datetime) -> EngineError:
    """The refusal of a second payment (e.g. the loser of two pays at once): who paid it and when."""
    return EngineError(
        "already_paid",
        _("%(hit)s was paid by %(by)s at %(time)s.")
        % {"hit": label, "by": by, "time": formats.time_format(timezone.localtime(at), "H:i")},
    )


def hit_payer(hit: Hit) -> str:
    """Who paid a paid hit, as people read it."""
    if hit.paid_by_machine_id is not None:
        return _("the machine %(machine)s") % {"machine": hit.paid_by_machine.asset_number}
    if hit.paid_by_table_id is not None:
        return _("table %(code)s") % {"code": hit.paid_by_table.code}
    user = hit.paid_by
    return (user.get_full_name() or user.get_username()) if user is not None else "?"


def _hit_venue(hit: Hit) -> Venue | None:
    if hit.machine_id is not None:
        return hit.machine.room.venue
    return Venue.objects.filter(tables__rounds__seat_rows__fixed_hit=hit).first()


def hit_pay(hit: Hit, user, winner: Winner | None = None) -> Hit:
    """The floor pays a verified hit, once: a second pay (two at once included: the hit's row is locked)
    is refused naming who paid it and when. At or above the venue's identification threshold the
    winner's name and identity document are required and recorded with the hit."""
    with transaction.atomic():
        hit = _hit_lock(hit)
        if hit.state == Hit.State.PAID:
            raise paid_already(hit_label(hit), hit_payer(hit), hit.paid_at)
        if hasattr(hit, "prize_share"):
            raise EngineError(
                "pay_the_parts",
                _("%(hit)s is a shared prize: pay each winner's part on its own row.")
                % {"hit": hit_label(hit)},
            )
        if hit.state != Hit.State.VERIFIED:
            raise EngineError(
                "hit_not_verified",
                _("Hit %(hit)s is %(state)s; it must be verified before paying.")
                % {"hit": hit_label(hit), "state": hit.get_state_display().lower()},
            )
        venue = _hit_venue(hit)
        fields = winner_record(
            hit,
            label=hit_label(hit),
            cents=hit.payout_cents,
            currency=venue.currency if venue is not None else "EUR",
            venue=venue,
            winner=winner,
        )
        hit.state, hit.paid_by, hit.paid_at = Hit.State.PAID, user, timezone.now()
        hit.save(update_fields=["state", "paid_by", "paid_at", *fields])
        transaction.on_commit(lambda hit_id=hit.pk: publish.hit_paid(hit_id))
    return hit


def _voidable(hit: Hit) -> bool:
    """Unpaid, or paid at the table when its round was recorded: a hand declared void at the table takes
    back what the table paid (rule 8: a malfunction voids the payment). A payment the floor made stands."""
    if hit.state in (Hit.State.HIT, Hit.State.VERIFIED):
        return True
    return hit.state == Hit.State.PAID and hit.paid_by_table_id is not None


def hits_took_from_level(hits: Hit | QuerySet[Hit]) -> bool:
    """Whether the hit (or any of the hits) took its award from the level: a fixed prize moves nothing."""
    award = Q(kind__in=[LedgerEntry.Kind.HIT, LedgerEntry.Kind.AWARD])
    if isinstance(hits, Hit):
        return hits.ledger.filter(award).exists()
    return LedgerEntry.objects.filter(award, hit__in=hits).exists()


def _void_record(hit: Hit, user, reason: str, now: datetime | None = None) -> Hit:
    hit.state, hit.voided_by, hit.void_reason = Hit.State.VOIDED, user, reason.strip()
    hit.voided_at = now or timezone.now()
    hit.save(update_fields=["state", "voided_by", "voided_at", "void_reason"])
    _void_register(hit)
    return hit


def _void_register(hit: Hit) -> None:
    """The void in the significant-events register, in the void's transaction: the hit's machine (or its
    level, for a table's or an attendant's hit), who voided it and why."""
    significant_event_record(
        SignificantEvent.Kind.VOID,
        venue=_hit_venue(hit),
        at=hit.voided_at,
        subject=hit.machine.asset_number if hit.machine_id is not None else str(hit.level),
        machine_id=hit.machine_id,
        level_id=hit.level_id,
        user=hit.voided_by,
        detail=f"Hit {hit_label(hit)} of EUR {cents_eur(hit.amount_cents)} voided: {hit.void_reason}",
        reference=hit.ref or "",
    )


def _award_row_id(award_rows: list[LedgerEntry]) -> int:
    """The ledger row the hit took its award in (0 for a fixed prize, which moves nothing)."""
    return max((entry.id for entry in award_rows), default=0)


@dataclass(frozen=True)
class _Voided:
    hit: Hit
    entry: LedgerEntry | None = None  # the compensating row (None: a fixed prize, nothing to restore)
    award_row_id: int = 0
    at: datetime | None = None


def hit_void(hit: Hit, user, reason: str) -> Hit:
    """Voids an unpaid hit (or a table prize paid at the table) and restores its level as if the hit had
    never happened: the level goes back to its state before the hit, then the eligible wagers since are
    applied again with the carry rule. The compensating ledger row records the difference. Only the level's
    latest hit can be voided. A voided mystery hit gets its trigger back too: the level is again past it, so
    the next eligible wager wins. A table prize is voided through ``jackpots.tables.services.voids``, which
    calls this and voids the prize's seats and answers too."""
    if not reason or not reason.strip():
        raise EngineError("reason_required", _("A void needs a reason."))
    with transaction.atomic():
        voided = levels_write([hit.level_id], lambda locked: _void_step(locked, hit, user, reason)).result
        if voided.entry is None:
            return voided.hit
        wagers = wagers_since(voided.hit.level_id, voided.award_row_id)
        machine_parts_insert([(voided.entry, void_parts(voided.entry, wagers))])
        return _void_record(voided.hit, user, reason, voided.at)


def _void_check(level: Level, hit: Hit) -> None:
    """Raises unless ``hit`` (locked), which took its award from the level, can be voided now. A
    suspended level takes a void (its money returns, no play moves it); a retired one nothing ever again."""
    if level.state == Level.State.RETIRED:
        raise level_retired_error(level)
    later = Hit.objects.filter(level=level, number__gt=hit.number).exclude(state=Hit.State.VOIDED)
    if hits_took_from_level(later):
        raise EngineError("later_hit", _("A later hit on this level must be voided first."))
    # Each award bumps the level's value sequence, so hits sharing one are winners of the same award.
    shared = Hit.objects.filter(level=level, cycle=hit.cycle, level_seq=hit.level_seq).exclude(pk=hit.pk)
    if shared.exclude(state=Hit.State.VOIDED).exists():
        message = _("This award is shared with other winners; void the round instead.")
        raise EngineError("shared_award", message)


def _void_step(locked: Locked, hit: Hit, user, reason: str) -> Written[_Voided]:
    """The level write of a void: the level as before the hit, plus the wagers since."""
    level = locked.levels[hit.level_id]
    hit = _hit_lock(hit)
    if not _voidable(hit):
        raise EngineError(
            "hit_not_voidable",
            _("Hit %(hit)s is %(state)s; only an unpaid hit or one paid at the table can be voided.")
            % {"hit": hit_label(hit), "state": hit.get_state_display().lower()},
        )
    if not hits_took_from_level(hit):
        # A fixed prize the house pays: nothing to restore, and no later hit depends on it.
        return Written(result=_Voided(_void_record(hit, user, reason)))
    _void_check(level, hit)
    now = timezone.now()
    current = level_state(level)
    params_before = snapshot_params(hit.before)
    before = snapshot_state(hit.before)
    restored, _ignored = core.contribute(params_before, before, current.wagered_cents - before.wagered_cents)
    restored = dataclasses.replace(restored, seq=current.seq + 1)
    reset_hit = current.cycle != before.cycle
    if reset_hit:
        LevelChange.objects.filter(
            level=level, applied_cycle=current.cycle, state=LevelChange.State.APPLIED
        ).update(state=LevelChange.State.STAGED, applied_at=None, applied_cycle=None)
        parameters_set(level, params_before)
    # What the award's own ledger row moved (nothing for a fixed prize the house pays).
    award_rows = list(hit.ledger.all())
    movement = _void_movement(current, restored, award_rows, carry_restart=reset_hit)
    entry = ledger_entry(
        level,
        LedgerEntry.Kind.VOID,
        movement,
        restored,
        at=now,
        params=params_before,
        hit=hit,
        reference=reason[:80],
    )
    return Written({level.id: restored}, [entry], result=_Voided(hit, entry, _award_row_id(award_rows), now))


def _void_movement(
    current: core.State, restored: core.State, award_rows: list[LedgerEntry], *, carry_restart: bool
) -> core.Movement:
    """The compensating row's movement: from the level as it stands to the level restored."""
    awarded_back = -sum(e.awarded_mc for e in award_rows)
    seeded_back = -sum(e.seeded_mc for e in award_rows)
    current_delta = restored.current_mc - current.current_mc
    reserve_delta = restored.reserve_mc - current.reserve_mc
    overflow_delta = restored.overflow_mc - current.overflow_mc
    return core.Movement(
        current_delta_mc=current_delta,
        reserve_delta_mc=reserve_delta,
        overflow_delta_mc=overflow_delta,
        seeded_mc=seeded_back,
        awarded_mc=awarded_back,
        contributed_mc=current_delta + reserve_delta + overflow_delta - seeded_back + awarded_back,
        carry_restart=carry_restart,
    )
