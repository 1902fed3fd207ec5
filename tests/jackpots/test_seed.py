from __future__ import annotations

import pytest

from floor.models import Venue
from jackpots.audit import jackpots_audit
from jackpots.models import Level, Progressive, ProgressiveMachine
from jackpots.seed import progressives_seed
from tests.factories import RoomFactory, SlotMachineFactory, VenueFactory

pytestmark = pytest.mark.django_db


def _floor() -> None:
    nog = RoomFactory(venue=VenueFactory(code="NOG"))
    ven = RoomFactory(venue=VenueFactory(code="VEN", name="Ca' Vendramin Calergi"))
    for _ in range(4):
        SlotMachineFactory(room=nog, game_title="Diamond Vault", manufacturer="IGT")
    for _ in range(3):
        SlotMachineFactory(room=nog, game_title="Grease", manufacturer="Bally", denomination_cents=1)
        SlotMachineFactory(room=ven, game_title="Multi", manufacturer="Ainsworth", denomination_cents=2)
    for room in (nog, ven):
        for _ in range(5):
            SlotMachineFactory(room=room, game_title="Wyland", manufacturer="IGT", denomination_cents=1)


def test_seed_without_machines_creates_nothing():
    progressives_seed()
    assert Progressive.objects.count() == 0


def test_seed_is_idempotent_and_audits_clean():
    _floor()
    progressives_seed()
    progressives_seed()
    assert Venue.objects.count() == 2
    names = sorted(Progressive.objects.values_list("name", "kind"))
    assert [n for n, _ in names if not n.startswith("Ainsworth")] == [
        "Diamond Vault",
        "Grease",
        "Super Spin",
        "Venezia Mystery",
    ]
    assert sum(1 for n, k in names if n.startswith("Ainsworth") and k == "standalone") == 3
    assert Level.objects.filter(progressive__name="Grease").count() == 5
    top = Level.objects.get(progressive__name="Grease", position=1)
    assert (top.max_bet_only, top.min_wager_cents) == (True, 60)
    assert not Level.objects.get(progressive__name="Grease", position=2).max_bet_only
    assert set(
        Level.objects.filter(progressive__name="Diamond Vault").values_list("max_bet_only", flat=True)
    ) == {True}
    super_spin = Level.objects.get(progressive__name="Super Spin")
    assert (super_spin.current_mc, super_spin.reset_mc) == (115_174_800_000, 100_000_000_000)
    assert ProgressiveMachine.objects.filter(progressive__name="Super Spin").count() == 10
    mystery = Level.objects.get(progressive__name="Venezia Mystery")
    assert mystery.mystery and 50_000_000 <= mystery.trigger_mc < 100_000_000
    assert ProgressiveMachine.objects.filter(progressive__name="Venezia Mystery").count() == 5
    ainsworth = Level.objects.filter(progressive__name__startswith="Ainsworth")
    assert {(lv.reset_mc, lv.limit_mc) for lv in ainsworth} == {(10_000_000, 200_000_000)}
    assert Level.objects.count() == 3 + 5 + 6 + 1 + 1
    assert jackpots_audit() == (16, [])


def test_seed_venezia_builds_the_five_progressives_on_the_real_floor():
    from django.core.management import call_command

    call_command("seed_venezia", machines_per_room=12)
    call_command("seed_venezia", machines_per_room=12)
    kinds = dict(Progressive.objects.values_list("name", "kind"))
    assert kinds["Diamond Vault"] == kinds["Grease"] == kinds["Venezia Mystery"] == "linked"
    assert kinds["Super Spin"] == "wide_area"
    assert sorted(k for n, k in kinds.items() if n.startswith("Ainsworth")) == ["standalone"] * 3
    assert ProgressiveMachine.objects.filter(progressive__name="Diamond Vault").count() == 4
    assert ProgressiveMachine.objects.filter(progressive__name="Grease").count() == 3
    spin_venues = set(
        ProgressiveMachine.objects.filter(progressive__name="Super Spin").values_list(
            "machine__room__venue__code", flat=True
        )
    )
    assert spin_venues == {"NOG", "VEN"}
    mystery_venues = set(
        ProgressiveMachine.objects.filter(progressive__name="Venezia Mystery").values_list(
            "machine__room__venue__code", flat=True
        )
    )
    assert mystery_venues == {"NOG"}
    assert jackpots_audit() == (16, [])
