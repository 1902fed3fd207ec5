"""The machines a batch names, remembered by this process so a busy machine's posts skip their read.

A remembered machine is never trusted on its own, as a cached key is not (slots.services.auth): what a
batch was checked against is confirmed before the batch is stored or answered. The single statement of
games and jackpots compares each machine's row with it while it writes (slots.services.storage); every other
request, and every answer that refuses an event, reads the machines again and compares. When they differ
(a machine moved bank, changed bets, went out of service, was renamed) nothing was stored: the batch is
checked again against the machines as they are now. So a change made by any process, by any means (the
admin, a plain UPDATE), counts from the next request to start after its commit, with no message between
processes. The read cost 3% of an event post (py-spy); the expiry only bounds how long an idle machine
is remembered.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from slots import selectors
from slots.services.parsing import MachineInfo

MACHINE_MAP_SECONDS = 60.0
_MACHINE_MAP_MAX = 10_000
# asset number -> (expires at, machine)
_map: dict[str, tuple[float, MachineInfo]] = {}


class MachinesChanged(Exception):
    """A machine a batch was checked against is not what it was: nothing of the batch was stored.
    ``machines`` are the batch's machines as they are now, when the check read them."""

    def __init__(self, machines: dict[str, MachineInfo] | None = None) -> None:
        super().__init__()
        self.machines = machines


def machine_map_read(asset_numbers: Iterable[str]) -> tuple[dict[str, MachineInfo], bool]:
    """The machines with these asset numbers, and whether they came from this process's memory (then they
    must be confirmed: ``machine_map_confirm``, or the storage's guarded statement)."""
    asset_numbers = set(asset_numbers)
    now = time.monotonic()
    found: dict[str, MachineInfo] = {}
    for asset in asset_numbers:
        entry = _map.get(asset)
        if entry is None or entry[0] <= now:
            return machine_map_refresh(asset_numbers), False
        found[asset] = entry[1]
    return found, bool(found)


def machine_map_refresh(asset_numbers: Iterable[str]) -> dict[str, MachineInfo]:
    """The machines as they are now (one query), remembered."""
    machines = selectors.machines_by_asset(asset_numbers)
    if len(_map) + len(machines) > _MACHINE_MAP_MAX:
        _map.clear()
    expires = time.monotonic() + MACHINE_MAP_SECONDS
    for asset in asset_numbers:
        _map.pop(asset, None)
    for asset, machine in machines.items():
        _map[asset] = (expires, machine)
    return machines


def machine_map_confirm(machines: dict[str, MachineInfo]) -> None:
    """MachinesChanged, with them as they are now, unless every one of ``machines`` is still what it was
    (one query)."""
    current = machine_map_refresh(machines)
    if current != machines:
        raise MachinesChanged(current)


def machine_map_clear() -> None:
    _map.clear()
