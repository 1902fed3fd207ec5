"""Applying a linked pool's settled entries to its level, in the order of play (``docs/wide-area.md``).

``pool_entries_apply`` runs under the pool level's row lock, through the one level write
(``jackpots.services.level_write.levels_write``): it reads the members' throughs and the unapplied entries
AFTER taking the lock, so two callers at once (a post's task and the periodic sweep) apply each entry once:
the second waits for the first's commit and then finds the entries applied. Nothing is applied twice: an
entry is applied exactly when ``applied_at`` is set, in the same transaction as its ledger row.

What it writes: one contribution ledger row per contribution (its reference names the site and seq, its
``at`` the time of play); for each instant whose claims win, the engine's Hit and hit ledger row
(``award_record_locked``, as the tables' prizes: the level's reset and staged parameters included), a
``LinkAward`` with one ``LinkAwardPart`` per bet (the prize divided by the bets in the pool's cents, as
the tables divide a Jumbo 7), each in the site's cents at its claim's recorded rate;
and each entry's ``applied_at`` and ``cycle``. The arithmetic is ``linkcentral.core``'s.

A level that is not active (suspended, retired) takes nothing: the entries wait, acknowledged, until it is.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import QuerySet
from django.utils import timezone

from common.money import MC_PER_CENT
from jackpots.models import Hit, HitKind, LedgerEntry, Level
from jackpots.services import core as engine
from jackpots.services.hit_recording import award_record_locked
from jackpots.services.level_write import Locked, Written, levels_write
from jackpots.services.levels import ledger_entry, level_params
from linkcentral import core
from linkcentral.models import LinkAward, LinkAwardPart, LinkedPool, LinkEntry, LinkMember

logger = logging.getLogger(__name__)


def entry_reference(site_code: str, seq: int) -> str:
    """``link CHX #42``: a ledger row's reference to the entry it applied."""
    return f"link {site_code} #{seq}"


def award_reference(claims: tuple[core.Entry, ...]) -> str:
    """The award's ledger reference: every claim that won it (cut to the ledger's 80 characters)."""
    return ("link " + ", ".join(f"{claim.site} #{claim.seq}" for claim in claims))[:80]


def entry_of(row: LinkEntry) -> core.Entry:
    """A stored entry as the arithmetic takes it (``ref`` is the row's id)."""
    kind: core.Kind = core.CLAIM if row.kind == LinkEntry.Kind.CLAIM else core.CONTRIBUTION
    return core.Entry(
        site=row.member.site.code,
        seq=row.seq,
        played_at=row.played_at,
        kind=kind,
        rate=row.rate,
        wagered_cents=row.wagered_cents,
        bets=row.bets,
        seats=tuple((int(bet["seat"]), int(bet["bet_cents"])) for bet in row.seats or []),
        ref=row.pk,
    )


def pool_horizon(pool: LinkedPool, now: datetime) -> datetime:
    """The instant before which the pool's entries are settled (``core.settled_horizon``)."""
    throughs = LinkMember.objects.filter(pool=pool, active=True).values_list("through", flat=True)
    return core.settled_horizon(list(throughs), now, timedelta(seconds=pool.settle_seconds))


def settled_unapplied(pool: LinkedPool, horizon: datetime) -> QuerySet[LinkEntry]:
    """The pool's entries not applied yet and played before ``horizon`` (the partial index's rows)."""
    return LinkEntry.objects.filter(member__pool=pool, applied_at__isnull=True, played_at__lt=horizon)


def pool_entries_apply(pool_id: int, now: datetime | None = None) -> int:
    """Applies the pool's settled, unapplied entries in the order of play; returns how many it applied.

    The sweep asks every pool every few seconds: a pool with nothing settled is answered without taking
    its level's lock (an entry stored after this look is applied by its post's task or the next sweep)."""
    pool = LinkedPool.objects.get(pk=pool_id)
    applying = _Applying(pool, now or timezone.now())
    if not settled_unapplied(pool, pool_horizon(pool, applying.now)).exists():
        return 0
    return levels_write([pool.level_id], applying.step).returned()


def pools_entries_apply(now: datetime | None = None) -> int:
    """Every pool, one by one (the periodic sweep: a settle window that passes with no post still applies).
    A pool that fails is logged and the others still apply; returns the entries applied in all."""
    applied = 0
    for pool_id in LinkedPool.objects.order_by("id").values_list("id", flat=True):
        try:
            applied += pool_entries_apply(pool_id, now)
        except Exception:
            logger.exception("linked pool %s: its entries could not be applied", pool_id)
    return applied


