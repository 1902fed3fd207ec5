"""Seed data of the progressives and the table games. Every step is idempotent."""

from __future__ import annotations


def progressives_seed() -> None:
    """Diamond Vault, Grease, Ainsworth, Super Spin and Venezia Mystery."""


def tables_seed() -> None:
    """The Caribbean Stud and Casino Hold'em tables with their progressives and pay tables."""
    from jackpots.tables.seed import tables_seed as seed

    seed()
