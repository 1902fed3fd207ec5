"""Template filters of the workspace pages."""

from __future__ import annotations

from datetime import timedelta

from django import template
from django.utils.translation import gettext as _

from workspace.desk.selectors import person as person_name

register = template.Library()


@register.filter
def duration(span: timedelta | None) -> str:
    """'2 d 3 h', '3 h 05 min', '4 min 10 s': the two largest units a person reads at a glance."""
    if span is None:
        return ""
    seconds = int(span.total_seconds())
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    if days:
        return _("%(d)s d %(h)s h") % {"d": days, "h": hours}
    if hours:
        return _("%(h)s h %(m)02d min") % {"h": hours, "m": minutes}
    return _("%(m)s min %(s)02d s") % {"m": minutes, "s": seconds}


@register.filter
def person(user) -> str:
    """A person as the floor reads them: the full name, else the user name."""
    return person_name(user)
