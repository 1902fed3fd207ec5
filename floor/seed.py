"""Seed data of the floor, from the casino's documents. Every step is idempotent."""

from __future__ import annotations


def floor_seed(machines_per_room: int | None = None) -> None:
    """Venues, rooms, banks and machines (the named ones, then generic ones up to a realistic floor)."""


def screens_seed() -> None:
    """One signage screen per room, showing that room's progressives and the wide-area ones."""
