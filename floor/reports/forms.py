from __future__ import annotations

from datetime import timedelta

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from floor.models import Room, Venue
from floor.reports.days import business_date_of
from floor.reports.selectors import GROUP_LABELS
from jackpots.models import Level

MAX_DAYS = 400
# One point per hour: a quarter of hours stays a readable line.
MAX_HISTORY_DAYS = 93


def _today() -> object:
    return business_date_of(timezone.now(), "Europe/Rome")


class GameReportForm(forms.Form):
    venue = forms.ModelChoiceField(Venue.objects.all(), to_field_name="code", label=_("Venue"))
    first = forms.DateField(label=_("From business day"), widget=forms.DateInput(attrs={"type": "date"}))
    last = forms.DateField(label=_("To business day"), widget=forms.DateInput(attrs={"type": "date"}))
    group_by = forms.ChoiceField(choices=list(GROUP_LABELS.items()), initial="machine", label=_("Per"))

    def clean(self) -> dict:
        data = super().clean()
        first, last = data.get("first"), data.get("last")
        if first and last:
            if last < first:
                raise forms.ValidationError(_("The last day comes before the first."), code="range")
            if (last - first).days >= MAX_DAYS:
                raise forms.ValidationError(
                    _("At most %(days)d days per report."), code="range", params={"days": MAX_DAYS}
                )
        return data

    @classmethod
    def initial_for_today(cls) -> dict:
        today = _today()
        return {"first": today - timedelta(days=6), "last": today, "group_by": "machine"}


class RoomHoursForm(forms.Form):
    room = forms.ModelChoiceField(Room.objects.select_related("venue"), label=_("Room"))
    day = forms.DateField(label=_("Business day"), widget=forms.DateInput(attrs={"type": "date"}))


class LevelHistoryForm(forms.Form):
    level = forms.ModelChoiceField(Level.objects.select_related("progressive"), label=_("Level"))
    first = forms.DateField(label=_("From business day"), widget=forms.DateInput(attrs={"type": "date"}))
    last = forms.DateField(label=_("To business day"), widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self) -> dict:
        data = super().clean()
        first, last = data.get("first"), data.get("last")
        if first and last:
            if last < first:
                raise forms.ValidationError(_("The last day comes before the first."), code="range")
            if (last - first).days >= MAX_HISTORY_DAYS:
                raise forms.ValidationError(
                    _("At most %(days)d days per history."), code="range", params={"days": MAX_HISTORY_DAYS}
                )
        return data
