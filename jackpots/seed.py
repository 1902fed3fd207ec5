"""Seed data of the progressives and the table games. Every step is idempotent.

The machines come from the floor seed; they are looked up by game title and manufacturer, and a
progressive whose machines are not on the floor yet is simply not created.

Rates chosen (share of each eligible wager to the displayed amount / to the reserve):
- Diamond Vault (linked, 4 machines, max bet €4.50 only): Grand €1,000 reset, 0.50% / 0.10%, limit
  €25,000; Major €250, 0.75% / 0.10%, limit €5,000; Minor €50, 1.00% / 0.05%, limit €500.
- Grease (linked, 5 levels, min bet €0.60): Grand €5,000, 0.40% / 0.10%, limit €50,000, max bet €3.00
  only; Major €1,000, 0.30% / 0.05%, limit €10,000; Minor €200, 0.30% / 0.05%, limit €2,000; Mini €50,
  0.50%, limit €500; Bonus €10, 0.50%, limit €100.
- Ainsworth (standalone on each €0.02 machine): Major €100, 0.80% / 0.10%, limit €2,000; Minor €100,
  1.20% / 0.10%, limit €2,000 (the documented €100 to €2,000).
- Super Spin (wide-area, both venues): €1,000,000 reset, 0.05% / 0.01%, no limit; opens at the
  documented €1,151,748.00.
- Venezia Mystery (Ca' Noghera, must hit by €1,000): €500 reset, 0.50% / 0.05%, limit €1,000.
"""

from __future__ import annotations

from decimal import Decimal

from django.db.models import Q

from jackpots.models import Level, Progressive, ProgressiveMachine
from jackpots.services.core import Params
from jackpots.services.levels import level_create
from slots.models import SlotMachine

EUR = 100_000  # millicents in a euro

DIAMOND_VAULT = [
    ("Grand", Params(1000 * EUR, Decimal("0.005"), Decimal("0.001"), 25_000 * EUR, max_bet_only=True)),
    ("Major", Params(250 * EUR, Decimal("0.0075"), Decimal("0.001"), 5_000 * EUR, max_bet_only=True)),
    ("Minor", Params(50 * EUR, Decimal("0.01"), Decimal("0.0005"), 500 * EUR, max_bet_only=True)),
]
GREASE = [
    ("Grand", Params(5000 * EUR, Decimal("0.004"), Decimal("0.001"), 50_000 * EUR, 60, max_bet_only=True)),
    ("Major", Params(1000 * EUR, Decimal("0.003"), Decimal("0.0005"), 10_000 * EUR, 60)),
    ("Minor", Params(200 * EUR, Decimal("0.003"), Decimal("0.0005"), 2_000 * EUR, 60)),
    ("Mini", Params(50 * EUR, Decimal("0.005"), Decimal(0), 500 * EUR, 60)),
    ("Bonus", Params(10 * EUR, Decimal("0.005"), Decimal(0), 100 * EUR, 60)),
]
AINSWORTH = [
    ("Major", Params(100 * EUR, Decimal("0.008"), Decimal("0.001"), 2_000 * EUR)),
    ("Minor", Params(100 * EUR, Decimal("0.012"), Decimal("0.001"), 2_000 * EUR)),
]
SUPER_SPIN = [("Super Spin", Params(1_000_000 * EUR, Decimal("0.0005"), Decimal("0.0001")))]
SUPER_SPIN_OPENING_MC = 1_151_748 * EUR
MYSTERY = [
    ("Must Hit By €1,000", Params(500 * EUR, Decimal("0.005"), Decimal("0.0005"), 1_000 * EUR, mystery=True))
]


def _progressive(
    name: str, kind: str, machines: list[SlotMachine], levels, opening_mc: int | None = None
) -> None:
    if not machines:
        return
    progressive, _ = Progressive.objects.get_or_create(name=name, defaults={"kind": kind})
    for machine in machines:
        ProgressiveMachine.objects.get_or_create(progressive=progressive, machine=machine)
    for position, (level_name, params) in enumerate(levels, start=1):
        if not Level.objects.filter(progressive=progressive, name=level_name).exists():
            level_create(
                progressive, name=level_name, position=position, params=params, opening_mc=opening_mc
            )


def progressives_seed() -> None:
    """Diamond Vault, Grease, Ainsworth, Super Spin and Venezia Mystery."""
    machines = SlotMachine.objects.select_related("room__venue")
    diamond = list(machines.filter(game_title__icontains="Diamond Vault"))
    _progressive("Diamond Vault", Progressive.Kind.LINKED, diamond, DIAMOND_VAULT)
    grease = list(machines.filter(game_title__icontains="Grease"))
    _progressive("Grease", Progressive.Kind.LINKED, grease, GREASE)
    ainsworth = list(machines.filter(manufacturer__icontains="Ainsworth", denomination_cents=2))
    for machine in ainsworth:
        _progressive(f"Ainsworth {machine.asset_number}", Progressive.Kind.STANDALONE, [machine], AINSWORTH)
    named = (
        Q(game_title__icontains="Diamond Vault")
        | Q(game_title__icontains="Grease")
        | Q(manufacturer__icontains="Ainsworth")
    )
    others = machines.exclude(named)
    # Wide-area: every other machine of both venues (the super jackpot network the casino advertises).
    super_spin = list(others)
    if {m.room.venue.code for m in super_spin} >= {"VEN", "NOG"}:
        _progressive("Super Spin", Progressive.Kind.WIDE_AREA, super_spin, SUPER_SPIN, SUPER_SPIN_OPENING_MC)
    mystery = [m for m in super_spin if m.room.venue.code == "NOG"]
    _progressive("Venezia Mystery", Progressive.Kind.LINKED, mystery, MYSTERY)


def tables_seed() -> None:
    """The Caribbean Stud and Casino Hold'em tables with their progressives and pay tables."""
