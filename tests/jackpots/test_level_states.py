"""Level states: a suspended level takes no contribution and no hit (games still play and are stored), a
resumed one plays again, a retired one takes nothing ever again; each suspension and resumption is on the
change log and the significant-events register, with a reason, or not at all."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from floor.models import SignificantEvent, Venue
from jackpots.audit import jackpots_audit
from jackpots.models import Hit, HitRefusal, LedgerEntry, Level, LevelChange
from jackpots.services import (
    AwardMode,
    EngineError,
    contributions_apply,
    level_award,
    level_parameters_change,
    level_resume,
    level_suspend,
)
from jackpots.services.levels import level_create
from slots.models import MachineEvent
from tests.factories import ProgressiveMachineFactory, RoomFactory, SlotMachineFactory, VenueFactory
from tests.jackpots.factories import GameEventFactory, JackpotEventFactory
from tests.jackpots.helpers import GRAND

pytestmark = pytest.mark.django_db


@pytest.fixture
def manager(db):
    return get_user_model().objects.create_user("manager")


def _meters(level: Level) -> tuple:
    level.refresh_from_db()
    meters = ("current_mc", "reserve_mc", "overflow_mc", "wagered_cents", "hits", "cycle")
    return tuple(getattr(level, name) for name in meters)


def test_a_suspended_level_refuses_a_hit_with_level_suspended_and_nothing_moves(linked, manager):
    _, machines, level = linked
    level_suspend(level, manager, "progressive controller fault")
    before = _meters(level)
    ledger = LedgerEntry.objects.count()
    GameEventFactory(machine=machines[0], wager_cents=450)
    report = JackpotEventFactory(machine=machines[0], level_id=level.id, amount_cents=100_000)
    assert contributions_apply() == 2
    refusal = HitRefusal.objects.get(event_id=report.id)
    assert (refusal.level_id, refusal.code) == (level.id, "level_suspended")
    assert Hit.objects.count() == 0
    assert (_meters(level), LedgerEntry.objects.count()) == (before, ledger)
    # The game and the report are stored and applied: the floor's record of play is whole.
    stored = MachineEvent.objects.filter(pending=False).values_list("type", flat=True).order_by("seq")
    assert list(stored) == [MachineEvent.Type.GAME, MachineEvent.Type.JACKPOT]
    assert jackpots_audit()[1] == []


def test_no_contribution_while_suspended_and_contributions_resume_after(linked, manager):
    _, machines, level = linked
    level_suspend(level, manager, "signs being replaced")
    GameEventFactory(machine=machines[0], wager_cents=1_000)
    contributions_apply()
    assert _meters(level)[:4] == (100_000_000, 0, 0, 0)
    level_resume(level, manager, "signs back")
    GameEventFactory(machine=machines[1], wager_cents=1_000)
    contributions_apply()
    # Only the game after the resumption: 1% and 0.2% of €10.00.
    assert _meters(level)[:4] == (100_010_000, 2_000, 0, 1_000)
    assert jackpots_audit()[1] == []


def test_suspend_and_resume_are_on_the_change_log_and_the_significant_events_register(linked, manager):
    _, _, level = linked
    suspended = level_suspend(level, manager, "  controller fault ")
    resumed = level_resume(level, manager, "controller replaced")
    rows = list(
        LevelChange.objects.filter(level=level).values_list("old", "new", "user__username", "reason", "state")
    )
    assert rows == [
        ({"state": "active"}, {"state": "suspended"}, "manager", "controller fault", "applied"),
        ({"state": "suspended"}, {"state": "active"}, "manager", "controller replaced", "applied"),
    ]
    nog = Venue.objects.get(code="NOG")
    events = list(
        SignificantEvent.objects.order_by("id").values_list(
            "kind", "venue_id", "subject", "level_id", "user__username", "detail", "reference"
        )
    )
    assert events == [
        (
            "level_suspended",
            nog.id,
            "Diamond Vault / Grand",
            level.id,
            "manager",
            "controller fault",
            f"change {suspended.pk}",
        ),
        (
            "level_resumed",
            nog.id,
            "Diamond Vault / Grand",
            level.id,
            "manager",
            "controller replaced",
            f"change {resumed.pk}",
        ),
    ]
    level.refresh_from_db()
    # Each change moves the value sequence on (1 when created), so signs and gateways take the new state.
    assert (level.state, level.seq) == ("active", 3)


def test_a_link_across_venues_is_registered_for_the_whole_house(linked, manager):
    progressive, _, level = linked
    elsewhere = SlotMachineFactory(room=RoomFactory(venue=VenueFactory(code="VEN", name="Ca' Vendramin")))
    ProgressiveMachineFactory(progressive=progressive, machine=elsewhere)
    level_suspend(level, manager, "link maintenance")
    assert SignificantEvent.objects.get().venue_id is None


@pytest.mark.parametrize("reason", ["", "   ", None])
def test_a_reason_is_required_and_nothing_is_written(linked, manager, reason):
    _, _, level = linked
    with pytest.raises(EngineError) as error:
        level_suspend(level, manager, reason)
    assert error.value.code == "reason_required"
    level.refresh_from_db()
    assert (level.state, level.seq) == ("active", 1)
    assert (LevelChange.objects.count(), SignificantEvent.objects.count()) == (0, 0)


def test_suspending_twice_or_resuming_an_active_level_is_refused(linked, manager):
    _, _, level = linked
    with pytest.raises(EngineError) as error:
        level_resume(level, manager, "why not")
    assert error.value.code == "level_already_active"
    level_suspend(level, manager, "fault")
    with pytest.raises(EngineError) as error:
        level_suspend(level, manager, "fault again")
    assert error.value.code == "level_already_suspended"
    assert (LevelChange.objects.count(), SignificantEvent.objects.count()) == (1, 1)


def test_a_suspended_level_is_won_by_no_other_path(linked, manager):
    _, _, level = linked
    level_suspend(level, manager, "fault")
    before = _meters(level)
    with pytest.raises(EngineError) as error:
        level_award(level.id, mode=AwardMode.WHOLE, reference="a table prize")
    assert error.value.code == "level_suspended"
    assert (_meters(level), Hit.objects.count()) == (before, 0)


def test_a_retired_level_takes_nothing_ever_again(linked, manager):
    _, machines, level = linked
    GameEventFactory(machine=machines[0], wager_cents=1_000)
    contributions_apply()
    # Retiring is another service's (its liability moves away first); the engine honours the state.
    Level.objects.filter(pk=level.pk).update(state=Level.State.RETIRED)
    before = _meters(level)
    GameEventFactory(machine=machines[0], wager_cents=450)
    report = JackpotEventFactory(machine=machines[0], level_id=level.id, amount_cents=100_000)
    contributions_apply()
    assert HitRefusal.objects.get(event_id=report.id).code == "level_retired"
    assert _meters(level) == before
    for attempt in (
        lambda: level_award(level.id, mode=AwardMode.WHOLE),
        lambda: level_parameters_change(level, manager, {"reset_mc": 200_000_000}, "new seed"),
        lambda: level_resume(level, manager, "back"),
        lambda: level_suspend(level, manager, "pause"),
    ):
        with pytest.raises(EngineError) as error:
            attempt()
        assert error.value.code == "level_retired"
    assert _meters(level) == before
    assert (LevelChange.objects.count(), SignificantEvent.objects.count(), Hit.objects.count()) == (0, 0, 0)
    # Its history stays: the ledger still holds what it took.
    assert LedgerEntry.objects.filter(level=level, kind="contribution").count() == 1


def test_the_public_api_shows_a_suspended_level_and_no_retired_one(linked, manager, client):
    progressive, _, grand = linked
    minor = level_create(progressive, name="Minor", position=2, params=GRAND)
    level_suspend(grand, manager, "fault")

    def shown() -> list[tuple[str, str]]:
        levels = client.get(f"/api/v1/jackpots/{progressive.id}").json()["levels"]
        return [(level["name"], level["state"]) for level in levels]

    assert shown() == [("Grand", "suspended"), ("Minor", "active")]
    Level.objects.filter(pk=minor.pk).update(state=Level.State.RETIRED)
    assert shown() == [("Grand", "suspended")]
