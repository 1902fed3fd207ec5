"""Recording table rounds on the progressive engine.

A round is one transaction under the level's row lock: the jackpot bets feed the level with the engine's
carry rule (``core.contribute``), percentage prizes are engine awards (``award_record_locked``: one Hit
for each prize taken from the level), fixed prizes are paid by the house and leave the level alone.
Voids are in ``voids``.

Who pays a table prize (Nevada MICS two-person rule, as for machine handpays, rule 8):
- A fixed prize never comes out of the progressive. Under the threshold the dealer pays it when the round
  is recorded and there is no hit; at or above it it is a hit of its own (it moves nothing on the level)
  that waits in the hits queue for two people, then the floor pays it.
- A percentage prize is one engine Hit. Under the two-person threshold of the venue of the table that won
  it (``floor.Venue.handpay_threshold_cents``) it is paid at the table when the round is recorded: the hit
  is recorded paid at once, with the table and the key that posted the round as the payer, and the table
  pays each seat the part its round's answer gives once ``final_at`` has passed (a later winner in the
  window still divides it). At or above the threshold the hit waits in the hits queue: verified by one
  person, verified again by a different one, then paid by the floor, like a machine's handpay.
- So the liability report's "won, unpaid" holds exactly the table prizes at or above the threshold that
  the floor has not paid yet, and a seat's answer says ``handpay: true`` for them: the table does not pay
  them from its float.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone

from common.credentials import credential_issue
from common.money import cents_eur
from common.times import time_window
from floor.models import Venue
from jackpots.currency import convert_cents, convert_cents_back, rate_find
from jackpots.models import Hit, HitKind, LedgerEntry, Level
from jackpots.services import core
from jackpots.services.hit_recording import award_record_locked
from jackpots.services.level_write import Locked, Written, levels_write
from jackpots.services.levels import ledger_entry, level_params, level_state
from tables import hooks as tables_hooks
from tables.models import (
    PayLine,
    PayTable,
    PrizePart,
    PrizeShare,
    Table,
    TableKey,
    TableRound,
    TableSeat,
)
from tables.round_input import BetRule, RoundError, RoundInput, round_parse
from tables.rules import (
    HAND_ORDER,
    Game,
    hand_of,
    movement_add,
    split_by_weight,
)
from tables.selectors import declaration_fields, pay_lines
from tables.services.declarations import declaration_open_locked, round_pending_refuse
from tables.services.parts import part_create, part_decide, parts_void, share_hit_settle
from tables.services.paytables import pay_table_staged_apply

TABLE_KEY_KIND = "tbl"


def table_key_issue(table: Table, *, created_by=None) -> tuple[TableKey, str]:
    """A new key for a table's round poster; earlier keys stay valid until revoked (key rotation)."""
    return credential_issue(TableKey, kind=TABLE_KEY_KIND, created_by=created_by, table=table)


def table_bet_rule(table: Table) -> BetRule:
    return BetRule(
        game=table.game,
        fixed_cents=table.jackpot_bet_cents if table.game == Game.CARIBBEAN_STUD else None,
        min_cents=table.min_jackpot_bet_cents,
        max_cents=table.max_jackpot_bet_cents,
        seats=table.seats,
    )


def round_reference(table: Table, round_id: str) -> str:
    return f"table {table.code} round {round_id}"[:80]


def _pool_cents(bet_cents: int, rate: Decimal) -> int:
    """A bet in the venue's currency as cents of the progressive's (rounded down)."""
    return convert_cents_back(bet_cents, rate)


