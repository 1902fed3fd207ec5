"""Table rounds for the demo: Caribbean Stud and Casino Hold'em (Jumbo 7) at both venues, posted through
the real tables API (``POST /api/v1/tables/<code>/rounds``) with one table key per table, as the tables'
own round posters would. The server evaluates every hand; the simulator only deals cards.

The pace, chosen for a demo rather than a casino: a round every 15 to 30 s per table (a real table deals
about one a minute), one to seven seats, every seat with a jackpot bet (Caribbean Stud: the table's fixed
chip; Jumbo 7: one to five times the table's minimum). Shuffled cards alone would leave the signs still
for days (a Royal Flush comes once in 650,000 hands), so in one round out of RARE_HAND_ONE_IN a seat is
dealt a rare hand drawn from RARE_HANDS by weight: with five tables that is a jackpot line every few
minutes, a Caribbean Stud Royal Flush (100% of the meter, a handpay for the desk) about once an hour and a
7-card straight flush for Jumbo 7 about once every 45 minutes. Dealt fairly otherwise: every card comes
from one shuffled deck, so no card appears twice in a round.
"""

from __future__ import annotations

import http.client
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlparse

from jackpots.services.errors import EngineError
from tables.cards import RANKS, SUITS
from tables.models import Table, TableDeclaration
from tables.rules import COMMUNITY_CARDS, Game, Hand
from tables.services import table_key_issue
from tables.services.declarations import declaration_release

ROUND_EVERY_SECONDS = (15.0, 30.0)
RARE_HAND_ONE_IN = 20
# hand -> weight, per game. Caribbean Stud 1 in 20 x 5/100 = a Royal Flush in 1 round of 400 per table.
RARE_HANDS = {
    Game.CARIBBEAN_STUD: {
        Hand.FLUSH: 40,
        Hand.FULL_HOUSE: 30,
        Hand.FOUR_OF_A_KIND: 15,
        Hand.STRAIGHT_FLUSH: 10,
        Hand.ROYAL_FLUSH: 5,
    },
    Game.CASINO_HOLDEM: {
        Hand.FOUR_OF_A_KIND: 40,
        Hand.STRAIGHT_FLUSH_5: 35,
        Hand.STRAIGHT_FLUSH_6: 17,
        Hand.STRAIGHT_FLUSH_7: 8,
    },
}
MAX_SEATS = 7


@dataclass
class SimTable:
    code: str
    venue: str
    game: str
    bet_cents: int  # Caribbean Stud's chip price; Jumbo 7's minimum
    max_bet_cents: int
    next_round: float = 0.0
    rounds: int = 0


@dataclass
class TableTotals:
    rounds: int = 0
    rare: int = 0
    awards: int = 0
    errors: int = 0


def tables_load() -> list[SimTable]:
    return [
        SimTable(
            code=table.code,
            venue=table.venue.code,
            game=table.game,
            bet_cents=(table.jackpot_bet_cents if table.game == Game.CARIBBEAN_STUD else None)
            or table.min_jackpot_bet_cents,
            max_bet_cents=table.max_jackpot_bet_cents,
        )
        for table in Table.objects.filter(active=True).select_related("venue").order_by("code")
    ]


def table_keys_issue(tables: list[SimTable]) -> dict[str, str]:
    """One new key per table, for this run."""
    by_code = {table.code: table for table in Table.objects.filter(code__in=[t.code for t in tables])}
    return {code: table_key_issue(table)[1] for code, table in by_code.items()}


# --- dealing -------------------------------------------------------------------------------------------


def _card(rank: int, suit: int) -> str:
    return RANKS[rank] + SUITS[suit]


def _run(rng: random.Random, length: int) -> list[int]:
    """Ranks of a straight of ``length`` (2 high up to the ace high; the ace-low wheel is left out)."""
    start = rng.randint(0, len(RANKS) - length)
    return list(range(start, start + length))


def _straight_flush(rng: random.Random, length: int, suit: int) -> list[str]:
    return [_card(rank, suit) for rank in _run(rng, length)]


