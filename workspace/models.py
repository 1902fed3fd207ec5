"""Workspace models: the hour summaries the reports read."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class MachineHourStat(models.Model):
    """Games and contributions of one machine in one clock hour, summed from its raw game events and its
    contribution rows.

    Reports read these instead of the raw events so that a month of a 450-machine floor stays fast. Every
    row is recomputed whole from the events of its hour, so refreshing a row twice is harmless.
    """

    machine = models.ForeignKey(
        "slots.SlotMachine", on_delete=models.CASCADE, related_name="hour_stats", verbose_name=_("machine")
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
