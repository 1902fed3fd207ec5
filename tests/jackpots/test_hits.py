from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from jackpots.audit import jackpots_audit
from jackpots.models import Hit, HitRefusal, LevelChange, ProgressiveMachine
from jackpots.services import (
    AwardMode,
    EngineError,
    contributions_apply,
    core,
    hit_pay,
    hit_verify,
    hit_void,
    level_award,
    level_parameters_change,
    level_suspend,
    level_wager_add,
)
from jackpots.services.levels import level_create
from slots.models import MachineAlert
from tests.factories import SlotMachineFactory
from tests.jackpots.factories import GameEventFactory, JackpotEventFactory
from tests.jackpots.helpers import GRAND, progressive_with_machines

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(db):
    user_model = get_user_model()
    return [user_model.objects.create_user(f"attendant{i}") for i in range(3)]


def _hit(machines, level, wagers=(10_000,), amount=100_000):
    for wager in wagers:  # the last one is the jackpot's triggering game
        GameEventFactory(machine=machines[1], wager_cents=wager)
    JackpotEventFactory(machine=machines[1], level_id=level.id, amount_cents=amount)
    contributions_apply()
    return Hit.objects.get(level=level, number=Hit.objects.filter(level=level).count())


def test_machine_hit_pays_the_system_amount_and_resets(linked):
    _, machines, level = linked
    hit = _hit(machines, level, wagers=(10_000, 2_345), amount=99_999)
    level.refresh_from_db()
    # 12,345 cents x 1% = 123,450 mc over the €1,000 reset; reserve 0.2% = 24,690 mc.
    assert (hit.amount_cents, hit.amount_mc, hit.machine_id) == (100_123, 100_123_450, machines[1].id)
    assert (hit.machine_amount_cents, hit.discrepancy_cents) == (99_999, 99_999 - 100_123)
    assert (hit.number, hit.cycle, hit.kind) == (1, 1, "machine")
    # The next cycle: reset + reserve + the 450 mc the whole-cent award left.
    assert level.current_mc == 100_000_000 + 24_690 + 450
    assert (level.reserve_mc, level.overflow_mc, level.cycle, level.hits) == (0, 0, 2, 1)
    assert level.total_won_cents == 100_123


def test_sub_cent_rest_of_the_award_carries_over(linked):
    _, machines, level = linked
    hit = _hit(machines, level, wagers=(1,))  # 1 cent x 1% = 10 mc, reserve 2 mc
    level.refresh_from_db()
    assert hit.amount_cents == 100_000
    assert level.current_mc == 100_000_000 + 10 + 2


def test_two_people_verify_at_or_above_the_threshold(linked, people):
    _, machines, level = linked
    hit = _hit(machines, level)  # €1,100.00: below €1,200
    assert hit_verify(hit, people[0]).state == Hit.State.VERIFIED
    big = _hit(machines, level, wagers=(2_000_000,))
    assert big.amount_cents >= 120_000
    big = hit_verify(big, people[0])
    assert (big.state, big.verified_by, big.second_verified_by) == (Hit.State.HIT, people[0], None)
    with pytest.raises(EngineError) as error:
        hit_verify(big, people[0])
    assert error.value.code == "second_verifier_required"
    with pytest.raises(EngineError) as error:
        hit_pay(big, people[2])
    assert error.value.code == "hit_not_verified"
    big = hit_verify(big, people[1])
    assert (big.state, big.second_verified_by) == (Hit.State.VERIFIED, people[1])
    assert big.second_verified_at >= big.verified_at
    paid = hit_pay(big, people[2])
    assert (paid.state, paid.paid_by) == (Hit.State.PAID, people[2])
    with pytest.raises(EngineError) as error:
        hit_void(paid, people[0], "machine fault")
    assert error.value.code == "hit_not_voidable"


