"""Reads of the slots app."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection

from floor.models import Room
from slots.models import MachineAlert, SlotMachine
from slots.services.parsing import MachineInfo

# Written out rather than built by the ORM on every request: this runs once per events request, where
# compiling the equivalent queryset cost more than executing it.
_MACHINES_SQL = (
    "SELECT m.id, m.asset_number, r.venue_id, m.bank_id, m.denomination_cents, m.min_bet_cents, "
    f"m.max_bet_cents, m.meter_digits, m.status FROM {SlotMachine._meta.db_table} m "
    f"JOIN {Room._meta.db_table} r ON r.id = m.room_id WHERE m.asset_number IN ({{}})"
)


def machines_by_asset(asset_numbers: Iterable[str]) -> dict[str, MachineInfo]:
    """The machines named in a batch, in one query."""
    # An asset number is at most 16 characters; NUL cannot even be sent to PostgreSQL.
    asset_numbers = [asset for asset in set(asset_numbers) if len(asset) <= 16 and "\x00" not in asset]
    if not asset_numbers:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_MACHINES_SQL.format(", ".join(["%s"] * len(asset_numbers))), asset_numbers)
        return {row[1]: MachineInfo(*row) for row in cursor.fetchall()}


def machine_alerts_open(machine: SlotMachine) -> list[MachineAlert]:
    return list(MachineAlert.objects.filter(machine=machine, acknowledged_at__isnull=True))
