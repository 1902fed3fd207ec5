"""A thousand random rounds at all five tables, big hands dealt on purpose, voids in between: the
engine's audit stays clean and every level's wagered meter equals the bets of the rounds still standing."""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Sum

from floor.models import Venue
from jackpots.audit import jackpots_audit
from jackpots.models import ExchangeRate, Hit
from tables.cards import DECK, card_code
from tables.models import Table, TableDeclaration, TableRound
from tables.round_input import RoundError
from tables.seed import tables_seed
from tables.services import round_record, round_void
from tables.services.declarations import declaration_release
from tests.tables.factories import T0, assert_conserved

ROUNDS = 1_000
# Big hands and voids dealt more often than play would, so a thousand rounds reach every outcome.
BIG_HAND_RATE = 0.05
VOID_RATE = 0.13
BIG_HANDS = {
    "caribbean_stud": [
        ["AS", "KS", "QS", "JS", "TS"],
        ["9H", "8H", "7H", "6H", "5H"],
        ["AD", "KD", "QD", "JD", "TD"],
    ],
    # Hole cards, then the community that makes a 7-card straight flush with them.
    "casino_holdem": [(["3C", "5C"], ["AC", "2C", "4C", "6C", "7C"])],
}


def deal(rng: random.Random, table: Table, seats: int) -> tuple[list[dict], list[str]]:
    deck = [card_code(card) for card in DECK]
    rng.shuffle(deck)
    per_seat = 5 if table.game == "caribbean_stud" else 2
    big = rng.random() < BIG_HAND_RATE
    community: list[str] = []
    hands: list[list[str]] = []
    if table.game == "casino_holdem":
        if big:
            hole, community = BIG_HANDS["casino_holdem"][0]
            hands.append(hole)
        else:
            community = deck[:5]
    elif big:
        hands.append(rng.choice(BIG_HANDS["caribbean_stud"]))
    used = set(community) | {c for hand in hands for c in hand}
    rest = [c for c in deck if c not in used]
    while len(hands) < seats:
        hands.append(rest[:per_seat])
        rest = rest[per_seat:]
    rng.shuffle(hands)
    result = []
    for number, cards in enumerate(hands, start=1):
        if table.game == "caribbean_stud":
            bet = rng.choice([0, 100, 100, 100])
        else:
            bet = rng.choice([0, 100, 250, 1_000, 2_500])
        result.append(
            {
                "seat": number,
                "jackpot_bet": bet,
                "cards": cards,
                "changed_card": table.game == "caribbean_stud" and rng.random() < 0.1,
            }
        )
    return result, community


@pytest.mark.django_db
def test_random_rounds_with_voids_leave_the_audit_clean() -> None:
    manager = get_user_model().objects.create_user(username="floor-manager")  # big prizes need a person
    tables_seed()
    lugano = Venue.objects.create(code="LUG", name="Casinò Lugano", currency="CHF")
    jumbo = Table.objects.get(code="VEN-CHE-1").progressive
    Table.objects.create(venue=lugano, code="LUG-CHE-1", game="casino_holdem", progressive=jumbo)
    ExchangeRate.objects.create(base="EUR", quote="CHF", rate=Decimal("0.93712345"), valid_from=T0)
    tables = list(Table.objects.select_related("venue", "progressive__pay_table__level"))
    rng = random.Random(5)
    recorded: list[tuple[Table, str]] = []
    outcomes: Counter[str] = Counter()
    seconds = 0
    for n in range(ROUNDS):
        table = rng.choice(tables)
        seconds += rng.choice([1, 5, 30, 90])
        seats, community = deal(rng, table, rng.randint(1, 7))
        data = {
            "round": f"{table.code}-{n}",
            "at": (T0 + timedelta(seconds=seconds)).isoformat(),
            "community": community,
            "seats": seats,
        }
        try:
            answer, created = round_record(table, data)
        except RoundError as error:
            # A round played after a declaration waits for a supervisor to release it, then is posted.
            assert error.code == "level_pending"
            outcomes["level_pending"] += 1
            pending = TableDeclaration.objects.get(level=table.progressive.pay_table.level, state="pending")
            declaration_release(pending, manager, "hand verified")
            answer, created = round_record(table, data)
        assert created
        outcomes["prize" if any(s["award"]["progressive"] for s in answer["seats"]) else "plain"] += 1
        recorded.append((table, data["round"]))
        if rng.random() < VOID_RATE:
            victim_table, victim = rng.choice(recorded[-6:])
            try:
                round_void(victim_table, victim, reason="random void", user=manager)
                outcomes["voided"] += 1
            except RoundError as error:
                outcomes[error.code] += 1
        if n % 250 == 0:
            # A retry now and then answers the first answer and changes nothing.
            again, created = round_record(table, data)
            assert (again, created) == (answer, False)
    levels, found = jackpots_audit()
    assert [str(d) for d in found] == []
    assert levels == 2
    for table in tables:
        level = table.progressive.pay_table.level
        assert_conserved(level)
        standing = TableRound.objects.filter(level=level, state="recorded").aggregate(
            s=Sum("wagered_pool_cents")
        )
        level.refresh_from_db()
        assert level.wagered_cents == standing["s"]
    # The run exercised what it claims to: prizes taken, shared, voided and refused voids.
    # Prizes under the venue's threshold were paid at the table, the others wait for the floor.
    assert Hit.objects.filter(state="paid", table_payment__isnull=False).count() >= 10
    assert Hit.objects.filter(state="hit").count() >= 10
    assert Hit.objects.filter(state="voided").count() >= 1
    assert outcomes["voided"] >= 100
    assert outcomes["prize"] >= 20
    assert outcomes["later_hit"] >= 1
    assert outcomes["level_pending"] >= 1