def test_void_restores_the_level_as_if_the_hit_never_happened(linked, people):
    _, machines, level = linked
    for _ in range(3):
        GameEventFactory(machine=machines[0], wager_cents=3_333)
    contributions_apply()
    level.refresh_from_db()
    before_seq = level.seq
    hit = _hit(machines, level, wagers=(7,))
    GameEventFactory(machine=machines[2], wager_cents=5_001)
    contributions_apply()
    with pytest.raises(EngineError) as error:
        hit_void(hit, people[0], " ")
    assert error.value.code == "reason_required"
    hit_void(hit, people[0], "reel malfunction")
    level.refresh_from_db()
    # One cycle of 3 x 3,333 + 7 + 5,001 = 15,007 cents: floor(15,007 x 1%) and floor(x 0.2%).
    assert level.current_mc == 100_000_000 + 150_070
    assert level.reserve_mc == 30_014
    assert (level.cycle, level.hits, level.total_won_cents) == (1, 0, 0)
    assert level.seq > before_seq + 2
    hit.refresh_from_db()
    assert (hit.state, hit.voided_by, hit.void_reason) == (Hit.State.VOIDED, people[0], "reel malfunction")
    assert jackpots_audit()[1] == []


def test_parameter_changes_are_staged_until_the_next_reset(linked, people):
    _, machines, level = linked
    with pytest.raises(EngineError) as error:
        level_parameters_change(level, people[0], {"rate": "0.02"}, "")
    assert error.value.code == "reason_required"
    with pytest.raises(EngineError) as error:
        level_parameters_change(level, people[0], {"colour": "red"}, "why")
    assert error.value.code == "unknown_parameter"
    with pytest.raises(EngineError) as error:
        level_parameters_change(level, people[0], {"limit_mc": 5}, "below the reset")
    assert error.value.code == "invalid_parameter"
    change = level_parameters_change(level, people[0], {"rate": "0.02", "reset_mc": 50_000_000}, "new season")
    assert (change.state, change.old, change.new) == (
        LevelChange.State.STAGED,
        {"rate": "0.01000000", "reset_mc": 100_000_000},
        {"rate": "0.02", "reset_mc": 50_000_000},
    )
    GameEventFactory(machine=machines[1], wager_cents=1_000)  # the jackpot's triggering game
    contributions_apply()
    level.refresh_from_db()
    assert (level.rate, level.current_mc) == (Decimal("0.01"), 100_010_000)
    _hit(machines, level, wagers=())
    level.refresh_from_db()
    change.refresh_from_db()
    assert (level.rate, level.reset_mc, change.state, change.applied_cycle) == (
        Decimal("0.02"),
        50_000_000,
        LevelChange.State.APPLIED,
        2,
    )
    assert level.current_mc == 50_000_000 + 2_000  # new reset + the old cycle's reserve
    GameEventFactory(machine=machines[0], wager_cents=1_000)
    contributions_apply()
    level.refresh_from_db()
    assert level.current_mc == 50_000_000 + 2_000 + 20_000
    assert jackpots_audit()[1] == []


def test_a_suspended_level_takes_changes_at_once_and_no_contributions(linked, people):
    _, machines, level = linked
    level_suspend(level, people[0], "maintenance")
    change = level_parameters_change(level, people[0], {"reset_mc": 120_000_000}, "higher seed")
    GameEventFactory(machine=machines[0], wager_cents=1_000)
    contributions_apply()
    level.refresh_from_db()
    assert (change.state, level.reset_mc, level.current_mc) == (
        LevelChange.State.APPLIED,
        120_000_000,
        120_000_000,
    )
    assert jackpots_audit()[1] == []


def test_out_of_service_and_disabled_machines_do_not_contribute(linked):
    progressive, machines, level = linked
    machines[0].status = "offline"
    machines[0].save()
    progressive.members.filter(machine=machines[1]).update(enabled=False)
    for machine in machines:
        GameEventFactory(machine=machine, wager_cents=1_000)
    assert contributions_apply() == 4
    level.refresh_from_db()
    assert (level.wagered_cents, level.current_mc) == (2_000, 100_020_000)
    assert jackpots_audit()[1] == []


def test_min_wager_and_max_bet_only(db):
    progressive, machines = progressive_with_machines(1)
    level = level_create(
        progressive,
        name="Grand",
        position=1,
        params=core.Params(GRAND.reset_mc, Decimal("0.01"), min_wager_cents=200, max_bet_only=True),
    )
    GameEventFactory(machine=machines[0], wager_cents=450, is_max_bet=True)
    GameEventFactory(machine=machines[0], wager_cents=300, is_max_bet=False)
    GameEventFactory(machine=machines[0], wager_cents=100, is_max_bet=True)
    contributions_apply()
    level.refresh_from_db()
    assert (level.wagered_cents, level.current_mc) == (450, 100_004_500)
    assert jackpots_audit()[1] == []


