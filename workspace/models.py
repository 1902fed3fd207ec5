"""What the workspace keeps: the jackpot slips as printed, and the signed-off business days."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from jackpots.models import AppendOnlyModel


class HitSlip(AppendOnlyModel):
    """A paid hit's slip, stored as the PDF that was printed: a reprint serves these same bytes."""

    class Variant(models.TextChoices):
        A5 = "a5", _("A5 sheet")
        ROLL_80MM = "80mm", _("80 mm roll")

    hit = models.ForeignKey(
        "jackpots.Hit",
        on_delete=models.PROTECT,
        related_name="slips",
        verbose_name=_("hit"),
    )
    variant = models.CharField(_("format"), max_length=8, choices=Variant.choices)
    pdf = models.BinaryField(_("PDF"))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["hit", "variant"], name="hitslip_unique_variant")]
        verbose_name = _("jackpot slip")
        verbose_name_plural = _("jackpot slips")

    def __str__(self) -> str:
        return f"{self.hit_id} {self.variant}"


class DayClose(AppendOnlyModel):
    """A venue's business day as a manager signed it off: the reconciliation lines frozen as they were
    signed (``lines``), never changed afterwards."""

    venue = models.ForeignKey(
        "floor.Venue", on_delete=models.PROTECT, related_name="+", verbose_name=_("venue")
    )
    business_day = models.DateField(_("business day"))
    tolerance_cents = models.BigIntegerField(_("tolerance (cents)"))
    lines = models.JSONField(_("reconciliation lines"))
    signed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("signed off by")
    )
    signed_at = models.DateTimeField(_("signed off at"))
    note = models.TextField(_("note"), blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["venue", "business_day"], name="dayclose_unique_day")]
        verbose_name = _("day close")
        verbose_name_plural = _("day closes")

    def __str__(self) -> str:
        return f"{self.venue_id} {self.business_day}"