def shares_resplit(share: PrizeShare, rate_of: dict[int, Decimal], *, answering: int | None = None) -> None:
    """Divides the prize again between the share's seats (in the order they were recorded) and rewrites
    the stored answer of every other round taking part, so that a retry of an earlier round answers what
    its table is really owed now, not the larger part it was first told. ``answering``: the round being
    recorded, whose answer the caller writes once all its prizes are divided."""
    seats = list(
        share.seats.filter(round__state=TableRound.State.RECORDED)
        .select_related("round__table")
        .order_by("id")
    )
    if not seats:
        return
    parts = split_by_weight(share.prize_cents, [seat.share_weight for seat in seats])
    rounds: dict[int, TableRound] = {}
    prize_parts = {p.seat_id: p for p in share.prize_parts.select_for_update()}
    for seat, part in zip(seats, parts, strict=True):
        seat.share_cents = part
        rate = rate_of.get(seat.round_id, seat.round.rate)
        seat.award_cents = convert_cents(part + seat.fixed_cents, Decimal(rate))
        seat.save(update_fields=["share_cents", "award_cents"])
        part_decide(prize_parts.pop(seat.id), seat, rate)
        if seat.round_id != answering:
            rounds[seat.round_id] = seat.round
    parts_void(list(prize_parts.values()))  # the seats of voided rounds
    share_hit_settle(share)
    for round_ in rounds.values():
        round_.response = round_answer(round_)
        round_.save(update_fields=["response"])


def _open_share(
    level: Level, hand: str, at: datetime, window: timedelta, received_at: datetime
) -> PrizeShare | None:
    """An unpaid prize of the same hand won within ``window`` of ``at``, before or after: a table that
    posts its round late still shares with the win declared at the same time elsewhere, as long as the
    window has not closed by the server's clock. Past it the prize is final (its answers said so and the
    tables pay it) and is never divided again. At Caribbean Stud the declaration decides: the prize stays
    open while it is pending (``closes_at`` is its upper bound) and closes when it ends
    (``declarations.share_close``); rounds played after it are refused before they get here."""
    # A prize paid at the table stays open: the table pays each seat its part once the window closes.
    unpaid = Q(hit__state__in=[Hit.State.HIT, Hit.State.VERIFIED])
    paid_at_table = Q(hit__state=Hit.State.PAID, hit__table_payment__isnull=False)
    return (
        PrizeShare.objects.filter(
            unpaid | paid_at_table,
            level=level,
            hand=hand,
            voided=False,
            opened_at__gte=at - window,
            closes_at__gte=max(at, received_at),
        )
        .order_by("-opened_at", "-id")
        .first()
    )


def _eur_text(pool_cents: int, pool_currency: str, venue_cents: int, venue_currency: str) -> str | None:
    """The award in euros where one side is in euros (the pool's amount first), else None."""
    if pool_currency == "EUR":
        return cents_eur(pool_cents)
    return cents_eur(venue_cents) if venue_currency == "EUR" else None


def _seat_answer(seat: TableSeat, currency: str, pool_currency: str) -> dict:
    pool_award = seat.share_cents + seat.fixed_cents
    # A percentage prize may still be divided with a later winner until its window closes; a voided one
    # pays nothing and is never divided again.
    prize = seat.share if seat.share_id is not None and not seat.share.voided else None
    final_at = prize.closes_at.isoformat() if prize is not None else None
    # What the floor pays (two people verify), not the table: a prize at or above the threshold.
    part = PrizePart.objects.filter(seat_id=seat.pk).only("paid_by_table_id").first() if prize else None
    handpay = (seat.fixed_hit_id is not None and seat.fixed_hit.state != Hit.State.VOIDED) or (
        prize is not None and (part is None or part.paid_by_table_id is None)  # its own part's payer
    )
    contribution_cents = seat.contribution_mc // core.MC_PER_CENT
    return {
        "seat": seat.seat,
        "hand": seat.hand,
        "jackpot_bet": seat.jackpot_bet_cents,
        "eligible": seat.jackpot_bet_cents > 0 and not seat.changed_card,
        "contribution": {
            "amount": contribution_cents,
            "amount_mc": seat.contribution_mc,
            "amount_eur": cents_eur(contribution_cents) if pool_currency == "EUR" else None,
            "currency": pool_currency,
        },
        "award": {
            "amount": seat.award_cents,
            "currency": currency,
            "amount_eur": _eur_text(pool_award, pool_currency, seat.award_cents, currency),
            "pool_amount": pool_award,
            "share": seat.share_cents,
            "fixed": seat.fixed_cents,
            # The seat takes part in a percentage prize (alone or divided with other winners).
            "progressive": prize is not None,
            "provisional": final_at is not None,
            "final_at": final_at,
            "handpay": handpay,
        },
    }


