"""Template filters of the live floor pages."""

from __future__ import annotations

from django import template

from workspace.live.selectors import STATUS_EVENT_LABELS

register = template.Library()


@register.filter
def status_label(status: object) -> str:
    """A status event's word in the reader's language; an unknown one as sent, nothing as nothing."""
    if not isinstance(status, str):
        return ""
    return str(STATUS_EVENT_LABELS.get(status, status))
