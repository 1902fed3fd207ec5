"""The link's pure arithmetic and its order of play (``docs/wide-area.md``): no database.

The link keeps every entry a site sends as it arrives and applies the settled ones to the pool, an engine
level of this installation, in the order of play across sites. This module says which entries are settled,
in what order they go, what a contribution adds and what a claim wins, on the engine's own pure level
(``jackpots.services.core``: ``contribute``, ``award``), so the link's pool grows, pays and resets exactly
as any level does. ``services.apply`` writes what it returns.

Money is integer: a site's bets in its cents, the pool in millicents, rates exact ``Decimal``s; every
conversion rounds down (``jackpots.currency``, the product's one rule), so no site is ever credited or paid
more money than was there.

Invariants (held by ``tests/linkcentral/test_core_properties.py`` against an independent model):
- order: entries go by (played_at, site code, seq); at one instant every contribution goes in before any
  claim, and the claims of that instant share ONE prize among all their bets. So a claim wins the pool as
  it stood at its instant of play, its own round's and every other round's of that instant included, and
  a claim at a later instant wins from the reset.
- the result depends only on the set of settled entries, never on the order they arrived in.
- conservation, over a run: the pool's current + reserve + overflow after it == before + each contribution's
  share (the engine's carry rule, on its bets converted down to the pool's cents) + each reset's seed -
  each prize (whole cents, as the engine pays a whole award; the sub-cent rest stays in the pool).
- parts: a prize (whole cents) is divided among every Jumbo 7 bet of the winning round(s) by its bet in
  the pool's cents, in whole cents, as the tables divide a Jumbo 7 locally (``tables.rules.split_by_weight``:
  each part rounded down, the cents left one each to the largest remainders, equal remainders to the
  earlier bet), so a player's part is the same whether the Jumbo 7 is played locally or across casinos.
  The parts add up to the prize; each is within one cent of its proportional share.
- a site's parts converted down to its cents never add up to more than the prize converted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from itertools import groupby
from typing import Final, Literal

from common.money import MC_PER_CENT
from jackpots.currency import convert_cents, convert_cents_back
from jackpots.services import core
from jackpots.services.machine_split import largest_remainder

CONTRIBUTION: Final = "contribution"
CLAIM: Final = "claim"
Kind = Literal["contribution", "claim"]


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry a site sent, as the arithmetic needs it. (site, seq) is its identity; ``ref`` is the
    caller's handle on it (the ``LinkEntry`` id), carried along untouched."""

    site: str
    seq: int
    played_at: datetime
    kind: Kind
    rate: Decimal  # 1 unit of the pool's currency = ``rate`` units of the site's
    wagered_cents: int = 0  # a contribution: the round's Jumbo 7 bets, in the site's cents
    bets: int = 0  # a claim: the Jumbo 7 bets of the round, who share the prize
    # A claim: each bet as (seat, bet in the site's cents), in the order the site sent them; one per bet.
    seats: tuple[tuple[int, int], ...] = ()
    ref: int | None = None


@dataclass(frozen=True, slots=True)
class Applied:
    """An entry gone into the pool: the cycle it went into (a claim: the cycle it won), its bets in the
    pool's cents, the engine's movement (a claim's is its award's, see ``Award``: none here) and the
    level after it."""

    entry: Entry
    cycle: int
    pool_cents: int
    movement: core.Movement
    state: core.State


@dataclass(frozen=True, slots=True)
class Part:
    """One bet's part of a prize: ``number`` 1.. in the order of play (then the seat's place in its claim);
    ``bet_cents`` the bet in the site's cents, ``weight`` the bet's weight in the prize (``bet_weight``),
    ``amount_mc`` the part, whole cents in millicents."""

    number: int
    entry: Entry
    seat: int
    bet_cents: int
    weight: int
    amount_mc: int


@dataclass(frozen=True, slots=True)
class Award:
    """The prize of one instant of play: taken whole from ``before`` (the level with every contribution of
    that instant in), the engine's movement, the level after the reset, and one part per bet."""

    played_at: datetime
    cycle: int
    claims: tuple[Entry, ...]
    before: core.State
    prize_mc: int
    movement: core.Movement
    state: core.State
    parts: tuple[Part, ...]


@dataclass(frozen=True, slots=True)
class Run:
    """What applying a list of settled entries did: the level after them, each entry's record in the order
    of play, and the awards in order."""

    state: core.State
    applied: tuple[Applied, ...]
    awards: tuple[Award, ...]


def pool_cents(wagered_cents: int, rate: Decimal) -> int:
    """A site's bets in the pool's cents: floor(wagered / rate) (``jackpots.currency``'s one rule)."""
    if wagered_cents < 0 or rate <= 0:
        raise ValueError("bets must not be negative and a rate must be positive")
    return convert_cents_back(wagered_cents, rate)


def site_cents(pool_mc: int, rate: Decimal) -> int:
    """Pool millicents in a site's cents: floor(pool_mc x rate / 1000). Flooring the exact product once
    (``convert_cents`` on millicents, then whole cents) never pays more than the millicents were worth."""
    if pool_mc < 0 or rate <= 0:
        raise ValueError("an amount must not be negative and a rate must be positive")
    return convert_cents(pool_mc, rate) // MC_PER_CENT


def settled_horizon(throughs: Iterable[datetime | None], now: datetime, settle: timedelta) -> datetime:
    """The instant before which every entry is settled: the minimum over the active members of
    max(through, now - settle). A member never heard from (None) counts as now - settle: the link waits for
    no site longer than the settle window. No member at all: now - settle."""
    floor = now - settle
    return min((floor if through is None else max(through, floor) for through in throughs), default=floor)


