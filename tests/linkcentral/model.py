"""An independent model of the link's pool, for the property tests.

Unlike ``linkcentral.core`` (the engine's incremental carry, ``largest_remainder``, ``groupby``), it keeps
each cycle in closed form with Fractions: the cycle's bets in the pool's cents, added = floor(bets x rate),
current = min(start + added, limit), the rest overflow; it orders with a naive selection sort and finds
the instants with claims by plain loops. Written from ``docs/wide-area.md``, not from the code."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction

from jackpots.services.core import Params


def floor_of(x: Fraction) -> int:
    return x.numerator // x.denominator


def model_pool_cents(wagered_cents: int, rate: Decimal) -> int:
    return floor_of(Fraction(wagered_cents) / Fraction(str(rate)))


def model_site_cents(pool_mc: int, rate: Decimal) -> int:
    return floor_of(Fraction(pool_mc, 1000) * Fraction(str(rate)))


def model_weight(bet_cents: int, rate: Decimal) -> int:
    """A bet's weight: its pool cents, at least one (docs/wide-area.md; the tables' bet_pool_cents)."""
    return max(model_pool_cents(bet_cents, rate), 1)


def model_parts(prize_cents: int, weights: list[int]) -> list[int]:
    """The prize in cents by the weights: each exact share (a Fraction) rounded down, then each cent left
    to the largest fractional part still unserved, scanning from the first (so a tie goes to the earlier)."""
    total = sum(weights)
    shares = [Fraction(prize_cents * w, total) for w in weights]
    parts = [floor_of(share) for share in shares]
    served: set[int] = set()
    for _ in range(prize_cents - sum(parts)):
        best = -1
        for i, share in enumerate(shares):
            if i in served:
                continue
            if best < 0 or share - parts[i] > shares[best] - parts[best]:
                best = i
        served.add(best)
        parts[best] += 1
    return parts


def model_horizon(throughs: list[datetime | None], now: datetime, settle: timedelta) -> datetime:
    horizon = None
    for through in throughs:
        point = now - settle
        if through is not None and through > point:
            point = through
        if horizon is None or point < horizon:
            horizon = point
    return now - settle if horizon is None else horizon


@dataclass
class ModelEntry:
    site: str
    seq: int
    played_at: datetime
    kind: str
    rate: Decimal
    wagered_cents: int = 0
    bets: int = 0
    seats: tuple[tuple[int, int], ...] = ()  # (seat, bet in the site's cents)


def model_order(entries: list[ModelEntry]) -> list[ModelEntry]:
    """Selection sort by (played_at, site, seq)."""
    left = list(entries)
    out = []
    while left:
        best = left[0]
        for e in left[1:]:
            if (e.played_at, e.site, e.seq) < (best.played_at, best.site, best.seq):
                best = e
        left.remove(best)
        out.append(best)
    return out


@dataclass
class ModelAward:
    played_at: datetime
    cycle: int
    prize_mc: int
    parts: list[tuple[str, int, int, int, int]]  # (site, seq, seat, weight, amount_mc)


@dataclass
class ModelPool:
    params: Params
    start: int = -1
    reserve_start: int = 0
    cycle_wagered: int = 0  # pool cents this cycle
    cycle: int = 1
    seeded: int = 0
    contributed: int = 0  # closed cycles' added + reserved
    awarded: int = 0
    awards: list[ModelAward] = field(default_factory=list)
    cycles: dict[tuple[str, int], int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.start < 0:
            self.start = self.params.reset_mc
            self.seeded = self.params.reset_mc

    def _share(self, rate: Decimal) -> int:
        return floor_of(Fraction(self.cycle_wagered) * 1000 * Fraction(str(rate)))

    @property
    def added(self) -> int:
        return self._share(self.params.rate)

    @property
    def reserve(self) -> int:
        return self.reserve_start + self._share(self.params.reserve_rate)

    @property
    def current(self) -> int:
        limit = self.params.limit_mc
        whole = self.start + self.added
        return whole if limit is None else min(whole, max(limit, self.start))

    @property
    def overflow(self) -> int:
        return self.start + self.added - self.current

    def contribution(self, entry: ModelEntry) -> None:
        self.cycle_wagered += model_pool_cents(entry.wagered_cents, entry.rate)
        self.cycles[(entry.site, entry.seq)] = self.cycle

    def claims(self, played_at: datetime, claims: list[ModelEntry]) -> None:
        bets = [(c.site, c.seq, seat, model_weight(bet, c.rate)) for c in claims for seat, bet in c.seats]
        for c in claims:
            self.cycles[(c.site, c.seq)] = self.cycle
        if not bets:
            return
        prize = self.current // 1000 * 1000
        amounts = model_parts(prize // 1000, [weight for *_, weight in bets])
        parts = [(*bet, cents * 1000) for bet, cents in zip(bets, amounts, strict=True)]
        self.awards.append(ModelAward(played_at, self.cycle, prize, parts))
        reset = self.params.reset_mc
        pot = reset + (self.current - prize) + self.reserve + self.overflow
        self.contributed += self.added + self._share(self.params.reserve_rate)
        self.awarded += prize
        self.seeded += reset
        limit = self.params.limit_mc
        self.start = pot if limit is None else min(pot, max(limit, reset))
        self.reserve_start = pot - self.start
        self.cycle_wagered = 0
        self.cycle += 1

    def play(self, entries: list[ModelEntry]) -> None:
        """The entries in the order of play: at each instant the contributions, then the claims together."""
        ordered = model_order(entries)
        i = 0
        while i < len(ordered):
            j = i
            while j < len(ordered) and ordered[j].played_at == ordered[i].played_at:
                j += 1
            claims = [e for e in ordered[i:j] if e.kind == "claim"]
            for e in ordered[i:j]:
                if e.kind == "contribution":
                    self.contribution(e)
            if claims:
                self.claims(ordered[i].played_at, claims)
            i = j
