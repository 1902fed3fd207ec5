"""A mystery award the machine credited short (issue 28, finding 3: "paid" 1 cent closed a €763.77 hit).

The gateway's ``award_result`` with ``paid`` below the award records the machine's part, leaves the rest on
the hits desk for the attendants and alerts the floor; ``paid`` 0 leaves it all on the desk; more than the
award is refused (``award_overpaid``) and changes nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from gatewaylink.models import SasAward
from gatewaylink.services import GatewayRefused, award_result_record
from jackpots.models import Hit
from jackpots.services import hit_pay, hit_verify
from slots.models import MachineAlert
from tests.gatewaylink.helpers import Floor, mystery_hit
from workspace.desk.selectors import desk_hits
from workspace.slips.services import _hit_facts

pytestmark = pytest.mark.django_db

AWARD = 76_377  # €763.77


def _answer(floor: Floor, hit: Hit, paid: int) -> dict:
    message = {
        "type": "award_result",
        "award": hit.id,
        "machine": "NOG-0101",
        "amount": hit.amount_cents,
        "status": "paid",
        "paid": paid,
    }
    return award_result_record(floor.sas1.room.venue_id, message)


def _desk(floor: Floor) -> list[tuple[int, int, int, int]]:
    rows = desk_hits(floor.sas1.room.venue, timezone.now())
    return [(r.hit.id, r.hit.attendant_cents, r.hit.machine_part_cents, r.hit.payout_cents) for r in rows]


def _alerts(floor: Floor) -> list[tuple[str, dict]]:
    return list(MachineAlert.objects.filter(machine=floor.sas1).values_list("kind", "payload"))


def test_an_award_paid_one_cent_leaves_the_rest_on_the_desk_with_an_alert(floor_db: Floor):
    hit = mystery_hit(floor_db.minor, floor_db.sas1, AWARD, announce=False)
    assert _answer(floor_db, hit, 1) == {
        "type": "award_recorded",
        "award": hit.id,
        "status": "paid",
        "paid": 1,
    }
    hit.refresh_from_db()
    assert (hit.state, hit.paid_at, hit.paid_by_machine_id, hit.machine_paid_cents) == (
        "hit",
        None,
        floor_db.sas1.id,
        1,
    )
    assert _desk(floor_db) == [(hit.id, 76_376, 1, AWARD)]
    assert _alerts(floor_db) == [
        ("award_paid_short", {"hit": hit.id, "award_cents": AWARD, "paid_cents": 1, "short_cents": 76_376})
    ]
    assert list(SasAward.objects.values_list("paid_cents", "difference_cents")) == [(1, -76_376)]
    # The attendants pay the rest: the hit is paid once, by both, and leaves the desk.
    attendant = get_user_model().objects.create_user("attendant")
    hit = hit_pay(hit_verify(hit, attendant), attendant)
    assert (hit.state, hit.paid_by_id, hit.machine_paid_cents, hit.attendant_cents) == (
        "paid",
        attendant.id,
        1,
        76_376,
    )
    assert _desk(floor_db) == []
    # The attendant's slip is for the attendants' part, paid by the attendant.
    facts = _hit_facts(Hit.objects.get(pk=hit.pk))
    assert (facts.amount, facts.payer) == ("€\u00a0763,76", "attendant")  # the slip speaks Italian


def test_an_award_paid_nothing_leaves_it_all_on_the_desk_with_an_alert(floor_db: Floor):
    hit = mystery_hit(floor_db.minor, floor_db.sas1, AWARD, announce=False)
    assert _answer(floor_db, hit, 0)["paid"] == 0
    hit.refresh_from_db()
    assert (hit.state, hit.paid_by_machine_id, hit.machine_paid_cents) == ("hit", None, None)
    assert _desk(floor_db) == [(hit.id, AWARD, 0, AWARD)]
    assert [kind for kind, _ in _alerts(floor_db)] == ["award_paid_short"]


def test_an_award_paid_whole_is_paid_by_the_machine_and_off_the_desk(floor_db: Floor):
    hit = mystery_hit(floor_db.minor, floor_db.sas1, AWARD, announce=False)
    _answer(floor_db, hit, AWARD)
    hit.refresh_from_db()
    assert (hit.state, hit.paid_by_machine_id, hit.machine_paid_cents) == ("paid", floor_db.sas1.id, AWARD)
    assert _desk(floor_db) == []
    assert _alerts(floor_db) == []


def test_an_award_result_larger_than_the_award_is_refused_and_changes_nothing(floor_db: Floor):
    hit = mystery_hit(floor_db.minor, floor_db.sas1, AWARD, announce=False)
    with pytest.raises(GatewayRefused) as refused:
        _answer(floor_db, hit, AWARD + 1)
    assert refused.value.message() == {
        "type": "error",
        "error": "award_overpaid",
        "detail": "`paid` is more than the award: a machine never credits more than it was asked.",
        "award": hit.id,
    }
    hit.refresh_from_db()
    assert (hit.state, hit.machine_paid_cents, SasAward.objects.count(), _alerts(floor_db)) == (
        "hit",
        None,
        0,
        [],
    )
