"""An award from the link: its parts on this site's hits desk, in francs, each paid once through the
desk's flow, the local level untouched; kept twice, recorded once; a part not found here is a fault."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from floor.models import Venue
from jackpots.audit import jackpots_audit
from jackpots.models import Hit, LedgerEntry
from jackpots.services import EngineError
from jackpots.services.states import level_suspend
from jackpots.services.winners import Winner
from linksite.models import LinkMembership, SiteAward
from linksite.services.mirror import awards_store
from tables.models import PrizePart, PrizeShare
from tables.services.parts import part_pay, part_verify
from tests.linksite.factories import COMMUNITY, linked_site
from tests.tables.factories import T0, Tables, assert_conserved, body, level_money, seat
from workspace.desk.selectors import desk_hits
from workspace.slips.services import slips_store

pytestmark = pytest.mark.django_db

WINNER = Winner("Lara Bernasconi", "passport", "X1234567", "CH")


def _part(number: int, seat_no: int, amount_mc: int, site_cents: int, round_: str = "LUG-CHE-1:L-1") -> dict:
    return {
        "number": number,
        "seq": 2,
        "round": round_,
        "seat": seat_no,
        "amount_mc": amount_mc,
        "site_cents": site_cents,
        "rate": "0.93710000",
    }


# The link's prize of €4,763.50 divided by the bets (1,000 / 2,000 / 500 CHF), each part converted to
# francs at the claim's rate 0.9371, down to the cent.
AWARD = {
    "id": 17,
    "played_at": "2036-11-21T18:00:05.000Z",
    "decided_at": "2036-11-21T18:02:00.000Z",
    "amount_mc": 476_350_000,
    "parts": [
        _part(1, 1, 136_100_000, 127_539),
        _part(2, 2, 272_200_000, 255_078),
        _part(3, 3, 68_050_000, 63_769),
    ],
}


def _linked_round() -> tuple[Tables, LinkMembership]:
    """Lugano's round L-1: seat 1 holds the 7-card straight flush, claimed for the link."""
    t, _table, key, membership = linked_site()
    lugano = Venue.objects.filter(code="LUG")
    lugano.update(handpay_threshold_cents=120_000, winner_id_threshold_cents=200_000)
    seats = [seat(1, "3H 5H", 1_000), seat(2, "KC KD", 2_000), seat(3, "9S 9D", 500)]
    response = t.post("LUG-CHE-1", body("L-1", seats, COMMUNITY, 5), key=key)
    assert response.status_code == 201, response.json()
    return t, membership


def _parts() -> list[PrizePart]:
    return list(PrizePart.objects.select_related("seat__round").order_by("seat__seat"))


def test_an_awards_parts_are_paid_at_the_desk_once_each_in_francs_and_the_local_level_is_untouched() -> None:
    t, membership = _linked_round()
    level = t.level("VEN-CHE-1")
    before = level_money(level)
    entries = LedgerEntry.objects.count()

    assert [a.link_award_id for a in awards_store(membership, [AWARD])] == [17]

    parts = _parts()
    assert [(p.seat.seat, p.amount_cents, p.currency, p.state) for p in parts] == [
        (1, 127_539, "CHF", "open"),
        (2, 255_078, "CHF", "open"),
        (3, 63_769, "CHF", "open"),
    ]
    share = PrizeShare.objects.get()
    hit = Hit.objects.get()
    assert (share.hit_id, share.prize_cents, share.base_mc, share.hand) == (hit.pk, 476_350, 476_350_000,
                                                                           "straight_flush_7")  # fmt: skip
    assert (hit.amount_cents, hit.kind, hit.state, hit.at) == (476_350, "table", "hit", T0.replace(second=5))
    # Each seat takes part in the prize by its part in euro cents; its award in francs adds the fixed
    # flush prize (€4) seats 2 and 3 hold off the board: floor((272,200 + 400) x 0.9371) = 255,453.
    seats = [PrizePart.objects.select_related("seat").get(pk=p.pk).seat for p in parts]
    assert [(s.share_id, s.share_cents, s.fixed_cents, s.award_cents) for s in seats] == [
        (share.pk, 136_100, 0, 127_539),
        (share.pk, 272_200, 400, 255_453),
        (share.pk, 68_050, 400, 64_144),
    ]
    # The money is the link's: the local level's meters and ledger are exactly as the round left them.
    assert level_money(level) == before
    assert LedgerEntry.objects.count() == entries
    assert_conserved(level)
    assert jackpots_audit()[1] == []
    membership.refresh_from_db()
    assert membership.last_error == ""

    # Lugano's desk lists the three parts: two at or above CHF 1,200 wait for two people, one for one.
    lugano = Venue.objects.get(code="LUG")
    rows = [(row.part.pk, row.needs) for row in desk_hits(lugano, T0) if row.part is not None]
    assert rows == [(parts[0].pk, "verify"), (parts[1].pk, "verify"), (parts[2].pk, "verify")]

    anna, bruno = (
        get_user_model().objects.create_user(username=n, first_name=n.title()) for n in ("anna", "bruno")
    )
    for part in parts[:2]:
        part_verify(part, anna)
        assert PrizePart.objects.get(pk=part.pk).state == "open"  # a second person still has to verify
        part_verify(part, bruno)
    part_verify(parts[2], anna)
    for part in parts:
        paid = part_pay(part, bruno, WINNER)
        assert (paid.state, paid.paid_by_id, paid.amount_cents) == ("paid", bruno.pk, part.amount_cents)
    with pytest.raises(EngineError) as error:
        part_pay(parts[1], anna, WINNER)
    assert error.value.code == "already_paid"

    assert [(p.state, p.amount_cents) for p in _parts()] == [
        ("paid", 127_539),
        ("paid", 255_078),
        ("paid", 63_769),
    ]
    assert Hit.objects.get().state == Hit.State.PAID  # every part paid: the prize is
    # Each part's slip, as the desk prints it: the part in francs, where it was won, who paid it.
    slips = slips_store(PrizePart.objects.get(pk=parts[1].pk))
    facts = [
        (s.variant, s.facts["amount"], s.facts["number"], s.facts["payer"], s.facts["prize"]) for s in slips
    ]
    number = "LUG-2036-00001, LUG-CHE-1 round L-1 seat 2"
    assert facts == [
        ("a5", "CHF\xa02.550,78", number, "Bruno", "LUG-2036-00001: €\xa04.763,50"),
        ("80mm", "CHF\xa02.550,78", number, "Bruno", "LUG-2036-00001: €\xa04.763,50"),
    ]
    assert level_money(level) == before
    assert_conserved(level)
    assert jackpots_audit()[1] == []