def answer_as_of(answer: dict, now: datetime) -> dict:
    """A stored answer as it stands at ``now``: a share is provisional until its window has closed."""
    seats = []
    for seat in answer.get("seats", []):
        final_at = seat["award"].get("final_at")
        provisional = final_at is not None and now <= datetime.fromisoformat(final_at)
        award = {**seat["award"], "provisional": provisional, "final_at": final_at}
        seats.append({**seat, "award": award})
    return {**answer, "seats": seats}


def round_answer(round_: TableRound, seats: list[TableSeat] | None = None) -> dict:
    """The round as the API answers it; ``seats`` when the caller holds them up to date."""
    if seats is None:
        seats = list(round_.seat_rows.select_related("share__hit", "fixed_hit").order_by("seat"))
    return {
        "round": round_.round_id,
        "table": round_.table.code,
        "state": round_.state,
        "currency": round_.currency,
        "pool_currency": round_.pool_currency,
        "rate": f"{Decimal(round_.rate):.8f}",
        "exchange_rate": round_.exchange_rate_id,
        "seats": [_seat_answer(seat, round_.currency, round_.pool_currency) for seat in seats],
    }


def round_record(
    table: Table, data: object, *, received_at: datetime | None = None, key: TableKey | None = None
) -> tuple[dict, bool]:
    """Records a posted round; returns the answer and whether it was created (False: a retry). ``key``:
    the table key that posted it, recorded as the payer of the prizes the table pays at once."""
    received_at = received_at or timezone.now()
    parsed = round_parse(data, table_bet_rule(table), window=time_window(received_at))
    if not table.active:
        raise RoundError("table_inactive", f"Table {table.code} is not active.", status=409)
    pay_table = table.progressive.pay_table
    posted = _Posted(table, pay_table, parsed, received_at, key)
    try:
        with transaction.atomic():
            recorded = levels_write([pay_table.level_id], posted.step).result
            if recorded.round_ is None:
                answer, created = recorded.answer, False
            else:
                answer, created = _round_finish(recorded), True
    except IntegrityError:
        # A concurrent post of the same round won the race (only possible if it locked another level).
        answer, created = TableRound.objects.get(table=table, round_id=parsed.round_id).response, False
    # Whether the progressive's tables are suspended by a declaration now (not stored: it changes).
    return {
        **answer_as_of(answer, received_at),
        **declaration_fields(pay_table.level_id, received_at),
    }, created


@dataclass
class _Recorded:
    """What a round's level write did: a retry's stored answer, or the new round, its seats and prizes."""

    answer: dict | None = None
    round_: TableRound | None = None
    seats: list[TableSeat] = field(default_factory=list)
    shares: list[PrizeShare] = field(default_factory=list)


@dataclass(frozen=True)
class _Posted:
    """A parsed round post and where it goes; ``step`` is its level write."""

    table: Table
    pay_table: PayTable
    parsed: RoundInput
    received_at: datetime
    key: TableKey | None

    def step(self, locked: Locked) -> Written[_Recorded]:
        level = locked.levels[self.pay_table.level_id]
        round_id = self.parsed.round_id
        existing = TableRound.objects.filter(table=self.table, round_id=round_id).first()
        if existing is not None:
            if existing.digest != self.parsed.digest:
                raise RoundError(
                    "round_conflict",
                    f"Round {round_id} was already recorded with different content.",
                    status=409,
                )
            return Written(result=_Recorded(answer=existing.response))
        if not level.active:
            raise RoundError(
                f"level_{level.state}",
                f"The progressive of table {self.table.code} is {level.state}: no jackpot bets are taken.",
                status=409,
            )
        round_pending_refuse(level, self.table, self.parsed.at, self.received_at)
        return _round_write(self, level)