def rare_cards(hand: str, rng: random.Random) -> list[str]:
    """Cards that make ``hand``: five for Caribbean Stud, seven (two hole cards first, then the five
    community cards) for Jumbo 7. Each is the hand and no better one."""
    suit = rng.randrange(4)
    if hand == Hand.ROYAL_FLUSH:
        return [_card(rank, suit) for rank in range(8, 13)]
    if hand == Hand.STRAIGHT_FLUSH:
        start = rng.randint(0, 7)  # up to K high: an ace-high one is the Royal Flush
        return [_card(rank, suit) for rank in range(start, start + 5)]
    if hand == Hand.STRAIGHT_FLUSH_7:
        return _straight_flush(rng, 7, suit)
    if hand in (Hand.STRAIGHT_FLUSH_6, Hand.STRAIGHT_FLUSH_5):
        length = 6 if hand == Hand.STRAIGHT_FLUSH_6 else 5
        cards = _straight_flush(rng, length, suit)
        # The rest off the run's suit, so the run cannot grow; a pair or more of other ranks cannot beat
        # a straight flush.
        others = list(range(13))
        rng.shuffle(others)
        cards += [_card(rank, (suit + 1 + i) % 4) for i, rank in enumerate(others[: 7 - length])]
        rng.shuffle(cards)
        return cards
    if hand == Hand.FOUR_OF_A_KIND:
        quad, kicker = rng.sample(range(13), 2)
        cards = [_card(quad, s) for s in range(4)] + [_card(kicker, suit)]
        return cards
    if hand == Hand.FULL_HOUSE:
        three, two = rng.sample(range(13), 2)
        suits = rng.sample(range(4), 3)
        return [_card(three, s) for s in suits] + [_card(two, s) for s in rng.sample(range(4), 2)]
    if hand == Hand.FLUSH:
        while True:
            ranks = sorted(rng.sample(range(13), 5))
            if ranks[-1] - ranks[0] != 4 and ranks != [0, 1, 2, 3, 12]:  # not a straight
                return [_card(rank, suit) for rank in ranks]
    raise ValueError(f"No rare deal for {hand}.")


def _padded(cards: list[str], deck: list[str], count: int) -> list[str]:
    """``cards`` and then cards from the deck, to ``count``."""
    return cards + [deck.pop() for _ in range(count - len(cards))]


def round_deal(game: str, seats: int, rng: random.Random, rare: str | None = None) -> tuple[list, list]:
    """(each seat's cards, community cards) from one shuffled deck; with ``rare``, seat 1 holds that hand
    (Jumbo 7: its two hole cards and the five community cards make it)."""
    forced = rare_cards(rare, rng) if rare else []
    deck = [_card(r, s) for r in range(13) for s in range(4) if _card(r, s) not in forced]
    rng.shuffle(deck)
    community_count = COMMUNITY_CARDS[game]
    if game == Game.CASINO_HOLDEM:
        hole = forced[:2] if forced else []
        community = _padded(forced[2:] if forced else [], deck, community_count)
        hands = [_padded(hole, deck, 2)] + [_padded([], deck, 2) for _ in range(seats - 1)]
    else:
        community = []
        hands = [_padded(forced, deck, 5)] + [_padded([], deck, 5) for _ in range(seats - 1)]
    return hands, community


# --- posting ---------------------------------------------------------------------------------------------