@dataclass
class _Applying:
    """One apply of a pool; ``step`` is its level write (the level locked)."""

    pool: LinkedPool
    now: datetime
    entries: list[LedgerEntry] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    done: list[core.Applied] = field(default_factory=list)

    def step(self, locked: Locked) -> Written[int]:
        level = locked.levels[self.pool.level_id]
        if not level.active:
            return Written(result=0)
        # The throughs first, the entries after: a post that commits in between adds entries this apply
        # may leave for the next, never a through without the entries it vouches for.
        horizon = pool_horizon(self.pool, self.now)
        unapplied = settled_unapplied(self.pool, horizon).select_related("member__site")
        rows = {row.pk: row for row in unapplied}
        ordered = core.entries_order([entry_of(row) for row in rows.values()], horizon)
        state = locked.state(level.id)
        for piece in core.runs_split(ordered):
            state = self._piece_apply(level, state, piece, rows)
        self._rows_mark(rows)
        return Written({level.id: state} if self.done else {}, self.entries, self.hits, result=len(self.done))

    def _piece_apply(
        self, level: Level, state: engine.State, piece: list[core.Entry], rows: dict[int, LinkEntry]
    ) -> engine.State:
        """Entries up to and including one instant's claims: the contributions' ledger rows, then the
        award through the engine's recording (which applies the staged parameters at the reset, so the
        next piece runs on the level's parameters as they then stand)."""
        params = level_params(level)
        run = core.entries_run(params, state, piece)
        for applied in run.applied:
            if applied.entry.kind == core.CONTRIBUTION and applied.movement.wagered_cents:
                reference = entry_reference(applied.entry.site, applied.entry.seq)
                self.entries.append(
                    ledger_entry(
                        level,
                        LedgerEntry.Kind.CONTRIBUTION,
                        applied.movement,
                        applied.state,
                        at=applied.entry.played_at,
                        params=params,
                        reference=reference,
                    )
                )
        self.done.extend(run.applied)
        if not run.awards:
            return run.state
        (award,) = run.awards  # a piece ends at the one instant whose claims win
        return self._award_record(level, award, rows)

    def _award_record(self, level: Level, award: core.Award, rows: dict[int, LinkEntry]) -> engine.State:
        recorded = award_record_locked(
            level,
            award.before,
            at=award.played_at,
            kind=HitKind.TABLE,
            mode=engine.AwardMode.WHOLE,
            reference=award_reference(award.claims),
        )
        if recorded.award.paid_cents * MC_PER_CENT != award.prize_mc:
            raise AssertionError("the engine's award and the link's arithmetic disagree")  # a defect
        self.entries.extend(recorded.entries)
        self.hits.extend(recorded.hits)
        link_award = LinkAward.objects.create(
            pool=self.pool,
            played_at=award.played_at,
            decided_at=self.now,
            amount_mc=award.prize_mc,
            cycle=award.cycle,
            hit=recorded.hits[0],
        )
        LinkAwardPart.objects.bulk_create(
            LinkAwardPart(
                award=link_award,
                entry=rows[_ref(part.entry)],
                number=part.number,
                seat=part.seat,
                amount_mc=part.amount_mc,
                # A part is whole cents: this is convert_cents(its cents, the claim's rate), down to the cent.
                site_cents=core.site_cents(part.amount_mc, part.entry.rate),
            )
            for part in award.parts
        )
        return recorded.state

    def _rows_mark(self, rows: dict[int, LinkEntry]) -> None:
        """Each applied entry: when, into which cycle, and its bets in the pool's cents. One UPDATE per
        cycle and pool-cents value found different from the one kept at receipt (none: the same rule made
        both): a backlog of thousands of entries is marked in a few statements. (A bulk_update's CASE per
        row made it quadratic: 17,200 entries held PostgreSQL for minutes.)"""
        by_change: dict[tuple[int, int | None], list[int]] = defaultdict(list)
        for applied in self.done:
            row = rows[_ref(applied.entry)]
            changed = applied.pool_cents if applied.pool_cents != row.wagered_pool_cents else None
            by_change[(applied.cycle, changed)].append(row.pk)
        for (cycle, pool_cents), ids in by_change.items():
            fields: dict[str, object] = {"applied_at": self.now, "cycle": cycle}
            if pool_cents is not None:
                fields["wagered_pool_cents"] = pool_cents
            LinkEntry.objects.filter(pk__in=ids).update(**fields)


def _ref(entry: core.Entry) -> int:
    if entry.ref is None:
        raise ValueError("an entry from the database carries its row's id")
    return entry.ref