def _round_write(posted: _Posted, level: Level) -> Written[_Recorded]:
    """The new round under the level's lock: its bets feed the level, then its prizes are awarded."""
    table, parsed = posted.table, posted.parsed
    pay_table_staged_apply(posted.pay_table, level)
    rate = rate_find(table.progressive.currency, table.venue.currency, parsed.at)
    params, state = level_params(level), level_state(level)
    round_ = _round_create(posted, level, rate, state.cycle)
    state, total, seats = _bets_apply(params, state, round_, parsed, game=table.game, rate=rate.rate)
    reference = round_reference(table, parsed.round_id)
    entries: list[LedgerEntry] = []
    if total.wagered_cents:
        kind = LedgerEntry.Kind.CONTRIBUTION
        entries.append(
            ledger_entry(level, kind, total, state, at=parsed.at, params=params, reference=reference)
        )
    prizes = _Prizes(posted, level, state, reference, seats)
    prizes.percent_award()
    prizes.fixed_award(rate.rate)
    TableSeat.objects.bulk_create(seats)
    for seat in seats:
        if seat.share is not None:
            part_create(seat, posted.key)
    for share in prizes.shares:  # each part's payer decided at its venue's threshold
        shares_resplit(share, {round_.id: rate.rate}, answering=round_.id)
    window = timedelta(seconds=posted.pay_table.share_window_seconds)
    declaration_open_locked(round_, seats, window=window, received_at=posted.received_at)
    percent_hands = frozenset(h for h, line in prizes.lines.items() if line.kind == PayLine.Kind.PERCENT)
    tables_hooks.round_recorded(round_, seats, table, percent_hands)  # in this transaction
    recorded = _Recorded(round_=round_, seats=seats, shares=prizes.shares)
    return Written({level.id: prizes.state}, entries + prizes.entries, prizes.hits, result=recorded)


def _round_create(posted: _Posted, level: Level, rate, cycle: int) -> TableRound:
    table, parsed = posted.table, posted.parsed
    return TableRound.objects.create(
        table=table,
        round_id=parsed.round_id,
        at=parsed.at,
        received_at=posted.received_at,
        digest=parsed.digest,
        level=level,
        cycle=cycle,
        community=list(parsed.community_codes),
        dealer=list(parsed.dealer_codes),
        currency=table.venue.currency,
        pool_currency=table.progressive.currency,
        exchange_rate=rate.row,
        rate=rate.rate,
    )


def _bets_apply(
    params: core.Params,
    state: core.State,
    round_: TableRound,
    parsed: RoundInput,
    *,
    game: str,
    rate: Decimal,
) -> tuple[core.State, core.Movement, list[TableSeat]]:
    """The bets feed the level first (chips are down before the cards are dealt): the level's new state,
    the round's total movement (and the round's totals) and its (unsaved) seats."""
    total = core.Movement()
    seats: list[TableSeat] = []
    for seat in parsed.seats:
        bet_pool = _pool_cents(seat.jackpot_bet_cents, rate)
        state, moved = core.contribute(params, state, bet_pool)
        total = movement_add(total, moved)
        seats.append(
            TableSeat(
                round=round_,
                seat=seat.seat,
                cards=list(seat.codes),
                changed_card=seat.changed_card,
                hand=hand_of(game, seat.cards, parsed.community),
                jackpot_bet_cents=seat.jackpot_bet_cents,
                bet_pool_cents=bet_pool,
                contribution_mc=moved.contributed_mc,
            )
        )
    round_.bets_cents = sum(s.jackpot_bet_cents for s in seats)
    round_.wagered_pool_cents = total.wagered_cents
    round_.added_mc = total.current_delta_mc + total.overflow_delta_mc
    round_.reserved_mc = total.reserve_delta_mc
    return state, total, seats


