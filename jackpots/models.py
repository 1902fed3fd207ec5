"""Progressives, their levels, the contribution ledger and hits.

Money: wagers and awards are integer cents; pool amounts are integer millicents (1/1000 cent, as G2S
carries them); rates are exact Decimals. No float touches money.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Progressive(models.Model):
    class Kind(models.TextChoices):
        STANDALONE = "standalone", _("Standalone")
        LINKED = "linked", _("Linked")
        WIDE_AREA = "wide_area", _("Wide-area")

    name = models.CharField(_("name"), max_length=120)
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    currency = models.CharField(_("currency"), max_length=3, default="EUR")
    machines = models.ManyToManyField(
        "slots.SlotMachine", through="ProgressiveMachine", related_name="progressives", blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("progressive")
        verbose_name_plural = _("progressives")

    def __str__(self) -> str:
        return self.name


class ProgressiveMachine(models.Model):
    progressive = models.ForeignKey(Progressive, on_delete=models.CASCADE, related_name="members")
    machine = models.ForeignKey("slots.SlotMachine", on_delete=models.PROTECT, related_name="memberships")
    enabled = models.BooleanField(_("enabled"), default=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["progressive", "machine"], name="progressive_machine_unique")
        ]
        verbose_name = _("member machine")
        verbose_name_plural = _("member machines")

    def __str__(self) -> str:
        return f"{self.progressive} / {self.machine_id}"


class Level(models.Model):
    """One level of a progressive: its parameters (NJ 13:69E-1.39A) and its meters."""

    progressive = models.ForeignKey(Progressive, on_delete=models.PROTECT, related_name="levels")
    name = models.CharField(_("name"), max_length=60)
    position = models.PositiveSmallIntegerField(_("position"), default=1, help_text=_("1 is the top level."))
    # Parameters.
    reset_mc = models.BigIntegerField(_("reset value (millicents)"))
    rate = models.DecimalField(
        _("rate"), max_digits=12, decimal_places=8, help_text=_("Share of each wager.")
    )
    reserve_rate = models.DecimalField(_("reserve rate"), max_digits=12, decimal_places=8, default=0)
    limit_mc = models.BigIntegerField(_("limit (millicents)"), null=True, blank=True)
    min_wager_cents = models.PositiveBigIntegerField(_("minimum eligible wager (cents)"), default=0)
    max_bet_only = models.BooleanField(_("max bet only"), default=False)
    mystery = models.BooleanField(_("mystery must-hit-by"), default=False)
    stopped = models.BooleanField(_("stopped"), default=False)
    # State (meters).
    current_mc = models.BigIntegerField(_("current amount (millicents)"), default=0)
    reserve_mc = models.BigIntegerField(_("reserve (millicents)"), default=0)
    overflow_mc = models.BigIntegerField(_("overflow (millicents)"), default=0)
    wagered_cents = models.BigIntegerField(_("amount wagered (cents)"), default=0)
    hits = models.PositiveIntegerField(_("hits"), default=0)
    total_won_cents = models.BigIntegerField(_("total won (cents)"), default=0)
    cycle = models.PositiveIntegerField(_("cycle"), default=1)
    seq = models.BigIntegerField(_("value sequence"), default=0)

    class Meta:
        ordering = ["progressive_id", "position", "id"]
        verbose_name = _("level")
        verbose_name_plural = _("levels")

    def __str__(self) -> str:
        return f"{self.progressive.name} {self.name}"


class Hit(models.Model):
    class State(models.TextChoices):
        HIT = "hit", _("Hit")
        VERIFIED = "verified", _("Verified")
        PAID = "paid", _("Paid")
        VOIDED = "voided", _("Voided")

    level = models.ForeignKey(Level, on_delete=models.PROTECT, related_name="hit_records")
    machine = models.ForeignKey(
        "slots.SlotMachine", on_delete=models.PROTECT, related_name="hits", null=True, blank=True
    )
    state = models.CharField(_("state"), max_length=12, choices=State.choices, default=State.HIT)
    at = models.DateTimeField(_("hit at"))
    amount_cents = models.BigIntegerField(_("amount (cents)"))
    level_seq = models.BigIntegerField(_("level value sequence at the hit"))
    cycle = models.PositiveIntegerField(_("cycle"))
    created_at = models.DateTimeField(auto_now_add=True)
    verified_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    verified_at = models.DateTimeField(null=True, blank=True)
    paid_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    paid_at = models.DateTimeField(null=True, blank=True)
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    voided_at = models.DateTimeField(null=True, blank=True)
    void_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("hit")
        verbose_name_plural = _("hits")

    def __str__(self) -> str:
        return f"{self.level} #{self.pk}"
