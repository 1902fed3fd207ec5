"""What the jackpot admins share: the workspace permissions, euro columns, the audit trail."""

from __future__ import annotations

from django.contrib.admin.models import CHANGE, LogEntry
from django.db import models
from django.http import HttpRequest

from floor.templatetags.money import mc_to_eur

VERIFY_HIT = "floor.verify_hit"
PAY_HIT = "floor.pay_hit"
VOID_HIT = "floor.void_hit"
CHANGE_LEVEL_PARAMETERS = "floor.change_level_parameters"
SEE_MYSTERY_TRIGGER = "floor.see_mystery_trigger"


def eur_mc(millicents: int | None) -> str:
    return "-" if millicents is None else mc_to_eur(millicents)


def audit(request: HttpRequest, obj: models.Model, message: str) -> LogEntry:
    """The admin's own log (who, when, what): every workspace action leaves one row."""
    return LogEntry.objects.log_actions(
        user_id=request.user.pk,
        queryset=[obj],
        action_flag=CHANGE,
        change_message=message,
        single_object=True,
    )


class ReadOnlyAdmin:
    """Nothing is added, edited or deleted through these pages: money moves only through the engine."""

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