class TableSimulator:
    def __init__(
        self,
        *,
        url: str,
        keys: dict[str, str],
        tables: list[SimTable],
        rng: random.Random,
        rate: float = 1.0,
        run_id: str | None = None,
    ) -> None:
        self.url = urlparse(url.rstrip("/"))
        self.keys = keys
        self.tables = tables
        self.rng = rng
        self.rate = rate
        # Round ids are unique per table: a later run must not reuse one (it would get the first answer).
        self.run_id = run_id or datetime.now(UTC).strftime("%Y%m%d%H%M%S")
        self.totals = TableTotals()
        self.connection: http.client.HTTPConnection | None = None
        self.last_error = ""

    def schedule(self, now: float) -> None:
        for table in self.tables:
            table.next_round = now + self.rng.uniform(0, ROUND_EVERY_SECONDS[1]) / self.rate

    def round_make(self, table: SimTable) -> dict:
        """The body of the table's next round."""
        table.rounds += 1
        seats = self.rng.randint(1, MAX_SEATS)
        rare = None
        if self.rng.randrange(RARE_HAND_ONE_IN) == 0:
            choices = RARE_HANDS[table.game]
            rare = self.rng.choices(list(choices), weights=list(choices.values()))[0]
            self.totals.rare += 1
        hands, community = round_deal(table.game, seats, self.rng, rare)
        at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        body = {
            "round": f"{table.code}-{self.run_id}-{table.rounds:05d}",
            "at": at,
            "community": community,
            "seats": [
                {"seat": number, "jackpot_bet": self.bet_choose(table), "cards": cards}
                for number, cards in enumerate(hands, start=1)
            ],
        }
        return body

    def bet_choose(self, table: SimTable) -> int:
        if table.game == Game.CARIBBEAN_STUD:
            return table.bet_cents
        return min(table.max_bet_cents, table.bet_cents * self.rng.randint(1, 5))

    def step(self, now: float, post: Callable[[SimTable, dict], None] | None = None) -> None:
        for table in self.tables:
            if now >= table.next_round:
                (post or self.post)(table, self.round_make(table))
                table.next_round = now + self.rng.uniform(*ROUND_EVERY_SECONDS) / self.rate

    def post(self, table: SimTable, body: dict) -> None:
        self.totals.rounds += 1
        headers = {"Authorization": f"Bearer {self.keys[table.code]}", "Content-Type": "application/json"}
        # Twice at most: the server closes a connection left idle between rounds (keep-alive), and a retry
        # is safe, the round id makes it a duplicate answered as the first.
        for attempt in range(2):
            try:
                response, payload = self.request(table, json.dumps(body), headers)
                break
            except (OSError, http.client.HTTPException) as exc:
                self.connection = None
                if attempt == 1:
                    self.error_note(table, str(exc) or type(exc).__name__)
                    return
        if response.status == 409 and b'"level_pending"' in payload and declarations_release_demo():
            response, payload = self.request(table, json.dumps(body), headers)
        if response.status not in (200, 201):
            self.error_note(table, f"{response.status} {payload[:200].decode(errors='replace')}")
            return
        seats = json.loads(payload)["seats"]
        self.totals.awards += sum(1 for seat in seats if seat["award"]["amount"] > 0)

    def request(self, table: SimTable, body: str, headers: dict) -> tuple[http.client.HTTPResponse, bytes]:
        if self.connection is None:
            https = self.url.scheme == "https"
            factory = http.client.HTTPSConnection if https else http.client.HTTPConnection
            self.connection = factory(self.url.hostname, self.url.port, timeout=30)
        self.connection.request("POST", f"{self.url.path}/api/v1/tables/{table.code}/rounds", body, headers)
        response = self.connection.getresponse()
        return response, response.read()

    def error_note(self, table: SimTable, what: str) -> None:
        self.totals.errors += 1
        self.last_error = f"{table.code}: {what}"

    def progress_text(self) -> str:
        t = self.totals
        text = f"  table rounds {t.rounds} ({t.rare} rare, {t.awards} awards, {t.errors} errors)"
        return text + (f"  last error {self.last_error}" if self.last_error else "")


def declarations_release_demo() -> int:
    """The demo's floor supervisor: a Royal or Straight Flush declared at a table suspends the link's
    tables (issue 23) until someone releases it; the simulated floor has nobody at the desk, so it
    releases every pending declaration at once, on the record like a person's, and play goes on."""
    released = 0
    for declaration in TableDeclaration.objects.filter(state=TableDeclaration.State.PENDING):
        try:
            declaration_release(declaration, None, "Demo: the simulated supervisor saw the declared hand.")
        except EngineError:
            continue  # lapsed or released meanwhile
        released += 1
    return released
