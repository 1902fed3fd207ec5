"""What the workspace keeps: the hour summaries the reports read, the jackpot slips as printed, and the
signed-off business days."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from common.append_only import AppendOnlyModel


class MachineHourStat(models.Model):
    """Games and contributions of one machine in one clock hour, summed from its raw game events and its
    contribution rows.

    Reports read these instead of the raw events so that a month of a 450-machine floor stays fast. Every
    row is recomputed whole from the events of its hour, so refreshing a row twice is harmless.
    """

    machine = models.ForeignKey(
        "slots.SlotMachine",
        on_delete=models.CASCADE,
        related_name="hour_stats",
        verbose_name=_("machine"),
        db_index=False,
    )
    # Start of the hour (Europe/Rome is a whole number of hours from UTC, so UTC hours are local hours).
    hour = models.DateTimeField(_("hour"))
    # The venue's business day the hour belongs to (local time, the day closing at BUSINESS_DAY_CLOSE_HOUR).
    business_date = models.DateField(_("business day"))
    games = models.PositiveIntegerField(_("games played"), default=0)
    coin_in_cents = models.BigIntegerField(_("coin in (cents)"), default=0)
    coin_out_cents = models.BigIntegerField(_("coin out (cents)"), default=0)
    # The machine's contributions (jackpots.MachineContribution) whose batch was applied in this hour, exact.
    contributed_mc = models.BigIntegerField(_("contributions (millicents)"), default=0)

    class Meta:
        # The table keeps the name it had when these summaries lived in the floor app (upgrade in place).
        db_table = "floor_machinehourstat"
        constraints = [
            models.UniqueConstraint(fields=["machine", "hour"], name="hourstat_unique_machine_hour")
        ]
        indexes = [models.Index(fields=["business_date", "machine"], name="hourstat_day_machine")]
        verbose_name = _("machine hour")
        verbose_name_plural = _("machine hours")

    def __str__(self) -> str:
        return f"{self.machine_id} {self.hour:%Y-%m-%d %H}h"


class ReportRefreshState(models.Model):
    """Where the hour summaries stand: recent (time, highest event id, highest machine contribution id)
    checkpoints and the closing hour used.

    A refresh rescans events and contribution rows above the ids seen a safe while ago, so a transaction that
    took its ids earlier but committed later is still counted.
    """

    checkpoints = models.JSONField(default=list)
    close_hour = models.PositiveSmallIntegerField(null=True)
    refreshed_at = models.DateTimeField(null=True)

    class Meta:
        db_table = "floor_reportrefreshstate"
        verbose_name = _("report refresh state")

    def __str__(self) -> str:
        return f"refreshed {self.refreshed_at}"


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
    # A winner's part of a shared table prize has a slip of its own (``hit`` is then its prize's hit).
    part = models.ForeignKey(
        "tables.PrizePart",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="slips",
        verbose_name=_("prize part"),
    )
    variant = models.CharField(_("format"), max_length=8, choices=Variant.choices)
    pdf = models.BinaryField(_("PDF"))
    # What the slip says, kept so that a reprint is the same slip with its COPIA / COPY mark.
    facts = models.JSONField(_("facts printed"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["hit", "variant"],
                condition=models.Q(part__isnull=True),
                name="hitslip_unique_variant",
            ),
            models.UniqueConstraint(
                fields=["part", "variant"],
                condition=models.Q(part__isnull=False),
                name="hitslip_unique_part_variant",
            ),
        ]
        verbose_name = _("jackpot slip")
        verbose_name_plural = _("jackpot slips")

    def __str__(self) -> str:
        return f"{self.hit_id} {self.variant}"


class SlipReprint(AppendOnlyModel):
    """A slip printed again: who and when, and its copy number (the original is copy 0)."""

    slip = models.ForeignKey(
        HitSlip, on_delete=models.PROTECT, related_name="reprints", verbose_name=_("slip"), db_index=False
    )
    copy = models.PositiveIntegerField(_("copy number"))
    printed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("printed by")
    )
    printed_at = models.DateTimeField(_("printed at"), auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["slip", "copy"], name="slipreprint_unique_copy")]
        verbose_name = _("slip reprint")
        verbose_name_plural = _("slip reprints")

    def __str__(self) -> str:
        return f"{self.slip} copy {self.copy}"


class DayClose(AppendOnlyModel):
    """A venue's business day as a manager signed it off: the reconciliation lines frozen as they were
    signed (``lines``) and the progressive register as it was shown (``register``, one
    ``workspace.dayclose.register.RegisterRow`` per level), never changed afterwards."""

    venue = models.ForeignKey(
        "floor.Venue", on_delete=models.PROTECT, related_name="+", verbose_name=_("venue"), db_index=False
    )
    business_day = models.DateField(_("business day"))
    tolerance_cents = models.BigIntegerField(_("tolerance (cents)"))
    lines = models.JSONField(_("reconciliation lines"))
    # Null: signed off before the register was part of the day close (it is computed from the ledger then).
    register = models.JSONField(_("progressive register"), null=True, blank=True)
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
