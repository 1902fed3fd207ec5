"""The shape shared by the parameter-change logs of levels and of pay tables (NJ 13:69E-1.39C)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ChangeRecord(models.Model):
    """Who, when, old, new, why; staged or applied. Rows are appended; the only later write stamps when a
    staged change took effect."""

    class State(models.TextChoices):
        STAGED = "staged", _("Staged until the next reset")
        APPLIED = "applied", _("Applied")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        related_name="+",
        verbose_name=_("user"),
    )
    at = models.DateTimeField(_("requested at"))
    old = models.JSONField(_("old values"))
    new = models.JSONField(_("new values"))
    reason = models.TextField(_("reason"))
    state = models.CharField(_("state"), max_length=8, choices=State.choices)
    applied_at = models.DateTimeField(_("applied at"), null=True, blank=True)
    applied_cycle = models.PositiveIntegerField(_("first cycle with the change"), null=True, blank=True)

    class Meta:
        abstract = True
