"""Table prizes take the two-person threshold of the table's venue, not the global default: under it the
table pays the prize when the round is recorded, at or above it two people verify."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from floor.models import Venue
from jackpots.models import Hit
from jackpots.services import EngineError
from tables.models import PrizePart
from tables.services.parts import part_verify
from tests.tables.factories import body, seat, tables_ready

pytestmark = pytest.mark.django_db

STRAIGHT_FLUSH = "9H 8H 7H 6H 5H"
ROYAL_FLUSH = "AS KS QS JS TS"


def _prize(cards: str, threshold_cents: int) -> Hit:
    t = tables_ready()
    Venue.objects.filter(pk=t.table("NOG-CSP-1").venue_id).update(handpay_threshold_cents=threshold_cents)
    assert t.post("NOG-CSP-1", body("R-1", [seat(1, cards)])).status_code == 201
    return Hit.objects.get()


def _people():
    return [get_user_model().objects.create_user(username=name) for name in ("anna", "bruno")]


def test_a_table_prize_at_its_venues_threshold_needs_two_people() -> None:
    hit = _prize(STRAIGHT_FLUSH, 100_003)
    # 10% of the opening €10,000.35 pool: below the €1,200 default, which would let the table pay it.
    assert hit.amount_cents == 100_003 < settings.HANDPAY_THRESHOLD_CENTS
    assert hit.state == Hit.State.HIT
    anna, bruno = _people()
    part = part_verify(PrizePart.objects.get(), anna)
    assert (part.state, part.verified_by, part.second_verified_by) == (PrizePart.State.OPEN, anna, None)
    with pytest.raises(EngineError) as error:
        part_verify(part, anna)
    assert error.value.code == "second_verifier_required"
    part = part_verify(part, bruno)
    assert (part.state, part.second_verified_by) == (PrizePart.State.VERIFIED, bruno)


def test_a_table_prize_just_below_its_venues_threshold_is_paid_at_the_table() -> None:
    hit = _prize(ROYAL_FLUSH, 1_000_036)
    # The whole pool, €10,000.35: above the €1,200 default, which would ask for two people.
    assert hit.amount_cents == 1_000_035 > settings.HANDPAY_THRESHOLD_CENTS
    assert (hit.state, hit.table_payment.table.code, hit.verified_by) == (Hit.State.PAID, "NOG-CSP-1", None)
    part = PrizePart.objects.get()
    assert (part.state, part.paid_by_table.code, part.amount_cents) == (
        PrizePart.State.PAID,
        "NOG-CSP-1",
        1_000_035,
    )
    with pytest.raises(EngineError) as error:
        part_verify(part, _people()[0])
    assert error.value.code == "already_paid"