def test_mystery_level_hits_on_the_crossing_wager(db):
    progressive, machines = progressive_with_machines(2)
    params = core.Params(100_000_000, Decimal("0.01"), limit_mc=110_000_000, mystery=True)
    level = level_create(progressive, name="Mystery", position=1, params=params)
    level.trigger_mc = 100_050_000  # crossed once 5,000 cents are wagered
    level.save(update_fields=["trigger_mc"])
    for _ in range(4):
        GameEventFactory(machine=machines[0], wager_cents=1_000)
    crossing = GameEventFactory(machine=machines[1], wager_cents=1_000)
    GameEventFactory(machine=machines[0], wager_cents=1_000)
    assert contributions_apply(batch_size=10) == 6
    hit = Hit.objects.get(level=level)
    level.refresh_from_db()
    assert (hit.kind, hit.machine_id, hit.amount_cents, hit.at) == (
        "mystery",
        machines[1].id,
        100_050,
        crossing.at,
    )
    assert level.current_mc == 100_000_000 + 10_000
    assert 100_000_000 <= level.trigger_mc < 110_000_000
    assert jackpots_audit()[1] == []


def test_table_primitives_share_and_whole_split(linked):
    _, _, level = linked
    moved = level_wager_add(level.id, 2_000_000, reference="round 1")
    assert (moved.current_delta_mc, moved.reserve_delta_mc) == (20_000_000, 4_000_000)
    share = level_award(level.id, mode=AwardMode.SHARE, value=Decimal("0.10"), winners=2, reference="SF")
    assert [h.amount_cents for h in share.hits] == [6_000, 6_000]
    level.refresh_from_db()
    assert (level.current_mc, level.cycle) == (108_000_000, 1)
    # A share that would take the amount below the reset value: the house tops it up (rule 3).
    level_award(level.id, mode=AwardMode.SHARE, value=Decimal("0.5"), reference="big share")
    level.refresh_from_db()
    assert level.current_mc == 100_000_000
    whole = level_award(level.id, mode=AwardMode.WHOLE, winners=3, reference="royal")
    assert [h.number for h in whole.hits] == [4, 5, 6]
    assert [h.amount_cents for h in whole.hits] == [33_333] * 3
    level.refresh_from_db()
    # reset + reserve + the cent and the sub-cent the three-way split left.
    assert (level.cycle, level.current_mc) == (2, 100_000_000 + 4_000_000 + 1_000)
    assert jackpots_audit()[1] == []


def test_two_jackpot_events_in_one_batch_are_ordered_and_each_takes_its_turn(linked):
    _, machines, level = linked
    GameEventFactory(machine=machines[1], wager_cents=50_000)  # +500,000 mc, reserve +100,000 mc
    GameEventFactory(machine=machines[2], wager_cents=1)  # +10 mc, reserve +2 mc
    JackpotEventFactory(machine=machines[1], level_id=level.id, amount_cents=100_500)
    JackpotEventFactory(machine=machines[2], level_id=level.id, amount_cents=100_500)
    contributions_apply()
    first, second = Hit.objects.filter(level=level).order_by("number")
    assert (first.number, first.machine_id, first.amount_cents, first.discrepancy_cents) == (
        1,
        machines[1].id,
        100_500,
        0,
    )
    # The second cycle: reset + reserve 100,002 mc + the 10 mc the first award left.
    assert (second.number, second.machine_id, second.amount_cents, second.discrepancy_cents) == (
        2,
        machines[2].id,
        100_100,
        100_500 - 100_100,
    )
    level.refresh_from_db()
    assert (level.current_mc, level.cycle, level.total_won_cents) == (100_000_012, 3, 200_600)
    assert jackpots_audit()[1] == []


def test_ledger_rows_cannot_be_edited_or_deleted(linked):
    _, _, level = linked
    entry = level.ledger.get()
    entry.current_delta_mc += 1
    with pytest.raises(ValueError, match="append-only"):
        entry.save()
    with pytest.raises(ValueError, match="append-only"):
        entry.delete()


