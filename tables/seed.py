"""Seed of the table games: the Caribbean Stud and Jumbo 7 progressives, their pay tables and tables.

Figures the casino gives: the Jumbo 7 pay table (7-card straight flush 100% of the progressive, 6-card
€5,000, 5-card €250, Four of a Kind €50, Full House €5, Flush €4, Straight €2), its 3% of every bet to
the start of the next jackpot, and the Jumbo 7 pool on its rules page, €9,496.86, where our Jumbo 7
opens (JUMBO_7_OPENING_MC says why). Our defaults, configurable in the admin and documented in the
README: the Caribbean Stud pay table (the classic one: Royal Flush 100%, Straight Flush 10%, Four of a
Kind €500, Full House €100, Flush €50), the €1.00 Caribbean Stud jackpot chip, the levels' reset values
and rates. Idempotent: an existing object is left as it is.
"""

from __future__ import annotations

from decimal import Decimal

from floor.models import Room, Venue
from jackpots.models import Progressive
from jackpots.services import core
from jackpots.services.levels import level_create
from tables.models import PayLine, PayTable, Table
from tables.rules import Game, Hand

VENUES = {
    "VEN": ("Ca' Vendramin Calergi", "Cannaregio 2040, 30121 Venezia"),
    "NOG": ("Ca' Noghera", "via Paliaga 4/8, 30173 Tessera (VE)"),
}

CARIBBEAN_STUD = "Caribbean Stud Progressive"
JUMBO_7 = "Jumbo 7 Jackpot"

# hand -> (kind, percent or cents)
CARIBBEAN_STUD_LINES = [
    (Hand.ROYAL_FLUSH, PayLine.Kind.PERCENT, Decimal(100)),
    (Hand.STRAIGHT_FLUSH, PayLine.Kind.PERCENT, Decimal(10)),
    (Hand.FOUR_OF_A_KIND, PayLine.Kind.FIXED, 50_000),
    (Hand.FULL_HOUSE, PayLine.Kind.FIXED, 10_000),
    (Hand.FLUSH, PayLine.Kind.FIXED, 5_000),
]
JUMBO_7_LINES = [
    (Hand.STRAIGHT_FLUSH_7, PayLine.Kind.PERCENT, Decimal(100)),
    (Hand.STRAIGHT_FLUSH_6, PayLine.Kind.FIXED, 500_000),
    (Hand.STRAIGHT_FLUSH_5, PayLine.Kind.FIXED, 25_000),
    (Hand.FOUR_OF_A_KIND, PayLine.Kind.FIXED, 5_000),
    (Hand.FULL_HOUSE, PayLine.Kind.FIXED, 500),
    (Hand.FLUSH, PayLine.Kind.FIXED, 400),
    (Hand.STRAIGHT, PayLine.Kind.FIXED, 200),
]

# Where the Jumbo 7 progressive opens. It is shared by several casinos and never starts from nothing: the
# pool our tables join is the network's, and the casino's Casino Hold'em rules page (seeds, 004) shows it
# at €9,496.86 ("SCALA COLORE A 7 CARTE € 9,496.86"). Seeding it at its reset value, nought, showed €0,00
# on every sign until the first bets: a jackpot nobody would play for. Its reset value stays nought (the
# casino: 3% of every bet starts the next jackpot, from the reserve), so after a hit it restarts from
# what the bets put aside, as the rules say; only the first cycle opens at the documented figure.
JUMBO_7_OPENING_MC = 949_686 * 1000

# (game, progressive, pay table, level parameters). Caribbean Stud, our defaults: reset
# €10,000, 35% of each chip to the meter and 5% to the next start. Jumbo 7, the casino: 3% of every bet
# starts the next jackpot, so the reset value is nought and the next cycle starts at the reserve; the 12%
# to the meter is our default.
PROGRESSIVES = [
    (
        Game.CARIBBEAN_STUD,
        CARIBBEAN_STUD,
        CARIBBEAN_STUD_LINES,
        {"reset_mc": 1_000_000_000, "rate": Decimal("0.35"), "reserve_rate": Decimal("0.05")},
    ),
    (
        Game.CASINO_HOLDEM,
        JUMBO_7,
        JUMBO_7_LINES,
        {"reset_mc": 0, "rate": Decimal("0.12"), "reserve_rate": Decimal("0.03")},
    ),
]

# (code, venue, game)
TABLES = [
    ("VEN-CSP-1", "VEN", Game.CARIBBEAN_STUD),
    ("NOG-CSP-1", "NOG", Game.CARIBBEAN_STUD),
    ("NOG-CSP-2", "NOG", Game.CARIBBEAN_STUD),
    ("VEN-CHE-1", "VEN", Game.CASINO_HOLDEM),
    ("NOG-CHE-1", "NOG", Game.CASINO_HOLDEM),
]


def pay_table_ensure(
    progressive: Progressive,
    game: str,
    lines: list[tuple[str, str, Decimal | int]],
    opening_mc: int | None = None,
    **level_params_,
) -> PayTable:
    pay_table = PayTable.objects.filter(progressive=progressive).first()
    if pay_table is not None:
        return pay_table
    level = progressive.levels.order_by("position", "id").first() or level_create(
        progressive, name="Jackpot", position=1, params=core.Params(**level_params_), opening_mc=opening_mc
    )
    pay_table = PayTable.objects.create(progressive=progressive, level=level, game=game)
    PayLine.objects.bulk_create(
        PayLine(
            pay_table=pay_table,
            hand=hand,
            kind=kind,
            percent=value if kind == PayLine.Kind.PERCENT else None,
            fixed_cents=value if kind == PayLine.Kind.FIXED else None,
        )
        for hand, kind, value in lines
    )
    return pay_table


def tables_seed(jumbo_7_opening_mc: int | None = JUMBO_7_OPENING_MC) -> None:
    """``jumbo_7_opening_mc``: where a new Jumbo 7 level opens (None: at its reset value, nought)."""
    venues = {
        code: Venue.objects.get_or_create(code=code, defaults={"name": name, "address": address})[0]
        for code, (name, address) in VENUES.items()
    }
    progressives = {}
    for game, name, lines, params in PROGRESSIVES:
        opening_mc = jumbo_7_opening_mc if game == Game.CASINO_HOLDEM else None
        progressive = Progressive.objects.get_or_create(
            name=name, defaults={"kind": Progressive.Kind.WIDE_AREA, "currency": "EUR"}
        )[0]
        pay_table_ensure(progressive, game, lines, opening_mc, **params)
        progressives[game] = progressive
    for code, venue_code, game in TABLES:
        venue = venues[venue_code]
        Table.objects.get_or_create(
            code=code,
            defaults={
                "venue": venue,
                "room": Room.objects.filter(venue=venue).order_by("number").first(),
                "game": game,
                "progressive": progressives[game],
                "jackpot_bet_cents": 100 if game == Game.CARIBBEAN_STUD else None,
                "min_jackpot_bet_cents": 100,
                "max_jackpot_bet_cents": 100_000,
            },
        )
