"""The contribution ledger: batches of applied events, the append-only record of every change of a
level's money, each machine's part of it, and a level's parameter changes."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from common.append_only import AppendOnlyModel
from jackpots.changelog import ChangeRecord
from jackpots.models.hits import Hit
from jackpots.models.progressives import Level


class ContributionBatch(AppendOnlyModel):
    """One application of pending events. Its events carry ``applied_at == this.applied_at``."""

    applied_at = models.DateTimeField(_("applied at"), unique=True)
    event_count = models.PositiveIntegerField(_("events"), default=0)
    first_event_id = models.BigIntegerField(_("first event"), null=True)
    last_event_id = models.BigIntegerField(_("last event"), null=True)

    class Meta:
        ordering = ["id"]
        verbose_name = _("contribution batch")
        verbose_name_plural = _("contribution batches")

    def __str__(self) -> str:
        return f"batch {self.pk} ({self.event_count} events)"


class LedgerEntry(AppendOnlyModel):
    """The append-only record of every change of a level's money (contributions per level per batch,
    seeds, awards, voids). Summing the deltas of a level gives its current, reserve and overflow."""

    class Kind(models.TextChoices):
        CONTRIBUTION = "contribution", _("Contribution")
        SEED = "seed", _("Reset value put in")
        HIT = "hit", _("Hit and reset")
        AWARD = "award", _("Award without reset")
        VOID = "void", _("Void (compensating)")
        # Approved by two people (a proposer and a different approver), each its own kind.
        TOPUP = "topup", _("House top-up")
        CORRECTION = "correction", _("Malfunction correction")
        TRANSFER_OUT = "transfer_out", _("Transfer out")
        TRANSFER_IN = "transfer_in", _("Transfer in")

    level = models.ForeignKey(Level, on_delete=models.PROTECT, related_name="ledger", db_index=False)
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    at = models.DateTimeField(_("at"))
    batch = models.ForeignKey(
        ContributionBatch, on_delete=models.PROTECT, null=True, blank=True, related_name="entries"
    )
    hit = models.ForeignKey(Hit, on_delete=models.PROTECT, null=True, blank=True, related_name="ledger")
    reference = models.CharField(_("reference"), max_length=80, blank=True, help_text=_("e.g. a table round"))
    cycle = models.PositiveIntegerField(_("cycle"))
    level_seq = models.BigIntegerField(_("level value sequence after"))
    # What was applied (contributions): the raw events this row sums, to be recomputed by the audit.
    event_count = models.PositiveIntegerField(_("events"), default=0)
    first_event_id = models.BigIntegerField(null=True, blank=True)
    last_event_id = models.BigIntegerField(null=True, blank=True)
    wagered_cents = models.BigIntegerField(_("eligible wagered (cents)"), default=0)
    excluded_machine_ids = models.JSONField(
        default=list,
        blank=True,
        help_text=_("Members with events in the batch left out (disabled or not in service)."),
    )
    rate = models.DecimalField(max_digits=12, decimal_places=8, null=True, blank=True)
    reserve_rate = models.DecimalField(max_digits=12, decimal_places=8, null=True, blank=True)
    min_wager_cents = models.BigIntegerField(null=True, blank=True)
    max_bet_only = models.BooleanField(null=True, blank=True)
    # Signed changes of the level's meters, and the money that came in or went out.
    current_delta_mc = models.BigIntegerField(default=0)
    reserve_delta_mc = models.BigIntegerField(default=0)
    overflow_delta_mc = models.BigIntegerField(default=0)
    contributed_mc = models.BigIntegerField(_("contributions in (millicents)"), default=0)
    seeded_mc = models.BigIntegerField(_("reset value put in (millicents)"), default=0)
    awarded_mc = models.BigIntegerField(_("awards out (millicents)"), default=0)
    # Signed: a correction's amount; a transfer's (out negative, in positive). A top-up is ``seeded_mc``.
    corrected_mc = models.BigIntegerField(_("correction (millicents)"), default=0)
    transferred_mc = models.BigIntegerField(_("transfer (millicents)"), default=0)
    # The two-person kinds (and a stopped level's parameter change): the proposal names who proposed
    # and who approved it.
    proposal = models.ForeignKey(
        "jackpots.ChangeProposal",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="ledger",
        verbose_name=_("proposal"),
    )
    # True when this row restarts the carry base (a reset, or a suspended level's rate change).
    carry_restart = models.BooleanField(default=False)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["level", "id"], name="ledger_level_id"),
            # The daily register (workspace.dayclose.register): a level's rows of a day, and its meters'
            # sum before it read from the index alone.
            models.Index(
                fields=["level", "at"],
                name="ledger_level_at",
                include=["current_delta_mc", "reserve_delta_mc", "overflow_delta_mc"],
            ),
        ]
        verbose_name = _("ledger entry")
        verbose_name_plural = _("ledger entries")

    def __str__(self) -> str:
        return f"{self.level_id} {self.kind} #{self.pk}"


class MachineContribution(AppendOnlyModel):
    """One machine's part of a ledger row's contributions (the reports' per-machine contributions).

    A batch's contribution row of a level is split over the machines whose eligible wagers it sums; the
    rows of one ledger row add up to it EXACTLY (wagered, current, reserve, overflow, contributed). Each
    meter delta is allocated by largest remainder over the machines' wagers: every machine gets
    floor(delta x its wagers / all wagers), the millicents left go one each to the largest remainders,
    ties to the lower machine id. A void's compensating row is split the same way over the machines'
    wagers since the hit, in ``contributed_mc`` only (its meter deltas also move the award back)."""

    # The hot path writes hundreds of these rows per batch, so they carry only two indexes (the unique
    # (level, entry, machine) for the audit and the voids, ``at`` for the reports) and no foreign-key
    # constraint in the database: a row-by-row check of three keys per row cost more than the rest of the
    # split together. Only the engine writes them, in the ledger row's transaction; the audit checks that
    # every row names an existing ledger row of its level.
    entry = models.ForeignKey(
        LedgerEntry,
        on_delete=models.PROTECT,
        related_name="machine_split",
        db_index=False,
        db_constraint=False,
    )
    level = models.ForeignKey(
        Level, on_delete=models.PROTECT, related_name="+", db_index=False, db_constraint=False
    )
    machine = models.ForeignKey(
        "slots.SlotMachine",
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )
    at = models.DateTimeField(_("at"), help_text=_("The ledger row's time (when the batch was applied)."))
    wagered_cents = models.BigIntegerField(_("eligible wagered (cents)"), default=0)
    current_mc = models.BigIntegerField(default=0)
    reserve_mc = models.BigIntegerField(default=0)
    overflow_mc = models.BigIntegerField(default=0)
    contributed_mc = models.BigIntegerField(_("contributions (millicents)"), default=0)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["level", "entry", "machine"], name="machine_contribution_unique")
        ]
        indexes = [models.Index(fields=["at"], name="machine_contribution_at")]
        verbose_name = _("machine contribution")
        verbose_name_plural = _("machine contributions")

    def __str__(self) -> str:
        return f"{self.entry_id} / {self.machine_id}"


class LevelChange(ChangeRecord):
    """The levels' parameter-change log (NJ 13:69E-1.39C): who, when, old, new, why; staged or applied."""

    level = models.ForeignKey(
        Level, on_delete=models.PROTECT, related_name="changes", verbose_name=_("level")
    )

    class Meta:
        ordering = ["id"]
        verbose_name = _("parameter change")
        verbose_name_plural = _("parameter changes")

    def __str__(self) -> str:
        return f"{self.level_id} {self.state} #{self.pk}"


# The proposals' and the signs' models live in their own modules; importing them here makes them the
# jackpots app's.
