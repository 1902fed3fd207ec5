from __future__ import annotations

import pytest

from demo.seed_progressives import progressives_seed
from floor.models import Venue
from jackpots.audit import jackpots_audit
from jackpots.models import Level, Progressive, ProgressiveMachine
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
    assert {(lv.name, lv.reset_mc, lv.limit_mc) for lv in ainsworth} == {
        ("Major", 50_000_000, 200_000_000),
        ("Minor", 10_000_000, 50_000_000),
    }
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
    assert jackpots_audit() == (18, [])  # 16 slot levels and the two table progressives


def test_ainsworth_major_is_never_below_its_minor_over_a_long_play():
    """A long play of one Ainsworth machine at random bets, each level hit now and then (the Minor more
    often): after every game the Major shows at least the Minor."""
    import random

    from demo.seed_progressives import AINSWORTH
    from jackpots.services import core

    params = dict(AINSWORTH)
    major, _ = core.seed(params["Major"])
    minor, _ = core.seed(params["Minor"])
    rng = random.Random(7)
    lowest_gap = None
    for _ in range(100_000):
        wager = rng.choice([2, 10, 50, 100, 250, 500])  # €0.02 to the €5.00 max bet
        major, _ = core.contribute(params["Major"], major, wager)
        minor, _ = core.contribute(params["Minor"], minor, wager)
        if rng.randrange(4_000) == 0:
            minor, _, _ = core.award(params["Minor"], minor, core.AwardMode.WHOLE)
        if rng.randrange(40_000) == 0:
            major, _, _ = core.award(params["Major"], major, core.AwardMode.WHOLE)
        gap = major.current_mc - minor.current_mc
        lowest_gap = gap if lowest_gap is None else min(lowest_gap, gap)
    assert (major.hits > 0, minor.hits > 0) == (True, True)
    assert lowest_gap >= 0


def _old_ainsworth(machine) -> Progressive:
    """An Ainsworth progressive as the earlier seed made it (Major and Minor both €100 to €2,000)."""
    from demo.seed_progressives import AINSWORTH_BEFORE
    from jackpots.services.levels import level_create

    progressive = Progressive.objects.create(name=f"Ainsworth {machine.asset_number}", kind="standalone")
    ProgressiveMachine.objects.create(progressive=progressive, machine=machine)
    for position, name in enumerate(["Major", "Minor"], start=1):
        level_create(progressive, name=name, position=position, params=AINSWORTH_BEFORE[name])
    return progressive


def test_seed_moves_an_installed_ainsworth_by_audited_changes():
    """An untouched level takes the new parameters at once, a played one at its next hit; live amounts
    are not rewritten, each move is a logged change, and seeding again changes nothing more."""
    from demo.seed_progressives import AINSWORTH_REASON
    from jackpots.models import LedgerEntry, LevelChange
    from jackpots.services import AwardMode, level_award, level_wager_add

    _floor()
    machine = SlotMachineFactory(
        room=RoomFactory(venue=Venue.objects.get(code="VEN")), manufacturer="Ainsworth", denomination_cents=2
    )
    progressive = _old_ainsworth(machine)
    minor = Level.objects.get(progressive=progressive, name="Minor")
    level_wager_add(minor.id, 500, reference="a game")
    minor.refresh_from_db()
    # The Minor has played (1.20% of €5.00 on top of €100), the Major not yet.
    assert minor.current_mc == 10_006_000
    progressives_seed()
    progressives_seed()
    major = Level.objects.get(progressive=progressive, name="Major")
    minor.refresh_from_db()
    assert (major.reset_mc, major.limit_mc, major.current_mc) == (50_000_000, 200_000_000, 50_000_000)
    # Staged until its next hit: the live amount and parameters stay.
    assert (minor.reset_mc, minor.limit_mc, minor.current_mc) == (10_000_000, 200_000_000, 10_006_000)
    staged = LevelChange.objects.get(level=minor, state=LevelChange.State.STAGED)
    assert (staged.user, staged.new, staged.reason) == (None, {"limit_mc": 50_000_000}, AINSWORTH_REASON)
    assert list(LevelChange.objects.filter(level=major).values_list("new", "state")) == [
        ({"state": "suspended"}, "applied"),
        ({"reset_mc": 50_000_000}, "applied"),
        ({"state": "active"}, "applied"),
    ]
    assert LedgerEntry.objects.filter(level=major, kind="seed").count() == 2
    level_award(minor.id, mode=AwardMode.WHOLE, reference="the Minor hits")
    minor.refresh_from_db()
    # The new limit from its next cycle on, which opens at €100 + the reserve (0.10% of €5.00).
    assert (minor.limit_mc, minor.current_mc, minor.cycle) == (50_000_000, 10_000_500, 2)
    assert jackpots_audit()[1] == []


def test_seed_puts_the_noghera_demo_banks_on_sas():
    from gatewaylink.selectors import gateway_config

    _floor()
    progressives_seed()
    progressives_seed()
    nog = Venue.objects.get(code="NOG")
    config = gateway_config(nog.id)
    got = [(m["line"], m["address"], m["group"], m["denomination"]) for m in config["machines"]]
    assert got == [
        ("line-1", 1, 1, 50),
        ("line-1", 2, 1, 50),
        ("line-1", 3, 1, 50),
        ("line-1", 4, 1, 50),
        ("line-2", 1, 2, 1),
        ("line-2", 2, 2, 1),
        ("line-2", 3, 2, 1),
        ("line-3", 1, 3, 1),
        ("line-3", 2, 3, 1),
    ]
    assert [(g["group"], sorted(g["levels"])) for g in config["groups"]] == [
        (1, ["1", "2", "3"]),
        (2, ["1", "2", "3", "4", "5"]),
        (3, ["1"]),
    ]
    grease = Level.objects.get(progressive__name="Grease", position=4)
    assert config["groups"][1]["levels"]["4"] == grease.id
    assert config["groups"][1]["reset_eur"]["4"] == "50.00"
    ven = Venue.objects.get(code="VEN")
    assert gateway_config(ven.id) == {"machines": [], "groups": []}
