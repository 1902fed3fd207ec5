"""What the workspace tests share: a hit waiting on a machine."""

from __future__ import annotations

from jackpots.services import level_hit
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory
from tests.floor.staff import level_seeded


def hit_on(asset: str, reset_mc: int, name: str = "Grease Grand"):
    """A hit of ``reset_mc`` (the level's amount right after seeding) on a new machine ``asset``."""
    machine = SlotMachineFactory(asset_number=asset, game_title="Grease")
    progressive = ProgressiveFactory(name=name)
    ProgressiveMachineFactory(progressive=progressive, machine=machine)
    level = level_seeded(progressive=progressive, reset_mc=reset_mc)
    return level_hit(level.pk, machine_id=machine.pk)


# The winner's identification as the desk's pay form posts it (paying €2,000 or more needs it).
WINNER_FORM = {
    "winner_name": "Mario Rossi",
    "document_type": "id_card",
    "document_number": "CA12345AB",
    "document_country": "it",
}
