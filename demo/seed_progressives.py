"""The Venezia seed's progressives (`seed_venezia`). Every step is idempotent (the table games seed
theirs: tables.seed).

The machines come from the floor seed; they are looked up by game title and manufacturer, and a
progressive whose machines are not on the floor yet is simply not created.

Rates chosen (share of each eligible wager to the displayed amount / to the reserve):
- Diamond Vault (linked, 4 machines, max bet €4.50 only): Grand €1,000 reset, 0.50% / 0.10%, limit
  €25,000; Major €250, 0.75% / 0.10%, limit €5,000; Minor €50, 1.00% / 0.05%, limit €500.
- Grease (linked, 5 levels, min bet €0.60): Grand €5,000, 0.40% / 0.10%, limit €50,000, max bet €3.00
  only; Major €1,000, 0.30% / 0.05%, limit €10,000; Minor €200, 0.30% / 0.05%, limit €2,000; Mini €50,
  0.50%, limit €500; Bonus €10, 0.50%, limit €100.
- Ainsworth (standalone on each €0.02 machine, the documented €100 to €2,000): Major €500, 0.80% / 0.10%,
  limit €2,000; Minor €100, 1.20% / 0.10%, limit €500. The Major starts where the Minor stops, so the Major
  shows at least the Minor whatever is played and whichever hits: a casino never runs a Minor above its
  Major. (Both once had €100 to €2,000, the Minor growing faster: every sign showed Minor above Major. The
  seed moves levels still on those parameters, see ``ainsworth_levels_reorder``.)
- Super Spin (wide-area, both venues): €1,000,000 reset, 0.05% / 0.01%, no limit; opens at the
  documented €1,151,748.00.
- Venezia Mystery (Ca' Noghera, must hit by €1,000): €500 reset, 0.50% / 0.05%, limit €1,000.

On SAS (the demo's gateway, ``sas_seed``): the Ca' Noghera Diamond Vault bank on line-1 (addresses 1-4,
SAS group 1), the Grease bank on line-2 (1-3, group 2), and the first two Venezia Mystery machines on
line-3 (1-2, group 3), so that a mystery award reaches a machine behind the gateway. Each level's SAS level
is its position. A machine or progressive an operator has already put on SAS is left as it is.
"""

from __future__ import annotations

from decimal import Decimal

from django.db.models import F, Q

from jackpots.models import Level, LevelChange, Progressive, ProgressiveMachine
from jackpots.services.core import Params
from jackpots.services.levels import PARAM_FIELDS, level_create, level_params
from jackpots.services.parameters import level_parameters_change
from jackpots.services.states import level_resume, level_suspend
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
# The Minor fills faster (1.20%) and hits more often; its limit is the Major's reset value, so the Major
# (never below its reset value) is never below the Minor (never above its limit).
AINSWORTH = [
    ("Major", Params(500 * EUR, Decimal("0.008"), Decimal("0.001"), 2_000 * EUR)),
    ("Minor", Params(100 * EUR, Decimal("0.012"), Decimal("0.001"), 500 * EUR)),
]
# The parameters the seed gave Ainsworth levels before: levels still on them are moved to AINSWORTH.
AINSWORTH_BEFORE = {
    "Major": Params(100 * EUR, Decimal("0.008"), Decimal("0.001"), 2_000 * EUR),
    "Minor": Params(100 * EUR, Decimal("0.012"), Decimal("0.001"), 2_000 * EUR),
}
AINSWORTH_REASON = "Seed: the Ainsworth Major starts at the Minor's limit, so a sign never shows it lower."
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


def ainsworth_levels_reorder(progressive: Progressive) -> None:
    """Moves the levels of an Ainsworth progressive still on ``AINSWORTH_BEFORE`` to ``AINSWORTH``, each
    an audited parameter change by the system (user none): a level never played takes it at once (suspended,
    changed, resumed: its amount is brought up to the new reset value, a seed in the ledger); a level that
    has played keeps its live amount and takes it at its next hit (staged, rule 4). A level an operator
    has changed is left alone, and a level already moved is not moved twice."""
    for name, params in AINSWORTH:
        level = Level.objects.filter(progressive=progressive, name=name).first()
        before = AINSWORTH_BEFORE[name]
        if level is None or level_params(level) != before:
            continue
        if LevelChange.objects.filter(level=level, reason=AINSWORTH_REASON).exists():
            continue
        changes = {f: getattr(params, f) for f in PARAM_FIELDS if getattr(params, f) != getattr(before, f)}
        untouched = level.wagered_cents == 0 and level.hits == 0 and level.active
        if untouched:
            level_suspend(level, None, AINSWORTH_REASON)
        level_parameters_change(level, None, changes, AINSWORTH_REASON)
        if untouched:
            level_resume(level, None, AINSWORTH_REASON)


def progressives_seed() -> None:
    """Diamond Vault, Grease, Ainsworth, Super Spin and Venezia Mystery."""
    machines = SlotMachine.objects.select_related("room__venue")
    diamond = list(machines.filter(game_title__icontains="Diamond Vault"))
    _progressive("Diamond Vault", Progressive.Kind.LINKED, diamond, DIAMOND_VAULT)
    grease = list(machines.filter(game_title__icontains="Grease"))
    _progressive("Grease", Progressive.Kind.LINKED, grease, GREASE)
    ainsworth = list(machines.filter(manufacturer__icontains="Ainsworth", denomination_cents=2))
    for machine in ainsworth:
        name = f"Ainsworth {machine.asset_number}"
        _progressive(name, Progressive.Kind.STANDALONE, [machine], AINSWORTH)
        for progressive in Progressive.objects.filter(name=name):
            ainsworth_levels_reorder(progressive)
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
    sas_seed()


# (progressive, the venue's machines it takes, serial line, SAS group, handpay limit in cents or None)
SAS_BANKS = [
    ("Diamond Vault", Q(game_title__icontains="Diamond Vault"), "line-1", 1, 120_000),
    ("Grease", Q(game_title__icontains="Grease"), "line-2", 2, 120_000),
    ("Venezia Mystery", Q(), "line-3", 3, 120_000),
]
SAS_VENUE = "NOG"
SAS_MYSTERY_MACHINES = 2


def _sas_bank_machines(progressive: Progressive, machines: Q) -> list[SlotMachine]:
    found = SlotMachine.objects.filter(
        machines, memberships__progressive=progressive, room__venue__code=SAS_VENUE
    ).order_by("asset_number")
    found = list(found)
    return found[:SAS_MYSTERY_MACHINES] if progressive.name == "Venezia Mystery" else found


def sas_seed() -> None:
    """The demo's SAS banks (see the module's docstring); idempotent."""
    for name, machines, line, group, limit in SAS_BANKS:
        progressive = Progressive.objects.filter(name=name).first()
        if progressive is None:
            continue
        if progressive.sas_group == 0:
            Progressive.objects.filter(pk=progressive.pk).update(sas_group=group)
            Level.objects.filter(progressive=progressive, sas_level__isnull=True, position__lte=32).update(
                sas_level=F("position")
            )
        for address, machine in enumerate(_sas_bank_machines(progressive, machines), start=1):
            if machine.sas_address is None and not machine.sas_line:
                SlotMachine.objects.filter(pk=machine.pk).update(
                    sas_line=line, sas_address=address, sas_group=group, sas_handpay_limit_cents=limit
                )
