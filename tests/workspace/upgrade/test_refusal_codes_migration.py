"""Migration jackpots 0018 drops ``Level.stopped`` (0017 already made a stopped level suspended) and renames
the jackpot reports refused on a stopped level, stored as ``level_stopped``, to ``level_suspended``."""

from __future__ import annotations

import pytest
from django.utils import timezone

from jackpots.models import HitRefusal
from tests.factories import LevelFactory, SlotMachineFactory
from tests.migrations import migrate, migrate_latest

BEFORE = [("jackpots", "0017_level_state_ledger_kinds")]
AFTER = [("jackpots", "0018_level_state_replaces_stopped")]


@pytest.mark.django_db(transaction=True)
def test_refusals_of_a_stopped_level_become_level_suspended():
    level = LevelFactory()
    machine = SlotMachineFactory()
    executor = migrate(BEFORE)
    try:
        old = executor.loader.project_state(BEFORE).apps
        assert any(field.name == "stopped" for field in old.get_model("jackpots", "Level")._meta.fields)
        refusals = old.get_model("jackpots", "HitRefusal")
        for event_id, code in ((1, "level_stopped"), (2, "not_max_bet")):
            refusals.objects.create(
                level_id=level.pk,
                machine_id=machine.pk,
                event_id=event_id,
                code=code,
                detail="",
                at=timezone.now(),
            )
    finally:
        migrate(AFTER)
        migrate_latest()
    assert list(HitRefusal.objects.order_by("event_id").values_list("code", flat=True)) == [
        "level_suspended",
        "not_max_bet",
    ]
