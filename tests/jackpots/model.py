"""An independent, closed-form model of one level, for the property tests.

Unlike the engine (incremental, carry base), it recomputes each cycle from scratch with Fractions:
displayed added = floor(cycle wagered x rate), current = min(start + added, limit), the rest overflow.
``replay`` plays a stream of games and jackpot reports over several levels in a given order (the order of
play, or the engine's documented order: batch, then place in play) with the eligibility rule of a hit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction

from jackpots.services.core import Params


@dataclass
class ModelLevel:
    params: Params
    start: int = 0
    reserve_start: int = 0
    cycle_wagered: int = 0
    awards_mc: list[int] = field(default_factory=list)
    seeded: int = 0

    def __post_init__(self) -> None:
        self.start = self.params.reset_mc
        self.seeded = self.params.reset_mc

    def _floor(self, wagered: int, rate) -> int:
        return int(Fraction(wagered) * 1000 * Fraction(rate) // 1)

    @property
    def added(self) -> int:
        return self._floor(self.cycle_wagered, self.params.rate)

    @property
    def current(self) -> int:
        limit = self.params.limit_mc
        return (
            self.start + self.added if limit is None else min(self.start + self.added, max(limit, self.start))
        )

    @property
    def overflow(self) -> int:
        return self.start + self.added - self.current

    @property
    def reserve(self) -> int:
        return self.reserve_start + self._floor(self.cycle_wagered, self.params.reserve_rate)

    @property
    def contributed(self) -> int:
        return self.total_contributed + self.added + self._floor(self.cycle_wagered, self.params.reserve_rate)

    total_contributed: int = 0

    def trigger(self, randbelow) -> int | None:
        """The cycle's mystery trigger: uniform strictly between this cycle's start and the limit; the start
        itself when no millicent lies between them (it hits on its next wager)."""
        limit = self.params.limit_mc
        if not self.params.mystery or limit is None:
            return None
        between = range(self.start + 1, limit)
        return between[randbelow(len(between))] if between else self.start

    def wager(self, cents: int) -> None:
        self.cycle_wagered += cents

    def hit(self, machine_paid_cents: int | None = None) -> int:
        """The whole amount in whole cents; a machine that credited the win itself takes no more than it
        paid, the rest staying in the pool for the next cycle."""
        paid = self.current // 1000 * 1000
        if machine_paid_cents is not None:
            paid = min(paid, machine_paid_cents * 1000)
        pot = self.params.reset_mc + (self.current - paid) + self.reserve + self.overflow
        self.total_contributed += self.added + self._floor(self.cycle_wagered, self.params.reserve_rate)
        limit = self.params.limit_mc
        self.start = pot if limit is None else min(pot, limit)
        self.reserve_start = pot - self.start
        self.cycle_wagered = 0
        self.seeded += self.params.reset_mc
        self.awards_mc.append(paid)
        return paid // 1000


# --- The order of play, independently of the engine ----------------------------------------------------


@dataclass(frozen=True)
class Event:
    """A game or a jackpot report as the replay needs it; ``place`` is its place in the order of play."""

    machine_id: int
    seq: int
    at: datetime
    kind: str  # "game" or "jackpot"
    wager: int = 0
    is_max_bet: bool = False
    level_id: int | None = None
    paid_amount: int | None = None  # a report the machine paid itself: the cents it credited

    @property
    def place(self) -> tuple[datetime, int, int]:
        return self.at, self.machine_id, self.seq


@dataclass(frozen=True)
class ModelHit:
    level_id: int
    machine_id: int
    amount_cents: int
    late: bool


def _eligible(params: Params, wager: int, is_max_bet: bool) -> bool:
    return wager >= params.min_wager_cents and (is_max_bet or not params.max_bet_only)


def replay(order: list[Event], levels: dict[int, Params], randbelow: Callable[[int], int]) -> list[ModelHit]:
    """The hits of ``order`` (the events as the documented rule applies them) on member-only ``levels``.

    A report wins its level only if the machine's last game before it in seq order was eligible, among
    the games before it in ``order``: those the engine had stored when it applied the report, given that a
    machine's clock never runs backwards (its earlier games then come before it in play and in batches); a
    mystery level is won by the game that takes it to its trigger (each level's own ``trigger`` draws it
    with ``randbelow`` when the level opens and after each reset, as the engine's draw does). A hit is
    late when one numbered before it on its level was played after it."""
    games: dict[int, list[Event]] = {}  # each machine's games so far
    models = {lid: ModelLevel(params) for lid, params in levels.items()}
    trigger = {lid: models[lid].trigger(randbelow) for lid, params in levels.items() if params.mystery}
    latest: dict[int, tuple] = {}
    hits: list[ModelHit] = []

    def win(lid: int, event: Event) -> None:
        late = lid in latest and latest[lid] > event.place
        latest[lid] = max(latest.get(lid, event.place), event.place)
        hits.append(ModelHit(lid, event.machine_id, models[lid].hit(event.paid_amount), late))
        if levels[lid].mystery:
            trigger[lid] = models[lid].trigger(randbelow)

    for event in order:
        if event.kind == "jackpot":
            earlier = [g for g in games.get(event.machine_id, []) if g.seq < event.seq]
            game = max(earlier, key=lambda g: g.seq, default=None)
            params = levels[event.level_id]
            if not params.mystery and game is not None and _eligible(params, game.wager, game.is_max_bet):
                win(event.level_id, event)
            continue
        games.setdefault(event.machine_id, []).append(event)
        for lid, params in levels.items():
            if _eligible(params, event.wager, event.is_max_bet):
                models[lid].wager(event.wager)
                if params.mystery and models[lid].current >= trigger[lid]:
                    win(lid, event)
    return hits
