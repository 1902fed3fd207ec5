"""Maker-checker: a change of a level's money or parameters proposed by one person and approved (or
rejected) by another (``jackpots.services.proposals``); and the register of retired liabilities."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from common.append_only import AppendOnlyModel


class ChangeProposal(models.Model):
    """One proposed change: who proposed it and why, and who approved or rejected it, when and why. Until
    it is approved nothing moves; its approval applies it in the same transaction, under the levels' row
    locks. The ledger rows it writes name it (``LedgerEntry.proposal``), so each names both people."""

    class Kind(models.TextChoices):
        PARAMETERS = "parameters", _("Parameter change")
        CORRECTION = "correction", _("Malfunction correction")
        TOPUP = "topup", _("House top-up")
        TRANSFER = "transfer", _("Transfer")
        RETIREMENT = "retirement", _("Retirement")

    class State(models.TextChoices):
        PENDING = "pending", _("Waiting for approval")
        APPROVED = "approved", _("Approved")
        REJECTED = "rejected", _("Rejected")

    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)
    state = models.CharField(_("state"), max_length=10, choices=State.choices, default=State.PENDING)
    # The level a change is about; a retirement names its progressive (every level of it retires).
    level = models.ForeignKey(
        "jackpots.Level",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="proposals",
        verbose_name=_("level"),
    )
    progressive = models.ForeignKey(
        "jackpots.Progressive",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="proposals",
        verbose_name=_("progressive"),
    )
    # Where a transfer's or a retirement's money goes (its reserve: the target's next start).
    target_level = models.ForeignKey(
        "jackpots.Level",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("target level"),
    )
    params = models.JSONField(_("new parameters"), default=dict, blank=True)
    # Signed for a correction; positive for a top-up or a transfer; empty for parameters and retirements.
    amount_mc = models.BigIntegerField(_("amount (millicents)"), null=True, blank=True)
    reason = models.TextField(_("reason"))
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("proposed by")
    )
    proposed_at = models.DateTimeField(_("proposed at"))
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("approved or rejected by"),
    )
    decided_at = models.DateTimeField(_("approved or rejected at"), null=True, blank=True)
    decision_reason = models.TextField(_("reason of the rejection"), blank=True)
    # What an approved parameter change became in the levels' change log (staged or applied).
    level_change = models.ForeignKey(
        "jackpots.LevelChange",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("parameter change"),
    )

    class Meta:
        ordering = ["-id"]
        default_permissions = ("view",)
        permissions = [
            ("propose_change", _("Can propose a change of a level's money or parameters")),
            ("approve_change", _("Can approve or reject a change another person proposed")),
        ]
        indexes = [models.Index(fields=["state", "id"], name="proposal_state_id")]
        verbose_name = _("change proposal")
        verbose_name_plural = _("change proposals")

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk}"


class RetiredLiability(AppendOnlyModel):
    """What players had funded above the seed of a retired progressive's level, when its retirement named
    no other level to carry it: the house still owes it (to a future progressive, or as the regulator
    directs). Both people are its proposal's."""

    progressive = models.ForeignKey(
        "jackpots.Progressive", on_delete=models.PROTECT, related_name="+", verbose_name=_("progressive")
    )
    level = models.ForeignKey(
        "jackpots.Level", on_delete=models.PROTECT, related_name="+", verbose_name=_("level")
    )
    amount_mc = models.BigIntegerField(_("liability (millicents)"))
    at = models.DateTimeField(_("retired at"))
    proposal = models.ForeignKey(
        ChangeProposal, on_delete=models.PROTECT, related_name="+", verbose_name=_("retirement")
    )

    class Meta:
        ordering = ["-id"]
        default_permissions = ("view",)
        verbose_name = _("retired liability")
        verbose_name_plural = _("retired liabilities")

    def __str__(self) -> str:
        return f"{self.level_id} {self.amount_mc} mc"
