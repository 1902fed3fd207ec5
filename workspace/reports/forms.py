from __future__ import annotations

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from common.days import BusinessDayField, business_date_of
from common.forms import IsoDateInput
from floor.models import Room, Venue
from jackpots.models import Level
from workspace.reports.selectors import GROUP_LABELS

MAX_DAYS = 400
# Every ledger row is drawn (merged to the pixel): a quarter stays a readable chart.
MAX_HISTORY_DAYS = 93


def _today() -> object:
    return business_date_of(timezone.now(), "Europe/Rome")


class BusinessDaysForm(forms.Form):
    """A range of business days, first..last inclusive, at most ``max_days`` long."""

    max_days = MAX_DAYS
    first = BusinessDayField(label=_("From business day"), widget=IsoDateInput())
    last = BusinessDayField(label=_("To business day"), widget=IsoDateInput())

    def clean(self) -> dict:
        data = super().clean()
        first, last = data.get("first"), data.get("last")
        if first and last:
            if last < first:
                raise forms.ValidationError(_("The last day comes before the first."), code="range")
            if (last - first).days >= self.max_days:
                raise forms.ValidationError(
                    _("At most %(days)d days at a time."), code="range", params={"days": self.max_days}
                )
        return data


class GameReportForm(BusinessDaysForm):
    venue = forms.ModelChoiceField(Venue.objects.all(), to_field_name="code", label=_("Venue"))
    group_by = forms.ChoiceField(choices=list(GROUP_LABELS.items()), initial="machine", label=_("Per"))
    field_order = ["venue", "first", "last", "group_by"]

    @classmethod
    def defaults(cls, venue: Venue | None) -> dict:
        """Today's business day at the venue the person is working in, per machine."""
        today = _today()
        return {"venue": venue.code if venue else None, "first": today, "last": today, "group_by": "machine"}


class RoomHoursForm(forms.Form):
    room = forms.ModelChoiceField(Room.objects.select_related("venue"), label=_("Room"))
    day = BusinessDayField(label=_("Business day"), widget=IsoDateInput())

    @classmethod
    def defaults(cls, venue: Venue | None) -> dict:
        """Today's business day in the first room of the venue the person is working in."""
        rooms = Room.objects.order_by("venue__code", "number")
        room = (rooms.filter(venue=venue).first() if venue else None) or rooms.first()
        return {"room": room.pk if room else None, "day": _today()}


class LevelHistoryForm(BusinessDaysForm):
    max_days = MAX_HISTORY_DAYS
    level = forms.ModelChoiceField(Level.objects.select_related("progressive"), label=_("Level"))
    field_order = ["level", "first", "last"]

    @classmethod
    def defaults(cls) -> dict:
        """Today's business day of the first level (the first progressive's top level)."""
        level = Level.objects.order_by("progressive__name", "position", "pk").first()
        today = _today()
        return {"level": level.pk if level else None, "first": today, "last": today}
