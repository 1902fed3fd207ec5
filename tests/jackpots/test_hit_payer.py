"""Who paid a machine's jackpot (issue: a win the machine paid itself was paid again).

The report's ``paid``: "machine" (the machine credited the win itself, ``paid_amount`` cents) makes the hit
paid by that machine at exactly what it paid, absent from the desk, with no handpay reset; what the level
held above it stays in the pool. A handpay is paid by attendants, never below what the machine displayed."""

from __future__ import annotations

import pytest
from django.utils import timezone

from gatewaylink.selectors import handpay_reset_target, handpay_resets_open
from jackpots.audit import jackpots_audit
from jackpots.models import Hit
from jackpots.services import contributions_apply
from slots.models import SlotMachine
from tests.jackpots.factories import GameEventFactory, JackpotEventFactory
from tests.jackpots.helpers import GRAND
from tests.jackpots.model import Event, ModelLevel, replay
from workspace.desk.selectors import desk_hits

pytestmark = pytest.mark.django_db


def _report(machines, level, *, amount: int, **paid) -> Hit:
    # 10,000 + 2,345 cents wagered: the level stands at €1,001.23450 (reset €1,000 + 1% of €123.45).
    for wager in (10_000, 2_345):
        GameEventFactory(machine=machines[1], wager_cents=wager)
    JackpotEventFactory(
        machine=machines[1],
        level_id=level.id,
        amount_cents=amount,
        payload={"level": level.id, "amount": amount, **paid},
    )
    contributions_apply()
    return Hit.objects.get(level=level)


def _sas(machine: SlotMachine, *, locked: bool) -> None:
    SlotMachine.objects.filter(pk=machine.pk).update(sas_address=1, handpay_locked=locked)


def test_a_win_the_machine_paid_itself_is_recorded_paid_by_the_machine_at_its_amount(linked):
    _, machines, level = linked
    hit = _report(machines, level, amount=100_120, paid="machine", paid_amount=100_120)
    level.refresh_from_db()
    assert (hit.state, hit.paid_by_machine_id, hit.machine_paid_cents) == ("paid", machines[1].id, 100_120)
    assert (hit.reported_paid, hit.paid_by_id, hit.paid_at) == ("machine", None, hit.at)
    # The level paid out what the machine paid; the 3 cents and 450 mc it held above stay in the pool.
    assert (hit.amount_cents, hit.payout_cents, hit.amount_mc) == (100_120, 100_120, 100_123_450)
    assert level.current_mc == 100_000_000 + 24_690 + 3_450
    assert level.total_won_cents == 100_120
    assert desk_hits(machines[1].room.venue, timezone.now()) == []
    assert jackpots_audit()[1] == []


def test_a_machine_that_paid_more_than_the_level_held_takes_the_whole_amount_and_no_more(linked):
    _, machines, level = linked
    hit = _report(machines, level, amount=100_200, paid="machine", paid_amount=100_200)
    level.refresh_from_db()
    # The pool gives €1,001.23; the 77 cents more the machine paid were the house's, on the hit.
    assert (hit.amount_cents, hit.machine_paid_cents, hit.payout_cents) == (100_123, 100_200, 100_200)
    assert level.current_mc == 100_000_000 + 24_690 + 450
    assert jackpots_audit()[1] == []


def test_no_handpay_reset_is_sent_for_a_win_the_machine_paid(linked):
    _, machines, level = linked
    _sas(machines[1], locked=True)  # locked for some other reason: the machine-paid win must not reset it
    hit = _report(machines, level, amount=100_123, paid="machine", paid_amount=100_123)
    venue_id = machines[1].room.venue_id
    assert handpay_reset_target(hit.id) is None
    assert handpay_resets_open(venue_id) == []


def test_a_handpay_is_on_the_desk_never_below_the_display_and_is_reset_once_paid(linked):
    _, machines, level = linked
    _sas(machines[1], locked=True)
    hit = _report(machines, level, amount=100_500, paid="attendant")
    assert (hit.state, hit.reported_paid, hit.paid_by_machine_id) == ("hit", "attendant", None)
    # The pool holds €1,001.23, the machine displayed €1,005.00: attendants hand over the display.
    assert (hit.amount_cents, hit.machine_amount_cents, hit.payout_cents) == (100_123, 100_500, 100_500)
    assert hit.discrepancy_cents == 377
    assert [row.hit.pk for row in desk_hits(machines[1].room.venue, timezone.now())] == [hit.pk]
    Hit.objects.filter(pk=hit.pk).update(state=Hit.State.PAID)
    assert handpay_reset_target(hit.id) == (
        machines[1].room.venue_id,
        {"type": "handpay_reset", "machine": machines[1].asset_number},
    )


def test_a_report_without_payer_is_paid_by_attendants_at_the_system_amount(linked):
    _, machines, level = linked
    hit = _report(machines, level, amount=99_999)
    assert (hit.state, hit.reported_paid, hit.payout_cents) == ("hit", "", 100_123)


@pytest.mark.parametrize("paid", [100_100, 100_123, 100_200], ids=["less", "exact", "more"])
def test_the_engine_and_the_independent_model_agree_on_a_machine_paid_win(linked, paid):
    """The rule in tests/jackpots/model.py (written apart from the engine): the level pays out at most
    what the machine credited, the rest of what it held carries into the next cycle."""
    _, machines, level = linked
    hit = _report(machines, level, amount=paid, paid="machine", paid_amount=paid)
    level.refresh_from_db()
    at = timezone.now()
    games = [Event(machines[1].id, seq, at, "game", wager=wager) for seq, wager in ((1, 10_000), (2, 2_345))]
    report = Event(machines[1].id, 3, at, "jackpot", level_id=level.id, paid_amount=paid)
    modelled = replay([*games, report], {level.id: GRAND}, lambda n: 0)
    assert [(h.machine_id, h.amount_cents) for h in modelled] == [(machines[1].id, hit.amount_cents)]
    model = ModelLevel(GRAND)
    for wager in (10_000, 2_345):
        model.wager(wager)
    model.hit(paid)
    assert (level.current_mc, level.reserve_mc) == (model.current, model.reserve)
    assert jackpots_audit()[1] == []