def test_an_award_kept_twice_puts_its_parts_on_the_desk_once() -> None:
    _t, membership = _linked_round()
    awards_store(membership, [AWARD])
    assert awards_store(membership, [AWARD]) == []
    assert (SiteAward.objects.count(), PrizeShare.objects.count(), Hit.objects.count()) == (1, 1, 1)
    assert [p.amount_cents for p in _parts()] == [127_539, 255_078, 63_769]


def test_a_part_of_a_round_not_here_is_kept_and_a_fault_not_dropped() -> None:
    t, membership = _linked_round()
    before = level_money(t.level("VEN-CHE-1"))
    award = {**AWARD, "id": 18, "parts": [_part(1, 1, 136_100_000, 127_539, "LUG-CHE-1:L-404")]}
    assert [a.link_award_id for a in awards_store(membership, [award])] == [18]

    assert SiteAward.objects.get().body == award
    assert (PrizePart.objects.count(), PrizeShare.objects.count(), Hit.objects.count()) == (0, 0, 0)
    membership.refresh_from_db()
    assert membership.last_error == (
        "Award 18 not fully recorded for the desk; pay by hand: part 1 (127539 cents): round LUG-CHE-1:L-404 "
        "is not here"
    )
    assert level_money(t.level("VEN-CHE-1")) == before


def test_the_parts_found_are_recorded_and_each_one_not_found_is_named(caplog) -> None:
    _t, membership = _linked_round()
    award = {
        **AWARD,
        "parts": [
            _part(1, 1, 136_100_000, 127_539),
            _part(2, 7, 272_200_000, 255_078),
            _part(3, 3, 68_050_000, 63_769, "MIL-CHE-9:L-1"),
            _part(4, 3, 68_050_000, 63_769),
            _part(5, 3, 68_050_000, 63_769),
            {"number": 6, "round": "LUG-CHE-1:L-1", "seat": 2, "site_cents": -5, "amount_mc": 0},
        ],
    }
    awards_store(membership, [award])

    assert [(p.seat.seat, p.amount_cents) for p in _parts()] == [(1, 127_539), (3, 63_769)]
    assert (PrizeShare.objects.get().prize_cents, Hit.objects.get().amount_cents) == (204_150, 204_150)
    fault = (
        "Award 17 not fully recorded for the desk; pay by hand: part 2 (255078 cents): round LUG-CHE-1:L-1 "
        "has no seat 7; part 3 (63769 cents): table MIL-CHE-9 of this progressive is not here; "
        "part 5 (63769 cents): seat 3 of round LUG-CHE-1:L-1 is named twice; part 6 lacks its seat, "
        "site_cents or amount_mc"
    )
    # The whole fault in the log (an error); the membership keeps what its field holds of it.
    logged = [
        (r.levelname, r.getMessage()) for r in caplog.records if r.name == "linksite.services.award_parts"
    ]
    assert logged == [("ERROR", f"link membership {membership.pk}: {fault}")]
    membership.refresh_from_db()
    assert membership.last_error == fault[:300]


def test_a_part_of_a_voided_round_is_a_fault() -> None:
    t, membership = _linked_round()
    assert t.void("LUG-CHE-1", "L-1").status_code == 200
    awards_store(membership, [AWARD])
    assert (PrizePart.objects.count(), Hit.objects.count()) == (0, 0)
    membership.refresh_from_db()
    assert membership.last_error == (
        "Award 17 not fully recorded for the desk; pay by hand: part 1 (127539 cents): round LUG-CHE-1:L-1 "
        "is voided; part 2 (255078 cents): round LUG-CHE-1:L-1 is voided; part 3 (63769 cents): round "
        "LUG-CHE-1:L-1 is voided"
    )


def test_an_award_on_a_suspended_level_is_kept_and_a_fault_its_parts_not_recorded() -> None:
    # No hit is recorded on a suspended level (the engine's rule): the award waits as a fault for staff.
    t, membership = _linked_round()
    level = t.level("VEN-CHE-1")
    level_suspend(level, None, "meter check")
    awards_store(membership, [AWARD])

    assert SiteAward.objects.get().body == AWARD
    assert (PrizePart.objects.count(), PrizeShare.objects.count(), Hit.objects.count()) == (0, 0, 0)
    membership.refresh_from_db()
    assert membership.last_error == (
        "Award 17 not fully recorded for the desk; pay by hand: 3 parts (446386 cents) not recorded: "
        f"{level} is suspended: it takes no hit until resumed."
    )