@dataclass
class _Prizes:
    """A new round's prizes, awarded on the locked level (whose ``state`` they carry along)."""

    posted: _Posted
    level: Level
    state: core.State
    reference: str
    seats: list[TableSeat]
    entries: list[LedgerEntry] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    shares: list[PrizeShare] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lines = pay_lines(self.posted.pay_table)
        self.playing = [s for s in self.seats if s.jackpot_bet_cents > 0 and not s.changed_card]

    def percent_award(self) -> None:
        """Jackpot hands pay whatever the dealer holds (the dealer's qualifying plays no part here)."""
        table = self.posted.table
        for hand in HAND_ORDER:
            line = self.lines.get(hand)
            if line is None or line.kind != PayLine.Kind.PERCENT:
                continue
            holders = [s for s in self.playing if s.hand == hand]
            # Deferred: a wide-area pool's prize, decided at the link (the round's claim goes there).
            if not holders or tables_hooks.percent_award_deferred(table.progressive_id):
                continue
            if table.game == Game.CASINO_HOLDEM:
                # Jumbo 7: the progressive is divided among every seat that bet in the round, by its bet.
                winners, weights = self.playing, [s.bet_pool_cents for s in self.playing]
            else:
                winners, weights = holders, [1] * len(holders)
            share = self._share(hand, line)
            for seat, weight in zip(winners, weights, strict=True):
                seat.share, seat.share_weight = share, weight
            self.shares.append(share)

    def _share(self, hand: str, line: PayLine) -> PrizeShare:
        """The open prize of ``hand`` this round joins, or a new one it wins from the level."""
        at, window = self.posted.parsed.at, timedelta(seconds=self.posted.pay_table.share_window_seconds)
        share = _open_share(self.level, hand, at, window, self.posted.received_at)
        if share is not None:
            return share
        mode = core.AwardMode.WHOLE if line.percent == 100 else core.AwardMode.SHARE
        recorded = award_record_locked(
            self.level,
            self.state,
            at=at,
            kind=HitKind.TABLE,
            mode=mode,
            value=line.percent / 100,
            reference=self.reference,
            venue=self.posted.table.venue,
        )
        self.state = recorded.state
        self.entries.extend(recorded.entries)
        self.hits.extend(recorded.hits)
        return PrizeShare.objects.create(
            level=self.level,
            hand=hand,
            hit=recorded.hits[0],
            opened_at=at,
            closes_at=at + window,
            percent=line.percent,
            base_mc=recorded.award.locked_mc,
            prize_cents=recorded.award.paid_cents,
        )

    def fixed_award(self, rate: Decimal) -> None:
        """Fixed prizes, paid by the house; at or above the threshold each is a hit of its own."""
        threshold = self.posted.table.venue.handpay_threshold_cents
        for seat in self.playing:
            line = self.lines.get(seat.hand)
            if line is not None and line.kind == PayLine.Kind.FIXED:
                seat.fixed_cents = line.fixed_cents
                if seat.fixed_cents >= threshold:
                    at, cents = self.posted.parsed.at, seat.fixed_cents
                    seat.fixed_hit = _fixed_hit_record(
                        self.level, self.state, at, cents, self.reference, venue=self.posted.table.venue
                    )
            seat.award_cents = convert_cents(seat.fixed_cents, rate)


def _round_finish(recorded: _Recorded) -> dict:
    """After the level write: the round's place among the level's hits and its stored answer."""
    round_ = recorded.round_
    round_.hit_number = Hit.objects.filter(level_id=round_.level_id).aggregate(n=Max("number"))["n"] or 0
    round_.response = round_answer(round_, None if recorded.shares else recorded.seats)
    round_.save()
    return round_.response


def _fixed_hit_record(
    level: Level, state: core.State, at: datetime, cents: int, reference: str, *, venue: Venue
) -> Hit:
    """A fixed prize at or above the two-person threshold: a hit in the queue that moves nothing on the
    level (the house pays it). Recorded after the round's percentage prizes, so it never shares their
    value sequence (the engine's mark of the winners of one award)."""
    recorded = award_record_locked(
        level,
        state,
        at=at,
        kind=HitKind.TABLE,
        mode=core.AwardMode.FIXED,
        value=cents,
        reference=reference,
        venue=venue,
    )
    return recorded.hits[0]
