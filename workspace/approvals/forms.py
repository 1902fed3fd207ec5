"""The forms of the level page's proposals and of the approval queue's rejections."""

from __future__ import annotations

from decimal import Decimal

from django import forms
from django.utils.translation import gettext_lazy as _

from jackpots.forms import LevelParametersForm
from jackpots.models import ChangeProposal, Level

MC_PER_EUR = 100_000
AMOUNT_KINDS = (ChangeProposal.Kind.CORRECTION, ChangeProposal.Kind.TOPUP, ChangeProposal.Kind.TRANSFER)


def _reason() -> forms.CharField:
    return forms.CharField(
        label=_("Reason"),
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Recorded with your name; another person approves or rejects the change."),
    )


def _targets(level: Level, *, other_progressive: bool) -> forms.ModelChoiceField:
    levels = Level.objects.exclude(state=Level.State.RETIRED).select_related("progressive")
    levels = (
        levels.exclude(progressive_id=level.progressive_id)
        if other_progressive
        else levels.exclude(pk=level.pk)
    )
    return forms.ModelChoiceField(
        queryset=levels.order_by("progressive__name", "position", "id"),
        label=_("To the level"),
        help_text=_("Into its reserve: it funds that level's next start."),
    )


class AmountProposalForm(forms.Form):
    """A correction (signed), a top-up or a transfer, in euros to the millicent."""

    amount_eur = forms.DecimalField(
        label=_("Amount (€)"), max_digits=13, decimal_places=5, localize=True, widget=forms.TextInput()
    )
    reason = _reason()

    def __init__(self, *args, level: Level, kind: str, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if kind == "correction":
            self.fields["amount_eur"].help_text = _("Negative to take money out, positive to put it in.")
        if kind == "transfer":
            self.fields["target_level"] = _targets(level, other_progressive=False)
            self.order_fields(["amount_eur", "target_level", "reason"])

    def amount_mc(self) -> int:
        """Exact: the field allows five decimals, so the euros times 100,000 are whole millicents."""
        return int(self.cleaned_data["amount_eur"] * Decimal(MC_PER_EUR))


class RetireForm(forms.Form):
    """Retires the level's progressive; its liability goes to a level of another progressive, or to the
    register of retired liabilities when none is chosen."""

    reason = _reason()

    def __init__(self, *args, level: Level, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        target = _targets(level, other_progressive=True)
        target.required = False
        target.empty_label = _("None: to the register of retired liabilities")
        self.fields["target_level"] = target
        self.order_fields(["target_level", "reason"])


class RejectForm(forms.Form):
    reason = forms.CharField(label=_("Reason of the rejection"), max_length=2000)


def level_forms(level: Level, data=None, kind: str = "") -> dict:
    """The level page's proposal forms, the one posted (``kind``) bound to ``data``."""

    def bound(name: str):
        return data if name == kind else None

    forms = {
        name: AmountProposalForm(bound(name), level=level, kind=name, prefix=name) for name in AMOUNT_KINDS
    }
    forms["parameters"] = LevelParametersForm(
        bound("parameters"), initial=LevelParametersForm.initial_for(level), prefix="parameters"
    )
    forms["retirement"] = RetireForm(bound("retirement"), level=level, prefix="retirement")
    return forms
