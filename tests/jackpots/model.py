"""An independent, closed-form model of one level, for the property tests.

Unlike the engine (incremental, carry base), it recomputes each cycle from scratch with Fractions:
displayed added = floor(cycle wagered x rate), current = min(start + added, limit), the rest overflow."""

from __future__ import annotations

from dataclasses import dataclass, field
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

    def hit(self) -> int:
        paid = self.current // 1000 * 1000
        pot = self.params.reset_mc + (self.current - paid) + self.reserve + self.overflow
        self.total_contributed += self.added + self._floor(self.cycle_wagered, self.params.reserve_rate)
        limit = self.params.limit_mc
        self.start = pot if limit is None else min(pot, limit)
        self.reserve_start = pot - self.start
        self.cycle_wagered = 0
        self.seeded += self.params.reset_mc
        self.awards_mc.append(paid)
        return paid // 1000