def test_a_jackpot_event_for_a_level_the_machine_cannot_hit_is_refused_not_paid(linked):
    _, _, level = linked
    stranger = SlotMachineFactory()
    GameEventFactory(machine=stranger, wager_cents=450)
    event = JackpotEventFactory(machine=stranger, level_id=level.id, amount_cents=50_000)
    assert contributions_apply() == 2
    assert Hit.objects.filter(level=level).count() == 0
    refusal = HitRefusal.objects.get(event_id=event.id)
    assert (refusal.level_id, refusal.machine_id, refusal.code) == (level.id, stranger.id, "not_a_member")
    assert MachineAlert.objects.get(machine=stranger).kind == MachineAlert.Kind.JACKPOT_REFUSED
    level.refresh_from_db()
    assert (level.current_mc, level.hits) == (100_000_000, 0)
    assert jackpots_audit()[1] == []


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (
            lambda machine, level: ProgressiveMachine.objects.filter(machine=machine).update(enabled=False),
            "machine_not_live",
        ),
        (
            lambda machine, level: level_suspend(level, get_user_model().objects.create_user("m"), "fault"),
            "level_suspended",
        ),
    ],
)
def test_a_disabled_member_or_a_suspended_level_cannot_be_won(linked, change, code):
    _, machines, level = linked
    GameEventFactory(machine=machines[0], wager_cents=450)
    change(machines[0], level)
    event = JackpotEventFactory(machine=machines[0], level_id=level.id, amount_cents=50_000)
    assert contributions_apply() == 2
    assert Hit.objects.filter(level=level).count() == 0
    assert HitRefusal.objects.get(event_id=event.id).code == code
    level.refresh_from_db()
    assert (level.current_mc, level.hits) == (100_000_000, 0)
    assert jackpots_audit()[1] == []


def test_staged_changes_take_effect_when_a_table_award_resets_the_level(linked, people):
    _, _, level = linked
    level_parameters_change(level, people[0], {"reserve_rate": "0.005"}, "more reserve")
    level_award(level.id, mode=AwardMode.WHOLE)
    level.refresh_from_db()
    assert (level.reserve_rate, level.cycle) == (Decimal("0.005"), 2)
    assert level.changes.get().state == LevelChange.State.APPLIED
    level_wager_add(level.id, 1_000)
    level.refresh_from_db()
    assert level.reserve_mc == 5_000
    assert jackpots_audit()[1] == []


def test_a_void_puts_back_the_parameters_its_reset_applied(linked, people):
    _, machines, level = linked
    change = level_parameters_change(level, people[0], {"rate": "0.03"}, "promotion")
    hit = _hit(machines, level, wagers=(1_000,))
    level.refresh_from_db()
    assert level.rate == Decimal("0.03")
    hit_void(hit, people[1], "door open during play")
    level.refresh_from_db()
    change.refresh_from_db()
    assert (level.rate, level.cycle, level.current_mc) == (Decimal("0.01"), 1, 100_010_000)
    assert (change.state, change.applied_cycle) == (LevelChange.State.STAGED, None)
    assert jackpots_audit()[1] == []


def test_voiding_a_fixed_prize_leaves_the_pool_alone(linked, people):
    _, _, level = linked
    level_wager_add(level.id, 10_000)
    fixed = level_award(level.id, mode=AwardMode.FIXED, value=500, reference="flush")
    assert [h.amount_cents for h in fixed.hits] == [500]
    hit_void(fixed.hits[0], people[0], "misdealt hand")
    level.refresh_from_db()
    assert (level.current_mc, level.reserve_mc, level.total_won_cents) == (100_100_000, 20_000, 0)
    assert jackpots_audit()[1] == []


def test_mystery_trigger_is_drawn_above_what_the_reset_carries(db, monkeypatch):
    """The next cycle starts at reset + reserve; its trigger is drawn from there, not from the reset value,
    so the wager after a hit does not hit again at once."""
    import secrets

    monkeypatch.setattr(secrets, "randbelow", lambda n: min(n - 1, 1_000))  # a low draw
    progressive, machines = progressive_with_machines(1)
    params = core.Params(100_000_000, Decimal("0.01"), Decimal("0.01"), limit_mc=110_000_000, mystery=True)
    level = level_create(progressive, name="Mystery", position=1, params=params)
    level.trigger_mc = 100_050_000
    level.save(update_fields=["trigger_mc"])
    for _ in range(5):
        GameEventFactory(machine=machines[0], wager_cents=1_000)
    contributions_apply()
    level.refresh_from_db()
    # The reserve of the 5,000 cents wagered (50,000 mc) opens the next cycle.
    assert (level.current_mc, level.trigger_mc) == (100_050_000, 100_051_001)
    GameEventFactory(machine=machines[0], wager_cents=1)
    contributions_apply()
    assert Hit.objects.filter(level=level).count() == 1
    assert jackpots_audit()[1] == []
