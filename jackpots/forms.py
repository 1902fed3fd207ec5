"""Forms shared by the admin and the workspace: a level's parameters in euros and rates."""

from __future__ import annotations

from decimal import Decimal

from django import forms
from django.utils.translation import gettext_lazy

from jackpots.models import Level

MC_PER_EUR = 100_000


class LevelParametersForm(forms.Form):
    """The level's parameters in euros and rates; only the fields that differ become the change."""

    reset_eur = forms.DecimalField(label=gettext_lazy("Reset value (EUR)"), min_value=0, decimal_places=5)
    rate = forms.DecimalField(label=gettext_lazy("Rate"), min_value=0, max_value=1, decimal_places=8)
    reserve_rate = forms.DecimalField(
        label=gettext_lazy("Reserve rate"), min_value=0, max_value=1, decimal_places=8
    )
    limit_eur = forms.DecimalField(
        label=gettext_lazy("Limit (EUR)"), min_value=0, decimal_places=5, required=False
    )
    min_wager_cents = forms.IntegerField(label=gettext_lazy("Minimum eligible wager (cents)"), min_value=0)
    max_bet_only = forms.BooleanField(label=gettext_lazy("Max bet only"), required=False)
    mystery = forms.BooleanField(label=gettext_lazy("Mystery must-hit-by"), required=False)
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("Recorded with your name, the old and the new values (NJ 13:69E-1.39C)."),
    )

    @staticmethod
    def initial_for(level: Level) -> dict:
        return {
            "reset_eur": Decimal(level.reset_mc) / MC_PER_EUR,
            "rate": level.rate,
            "reserve_rate": level.reserve_rate,
            "limit_eur": None if level.limit_mc is None else Decimal(level.limit_mc) / MC_PER_EUR,
            "min_wager_cents": level.min_wager_cents,
            "max_bet_only": level.max_bet_only,
            "mystery": level.mystery,
        }

    def changes_for(self, level: Level) -> dict:
        data = self.cleaned_data
        wanted = {
            "reset_mc": int(data["reset_eur"] * MC_PER_EUR),
            "rate": data["rate"],
            "reserve_rate": data["reserve_rate"],
            "limit_mc": None if data["limit_eur"] is None else int(data["limit_eur"] * MC_PER_EUR),
            "min_wager_cents": data["min_wager_cents"],
            "max_bet_only": data["max_bet_only"],
            "mystery": data["mystery"],
        }
        return {name: value for name, value in wanted.items() if value != getattr(level, name)}
