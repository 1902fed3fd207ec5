"""What the table games tell the apps above them, without importing them (the one-way house).

A table round is recorded under its level's lock in one transaction (``services/rounds.py``). An app above
that must write something with every round, in the same transaction so that the round is never recorded
without it nor the other way (linksite: the round's entries owed to a wide-area link), registers a
``round_recorded`` listener once, in its ``AppConfig.ready()``. Unlike the engine's after-commit
listeners, these run inside the round's transaction and a failure is not swallowed: the round rolls back
with it.

Providers are asked, their answers used at once: ``percent_award_deferred`` says a progressive's
percentage prizes are decided elsewhere (linksite: by the link of a wide-area pool), so the round records
its bets and fixed prizes and takes nothing from the local level.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tables.models import Table, TableRound, TableSeat


@dataclass(frozen=True)
class SeatBet:
    """One seat of a recorded round as a listener needs it; ``bet_cents`` in the venue's currency.
    ``playing``: the seat's jackpot bet takes part in the prizes (a bet, and no changed card)."""

    seat: int
    bet_cents: int
    playing: bool
    hand: str


@dataclass(frozen=True)
class RoundRecorded:
    """A new round, told inside its transaction. ``rate``: 1 unit of the progressive's currency = ``rate``
    units of the venue's (``currency``), as the round recorded it. ``percent_hands``: the hands the pay
    table pays with a percentage of the progressive (Jumbo 7: the 7-card straight flush)."""

    round_: TableRound
    seats: list[TableSeat]
    table: Table
    progressive_id: int
    game: str
    at: datetime
    currency: str
    rate: Decimal
    bets: list[SeatBet]
    percent_hands: frozenset[str]

    @property
    def wagered_cents(self) -> int:
        """The round's jackpot bets, venue cents (every bet feeds the progressive)."""
        return sum(bet.bet_cents for bet in self.bets)

    @property
    def playing(self) -> list[SeatBet]:
        return [bet for bet in self.bets if bet.playing]

    @property
    def percent_won(self) -> bool:
        """A playing seat holds a hand paid with a percentage of the progressive."""
        return any(bet.hand in self.percent_hands for bet in self.playing)


@dataclass
class TablesHooks:
    # A round was recorded, inside its transaction (linksite: its entries in the outbox to the link).
    round_recorded: list[Callable[[RoundRecorded], object]] = field(default_factory=list)
    # Whether a progressive's percentage prizes are decided elsewhere (linksite: a linked pool's).
    percent_award_deferred: list[Callable[[int], bool]] = field(default_factory=list)


hooks = TablesHooks()


def round_recorded(
    round_: TableRound, seats: list[TableSeat], table: Table, percent_hands: frozenset[str]
) -> None:
    """Tells every listener of the new round (its seats saved), in the caller's transaction; an exception
    rolls the round back."""
    if not hooks.round_recorded:
        return
    bets = [
        SeatBet(s.seat, s.jackpot_bet_cents, s.jackpot_bet_cents > 0 and not s.changed_card, s.hand)
        for s in seats
    ]
    event = RoundRecorded(
        round_=round_,
        seats=seats,
        table=table,
        progressive_id=table.progressive_id,
        game=table.game,
        at=round_.at,
        currency=round_.currency,
        rate=Decimal(round_.rate),
        bets=bets,
        percent_hands=percent_hands,
    )
    for listener in hooks.round_recorded:
        listener(event)


def percent_award_deferred(progressive_id: int) -> bool:
    return any(ask(progressive_id) for ask in hooks.percent_award_deferred)