def order_key(entry: Entry) -> tuple[datetime, str, int]:
    """The order of play across sites: the round's time, then the site's code, then its seq."""
    return entry.played_at, entry.site, entry.seq


def entries_order(entries: Iterable[Entry], horizon: datetime) -> list[Entry]:
    """The settled entries (played strictly before ``horizon``) in the order of play."""
    return sorted((entry for entry in entries if entry.played_at < horizon), key=order_key)


def bet_weight(bet_cents: int, rate: Decimal) -> int:
    """A bet's weight in a prize: the bet in the pool's cents, as the tables weigh a Jumbo 7 seat
    (``TableSeat.bet_pool_cents``: ``pool_cents``, down to the cent), but never below 1.

    The floor: the tables' ``split_by_weight`` refuses a weight of 0, and a positive bet that converts to
    less than a pool cent (a tiny bet at a large rate) would make it fail; at the link such a claim would
    stop the pool for good. Every seat that bet shares (the table rule: "divided among every seat that
    bet in the round"), so such a bet weighs 1 cent, the least a bet weighs anywhere. Wherever the tables
    can divide a prize (every weight at least 1 cent) this is their weight exactly."""
    if bet_cents < 1:
        raise ValueError("a bet that shares a prize is at least a cent")
    return max(pool_cents(bet_cents, rate), 1)


def parts_split(prize_cents: int, weights: Sequence[int]) -> list[int]:
    """``prize_cents`` divided by ``weights`` (in their order), in whole cents: each part is
    floor(prize x weight / total), and the cents left go one each to the largest remainders, equal ones to
    the earlier part (``largest_remainder`` keyed by the part's index: ``tables.rules.split_by_weight``'s
    rule, which linkcentral may not import, being on the tables' layer)."""
    if prize_cents < 0 or not weights or min(weights) < 1:
        raise ValueError("a prize must not be negative and needs at least one bet, each weighing a cent")
    return largest_remainder(prize_cents, list(enumerate(weights)))


def claim_bets(claims: Sequence[Entry]) -> list[tuple[Entry, int, int]]:
    """Every bet of the claims in order (the claims' order, then the seat's place in its claim) as
    (claim, seat, bet in the site's cents). A claim names the seat and bet of each of its bets."""
    bets: list[tuple[Entry, int, int]] = []
    for claim in claims:
        if len(claim.seats) != claim.bets:
            raise ValueError("a claim names the seat and the bet of each of its bets")
        bets.extend((claim, seat, bet_cents) for seat, bet_cents in claim.seats)
    return bets


def entries_run(
    params: core.Params,
    state: core.State,
    entries: Iterable[Entry],
    *,
    next_params: core.Params | None = None,
) -> Run:
    """Applies ``entries`` (settled; taken in the order of play whatever order they come in) to the level.

    Instant by instant: the contributions of the instant grow the pool (``core.contribute`` on their bets
    in the pool's cents), then the claims of the instant, if any, win the pool whole in ONE award
    (``core.award``, WHOLE, one winner: whole cents, the sub-cent rest stays) divided among all their bets
    by their weights (``bet_weight``, ``parts_split``);
    the level resets with ``next_params`` (the staged parameters; default ``params``), and a later instant
    plays on the new cycle. Claims with no bet between them win nothing (no prize, no reset)."""
    applied: list[Applied] = []
    awards: list[Award] = []
    ordered = sorted(entries, key=order_key)
    for played_at, group in groupby(ordered, key=lambda entry: entry.played_at):
        claims: list[Entry] = []
        for entry in group:
            if entry.kind == CLAIM:
                claims.append(entry)
                continue
            converted = pool_cents(entry.wagered_cents, entry.rate)
            state, moved = core.contribute(params, state, converted)
            applied.append(Applied(entry, state.cycle, converted, moved, state))
        if claims:
            state, award = _claims_award(params, state, played_at, claims, next_params or params)
            if award is not None:
                awards.append(award)
                params = next_params or params
            cycle = award.cycle if award is not None else state.cycle
            applied.extend(Applied(claim, cycle, 0, core.Movement(), state) for claim in claims)
    return Run(state, tuple(applied), tuple(awards))


def _claims_award(
    params: core.Params,
    state: core.State,
    played_at: datetime,
    claims: list[Entry],
    next_params: core.Params,
) -> tuple[core.State, Award | None]:
    """The claims of one instant win the pool as it stands, in one prize shared by all their bets."""
    bets = claim_bets(claims)
    if not bets:
        return state, None
    after, moved, won = core.award(params, state, core.AwardMode.WHOLE, winners=1, next_params=next_params)
    weights = [bet_weight(bet_cents, entry.rate) for entry, _, bet_cents in bets]
    amounts = parts_split(won.paid_cents, weights)
    parts = tuple(
        Part(number, entry, seat, bet_cents, weight, cents * MC_PER_CENT)
        for number, ((entry, seat, bet_cents), weight, cents) in enumerate(
            zip(bets, weights, amounts, strict=True), start=1
        )
    )
    award = Award(played_at, state.cycle, tuple(claims), state, moved.awarded_mc, moved, after, parts)
    return after, award


def runs_split(entries: Sequence[Entry]) -> list[list[Entry]]:
    """Ordered entries cut after each instant that has a claim: each piece ends with (at most) one award,
    so a caller can record each award (and the parameters its reset stages) before the next piece."""
    pieces: list[list[Entry]] = [[]]
    for _, group in groupby(entries, key=lambda entry: entry.played_at):
        instant = list(group)
        pieces[-1].extend(instant)
        if any(entry.kind == CLAIM for entry in instant):
            pieces.append([])
    return [piece for piece in pieces if piece]
