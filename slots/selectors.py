"""Reads of the slots app."""

from __future__ import annotations

from collections.abc import Iterable

from jackpots.models import ProgressiveMachine
from slots.models import MachineAlert, SlotMachine
from slots.services.parsing import MachineInfo


def machines_by_asset(asset_numbers: Iterable[str]) -> dict[str, MachineInfo]:
    """The machines named in a batch, in one query."""
    rows = SlotMachine.objects.filter(asset_number__in=set(asset_numbers)).values_list(
        "id",
        "asset_number",
        "room__venue_id",
        "bank_id",
        "denomination_cents",
        "min_bet_cents",
        "max_bet_cents",
        "meter_digits",
        "status",
    )
    return {row[1]: MachineInfo(*row) for row in rows}


def levels_played(pairs: Iterable[tuple[int, int]]) -> set[tuple[int, int]]:
    """Which (machine_id, level_id) of ``pairs`` are a level of a progressive the machine is an enabled
    member of, in one query."""
    pairs = set(pairs)
    if not pairs:
        return set()
    rows = ProgressiveMachine.objects.filter(
        enabled=True,
        machine_id__in={machine_id for machine_id, _ in pairs},
        progressive__levels__id__in={level_id for _, level_id in pairs},
    ).values_list("machine_id", "progressive__levels__id")
    return pairs & set(rows)


def machine_alerts_open(machine: SlotMachine) -> list[MachineAlert]:
    return list(MachineAlert.objects.filter(machine=machine, acknowledged_at__isnull=True))
