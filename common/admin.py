"""What every app's admin shares: read-only pages and the admin's own log of each action. In ``floor``,
the lowest app, so that slots and jackpots both use it without importing each other."""

from __future__ import annotations

from django.contrib.admin.models import CHANGE, LogEntry
from django.db import models
from django.http import HttpRequest


def audit(request: HttpRequest, obj: models.Model, message: str) -> LogEntry:
    """The admin's own log (who, when, what): every workspace action leaves one row."""
    user_id = request.user.pk
    # Every workspace action is behind login; an anonymous request would not get here (and its None
    # would fail the log's NOT NULL user_id anyway).
    assert user_id is not None
    return LogEntry.objects.log_actions(
        user_id=user_id,
        queryset=[obj],
        action_flag=CHANGE,
        change_message=message,
        single_object=True,
    )


class ReadOnlyAdmin:
    """Nothing is added, edited or deleted through these pages: money and meters move only through their
    services."""

    def has_add_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return False
