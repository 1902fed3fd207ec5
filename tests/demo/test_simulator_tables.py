"""The demo's table rounds: dealt from one deck, rare hands that are exactly the hand named, posted
through the real tables API with each table's key, so the signs move and the big prizes reach the desk."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from django.test import Client

from demo import simulator_tables
from demo.simulator_tables import (
    RARE_HANDS,
    TableSimulator,
    round_deal,
    table_keys_issue,
    tables_load,
)
from jackpots.models import Hit
from tables.cards import card_parse
from tables.models import PrizePart, TableKey, TableRound, TableSeat
from tables.rules import Game, Hand, hand_of
from tables.seed import tables_seed


class Answer:
    def __init__(self, status: int) -> None:
        self.status = status


class ApiTableSimulator(TableSimulator):
    """The simulator with its HTTP request made through Django's test client: the same view, the same
    key check, the same answer, without a server."""

    client = Client()
    bodies: list[dict]

    def request(self, table, body, headers):
        self.bodies.append(json.loads(body))
        response = self.client.post(
            f"/api/v1/tables/{table.code}/rounds",
            body,
            content_type="application/json",
            HTTP_AUTHORIZATION=headers["Authorization"],
        )
        return Answer(response.status_code), response.content


def hand_dealt(game: str, seat_cards: list[str], community: list[str]) -> str:
    return hand_of(game, [card_parse(c) for c in seat_cards], [card_parse(c) for c in community])


@pytest.mark.parametrize(("game", "hand"), [(g, h) for g, hands in RARE_HANDS.items() for h in hands])
def test_a_rare_deal_is_exactly_the_hand_it_names_from_one_deck(game: str, hand: str) -> None:
    for seed in range(60):
        rng = random.Random(seed)
        hands, community = round_deal(game, 7, rng, rare=hand)

        assert hand_dealt(game, hands[0], community) == hand
        cards = [card for seat in hands for card in seat] + community
        assert len(cards) == len(set(cards)) == 7 * (5 if game == Game.CARIBBEAN_STUD else 2) + len(community)
        assert len(community) == (5 if game == Game.CASINO_HOLDEM else 0)


def run_tables(seconds: int, seed: int = 11) -> ApiTableSimulator:
    tables_seed()
    tables = tables_load()
    simulator = ApiTableSimulator(
        url="http://unused", keys=table_keys_issue(tables), tables=tables, rng=random.Random(seed), run_id="T"
    )
    simulator.bodies = []
    simulator.schedule(0.0)
    for now in range(seconds):
        simulator.step(float(now))
    return simulator


@pytest.mark.django_db
def test_every_table_plays_rounds_through_the_api_with_its_own_key() -> None:
    simulator = run_tables(600)

    # A round refused level_pending (a declaration the simulated supervisor then releases) is posted
    # again: count rounds, not posts.
    posted = Counter(r.rsplit("-", 2)[0] for r in {body["round"] for body in simulator.bodies})
    stored = Counter(TableRound.objects.values_list("table__code", flat=True))
    assert stored == posted
    assert set(stored) == {"NOG-CHE-1", "NOG-CSP-1", "NOG-CSP-2", "VEN-CHE-1", "VEN-CSP-1"}
    # A round every 15 to 30 s: in 600 s, 20 to 41 rounds a table.
    assert all(20 <= count <= 41 for count in stored.values()), stored
    assert (simulator.totals.rounds, simulator.totals.errors) == (sum(stored.values()), 0)
    # Each table's key was used (and only by that table).
    for key in TableKey.objects.select_related("table"):
        assert key.last_used_at is not None, key.table.code
    # The server's evaluation of every seat is the hand its cards make.
    for body in simulator.bodies:
        code = body["round"].rsplit("-", 2)[0]
        game = Game.CARIBBEAN_STUD if "-CSP-" in code else Game.CASINO_HOLDEM
        seats = TableSeat.objects.filter(round__table__code=code, round__round_id=body["round"]).order_by(
            "seat"
        )
        assert [s.hand for s in seats] == [
            hand_dealt(game, s["cards"], body["community"]) for s in body["seats"]
        ]
        bets = {s["jackpot_bet"] for s in body["seats"]}
        assert bets == {100} if game == Game.CARIBBEAN_STUD else bets <= {100, 200, 300, 400, 500}


@pytest.mark.django_db
def test_rare_hands_move_the_signs_and_the_big_prizes_reach_the_desk(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every round a rare one, and the rarest: each Caribbean Stud round a Royal Flush, each Jumbo 7 round
    # a 7-card straight flush.
    monkeypatch.setattr(simulator_tables, "RARE_HAND_ONE_IN", 1)
    monkeypatch.setattr(
        simulator_tables,
        "RARE_HANDS",
        {Game.CARIBBEAN_STUD: {Hand.ROYAL_FLUSH: 1}, Game.CASINO_HOLDEM: {Hand.STRAIGHT_FLUSH_7: 1}},
    )
    simulator = run_tables(120)

    rounds = Counter("CSP" if "-CSP-" in r else "CHE" for r in {b["round"] for b in simulator.bodies})
    royal = TableSeat.objects.filter(round__table__game=Game.CARIBBEAN_STUD, hand=Hand.ROYAL_FLUSH)
    seven = TableSeat.objects.filter(round__table__game=Game.CASINO_HOLDEM, hand=Hand.STRAIGHT_FLUSH_7)
    assert (royal.count(), seven.count()) == (rounds["CSP"], rounds["CHE"])
    assert simulator.totals.rare == rounds["CSP"] + rounds["CHE"]
    # A Royal Flush takes the whole Caribbean Stud meter (at least its €10,000 reset), a 7-card straight
    # flush the whole Jumbo 7 pool (at least the €9,496.86 it opens at). (Same-hand prizes within the pay
    # table's 60 s window are one prize divided between the winners, so there may be fewer prizes than
    # winning seats, depending on how long the rounds took.) Each winner's part waits at the hits desk
    # when it is at or above its venue's €1,200 two-person threshold, else its table pays it (a Jumbo 7
    # pool divided among a round's seven bettors by their bets can leave small parts).
    for seats, least in ((royal, 1_000_000), (seven, 949_686)):
        prizes = {seat.share.hit for seat in seats.select_related("share__hit")}
        assert 1 <= len(prizes) <= seats.count()
        assert min(hit.amount_cents for hit in prizes) >= least
        parts = PrizePart.objects.filter(share__hit__in=prizes).select_related("seat__round__table__venue")
        assert parts.count() >= len(prizes)
        for part in parts:
            on_desk = part.amount_cents >= part.seat.round.table.venue.handpay_threshold_cents
            assert part.state == (PrizePart.State.OPEN if on_desk else PrizePart.State.PAID), part
        for hit in prizes:
            waiting = hit.prize_share.prize_parts.filter(state=PrizePart.State.OPEN).exists()
            assert hit.state == (Hit.State.HIT if waiting else Hit.State.PAID)
