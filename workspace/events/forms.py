"""The significant-events page's filters: the business day, and what to narrow the day's rows to."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from common.days import BusinessDayField
from common.forms import IsoDateInput
from floor.models import SignificantEvent

TEXT_MAX_CHARS = 120


class DayForm(forms.Form):
    day = BusinessDayField(label=_("Business day"), widget=IsoDateInput())


class EventFilterForm(forms.Form):
    """Every filter optional; a CharField refuses NUL characters (PostgreSQL cannot take them)."""

    kind = forms.ChoiceField(
        label=_("Kind"), required=False, choices=[("", _("Every kind")), *SignificantEvent.Kind.choices]
    )
    subject = forms.CharField(label=_("Machine, level or link"), required=False, max_length=TEXT_MAX_CHARS)
    user = forms.CharField(label=_("By"), required=False, max_length=TEXT_MAX_CHARS)
