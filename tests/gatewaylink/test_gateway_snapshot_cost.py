"""The cost of a gateway connection is its snapshot: a fixed number of queries for any floor, and no
member machine loaded (they were, with their rooms and venues, to name the venues: 38 of the 45 ms of CPU a
connection cost on the demo floor; 6 of 17 ms after, bench/results/2026-11-27-gateway-connect.md)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models.signals import post_init
from django.test.utils import CaptureQueriesContext

from gatewaylink.selectors import gateway_snapshot
from slots.models import SlotMachine
from tests.factories import (
    LevelFactory,
    ProgressiveFactory,
    ProgressiveMachineFactory,
    RoomFactory,
    SlotMachineFactory,
    VenueFactory,
)

pytestmark = pytest.mark.django_db


def floor_make(progressives: int, levels: int, machines: int) -> list[int]:
    """Progressives of ``levels`` levels, each with ``machines`` members half at Ca' Noghera, half at Ca'
    Vendramin Calergi."""
    rooms = [
        RoomFactory(venue=VenueFactory()),
        RoomFactory(venue=VenueFactory(code="VEN", name="Ca' Vendramin")),
    ]
    ids = []
    for _ in range(progressives):
        progressive = ProgressiveFactory()
        for position in range(1, levels + 1):
            LevelFactory(progressive=progressive, name=f"L{position}", position=position)
        for index in range(machines):
            machine = SlotMachineFactory(room=rooms[index % 2])
            ProgressiveMachineFactory(progressive=progressive, machine=machine)
        ids.append(progressive.id)
    return ids


def snapshot_measured(ids: list[int]) -> tuple[list[dict], int, int]:
    """The snapshot, the queries it took and the slot machines it loaded."""
    loaded = []

    def count(sender, instance, **kwargs) -> None:
        loaded.append(instance)

    post_init.connect(count, sender=SlotMachine)
    try:
        with CaptureQueriesContext(connection) as queries:
            snapshot = gateway_snapshot(ids)
    finally:
        post_init.disconnect(count, sender=SlotMachine)
    return snapshot, len(queries), len(loaded)


def test_a_bigger_floor_costs_the_snapshot_no_more_queries_and_loads_no_machine() -> None:
    small = floor_make(progressives=1, levels=1, machines=1)
    _, small_queries, _ = snapshot_measured(small)
    big = floor_make(progressives=3, levels=4, machines=12)
    snapshot, big_queries, machines_loaded = snapshot_measured(big)
    # Nine: the machines' venues and the tables' (asked of the tables app through the engine's providers
    # since it left the engine) are a query each; they were one UNION before. And the wide-area site's two:
    # the link's amounts of the levels it keeps (``levels_shown_elsewhere``) and its silent links.
    assert big_queries == small_queries == 9
    assert machines_loaded == 0
    assert [p["venues"] for p in snapshot] == [["NOG", "VEN"]] * 3
    assert [[level["name"] for level in p["levels"]] for p in snapshot] == [["L1", "L2", "L3", "L4"]] * 3
    assert {level["last_hit"] for p in snapshot for level in p["levels"]} == {None}
