"""A level's parameter change as a person reads it: "Reset: €5,000.00 → €6,000.00", not the stored JSON."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from common.money import cents_eur_grouped, mc_eur_grouped
from jackpots.models import Level, LevelChange

# The level's parameters a change can name (jackpots.services.parameters), as the change history says them.
PARAMETER_LABELS = {
    "reset_mc": gettext_lazy("Reset"),
    "limit_mc": gettext_lazy("Limit"),
    "rate": gettext_lazy("Contribution rate"),
    "reserve_rate": gettext_lazy("Reserve rate"),
    "min_wager_cents": gettext_lazy("Minimum eligible wager"),
    "max_bet_only": gettext_lazy("Max bet only"),
    "mystery": gettext_lazy("Mystery must-hit-by"),
    "stopped": gettext_lazy("Stopped"),  # before level states (jackpots migration 0018)
    "state": gettext_lazy("State"),
    "trigger_mc": gettext_lazy("Must hit by"),
    "name": gettext_lazy("Name"),
}


@dataclass
class ChangeLine:
    """One parameter's old and new value, both as text."""

    label: str
    old: str
    new: str

    def __str__(self) -> str:
        return f"{self.label}: {self.old} → {self.new}"


def parameter_value(key: str, value: object) -> str:
    """Money in euros (millicents and cents by the key's unit), yes/no, none; anything else as stored."""
    if value is None:
        return _("none")
    if key == "state" and value in Level.State.values:
        return str(Level.State(value).label)
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, int) and key.endswith("_mc"):
        return f"€{mc_eur_grouped(value)}"
    if isinstance(value, int) and key.endswith("_cents"):
        return f"€{cents_eur_grouped(value)}"
    return str(value)


def parameter_label(key: str) -> str:
    label = PARAMETER_LABELS.get(key)
    return str(label) if label is not None else key.replace("_", " ").capitalize()


def change_lines(change: LevelChange) -> list[ChangeLine]:
    """Every parameter the change names, old and new side by side, in the order they were stored."""
    old = change.old if isinstance(change.old, dict) else {}
    new = change.new if isinstance(change.new, dict) else {}
    keys = list(dict.fromkeys([*old, *new]))
    return [
        ChangeLine(
            label=parameter_label(key),
            old=parameter_value(key, old.get(key)),
            new=parameter_value(key, new.get(key)),
        )
        for key in keys
    ]
