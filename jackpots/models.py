"""Progressives, their levels, the contribution ledger and hits.

Money: wagers and awards are integer cents; pool amounts are integer millicents (1/1000 cent, as G2S
carries them); rates are exact Decimals. No float touches money.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from common.append_only import AppendOnlyModel
from jackpots.changelog import ChangeRecord
from jackpots.winner import WinnerIdentity


class Progressive(models.Model):
    class Kind(models.TextChoices):
        STANDALONE = "standalone", _("Standalone")
        LINKED = "linked", _("Linked")
        WIDE_AREA = "wide_area", _("Wide-area")

    name = models.CharField(_("name"), max_length=120)
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    currency = models.CharField(_("currency"), max_length=3, default="EUR")
    machines = models.ManyToManyField(
        "slots.SlotMachine",
        through="ProgressiveMachine",
        related_name="progressives",
        blank=True,
        verbose_name=_("machines"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    # The SAS progressive group the venue gateways broadcast this progressive's levels under (each level
    # by its ``sas_level``); its SAS machines carry the same ``sas_group``. 0: not broadcast over SAS.
    sas_group = models.PositiveSmallIntegerField(
        _("SAS progressive group"),
        default=0,
        validators=[MaxValueValidator(255)],
        help_text=_("0: not on SAS."),
    )

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("progressive")
        verbose_name_plural = _("progressives")

    def __str__(self) -> str:
        return self.name


class ProgressiveMachine(models.Model):
    progressive = models.ForeignKey(
        Progressive, on_delete=models.CASCADE, related_name="members", verbose_name=_("progressive")
    )
    machine = models.ForeignKey(
        "slots.SlotMachine",
        on_delete=models.PROTECT,
        related_name="memberships",
        verbose_name=_("slot machine"),
    )
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

    class State(models.TextChoices):
        # Active: takes contributions and hits. Suspended: takes neither (games still play and are
        # recorded), off the SAS broadcast. Retired: its liability moved away; no events ever again,
        # its history kept and reported.
        ACTIVE = "active", pgettext_lazy("level state", "Active")
        SUSPENDED = "suspended", pgettext_lazy("level state", "Suspended")
        RETIRED = "retired", pgettext_lazy("level state", "Retired")

    progressive = models.ForeignKey(
        Progressive, on_delete=models.PROTECT, related_name="levels", verbose_name=_("progressive")
    )
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
    # Changed only by jackpots.services.states (suspend, resume) and the retirement service, on record.
    state = models.CharField(_("state"), max_length=10, choices=State.choices, default=State.ACTIVE)
    # State (meters).
    current_mc = models.BigIntegerField(_("current amount (millicents)"), default=0)
    reserve_mc = models.BigIntegerField(_("reserve (millicents)"), default=0)
    overflow_mc = models.BigIntegerField(_("overflow (millicents)"), default=0)
    wagered_cents = models.BigIntegerField(_("amount wagered (cents)"), default=0)
    hits = models.PositiveIntegerField(_("hits"), default=0)
    total_won_cents = models.BigIntegerField(_("total won (cents)"), default=0)
    cycle = models.PositiveIntegerField(_("cycle"), default=1)
    seq = models.BigIntegerField(_("value sequence"), default=0)
    # Carry base: eligible wagers and the amounts they added since the cycle started (or since a suspended
    # level's rate changed). amounts added == floor(carry_wagered x rate) exactly, so no fraction is lost.
    carry_wagered_cents = models.BigIntegerField(_("wagered since cycle start (cents)"), default=0)
    carry_added_mc = models.BigIntegerField(_("added since cycle start (millicents)"), default=0)
    carry_reserved_mc = models.BigIntegerField(_("reserved since cycle start (millicents)"), default=0)
    # Mystery must-hit-by trigger, drawn in [reset, limit) at each reset. Auditors only (rule 9).
    trigger_mc = models.BigIntegerField(
        _("mystery trigger (millicents)"), null=True, blank=True, editable=False
    )
    # The level's number within its progressive's SAS group (01 = top in LP 80/86); empty: not on SAS.
    sas_level = models.PositiveSmallIntegerField(
        _("SAS level"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(32)],
        help_text=_("1-32 within the progressive's SAS group; empty: not on SAS."),
    )

    class Meta:
        ordering = ["progressive_id", "position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["progressive", "sas_level"], name="level_sas_level_unique_per_progressive"
            ),
            models.CheckConstraint(
                condition=models.Q(sas_level__isnull=True) | models.Q(sas_level__gte=1, sas_level__lte=32),
                name="level_sas_level_range",
            ),
        ]
        verbose_name = _("level")
        verbose_name_plural = _("levels")

    def __str__(self) -> str:
        return f"{self.progressive.name} {self.name}"

    @property
    def active(self) -> bool:
        """Takes contributions and hits (the one question the engine asks of a level's state)."""
        return self.state == self.State.ACTIVE

    @property
    def suspended(self) -> bool:
        """Out of play for a while: parameter changes apply at once, as no play moves the level."""
        return self.state == self.State.SUSPENDED


class HitKind(models.TextChoices):
    MACHINE = "machine", _("Machine-triggered")
    MYSTERY = "mystery", _("Mystery")
    TABLE = "table", _("Table")


class Hit(WinnerIdentity, models.Model):
    class State(models.TextChoices):
        HIT = "hit", _("Hit")
        VERIFIED = "verified", _("Verified")
        PAID = "paid", _("Paid")
        VOIDED = "voided", _("Voided")

    level = models.ForeignKey(
        Level, on_delete=models.PROTECT, related_name="hit_records", verbose_name=_("level")
    )
    machine = models.ForeignKey(
        "slots.SlotMachine",
        on_delete=models.PROTECT,
        related_name="hits",
        null=True,
        blank=True,
        verbose_name=_("machine"),
    )
    state = models.CharField(_("state"), max_length=12, choices=State.choices, default=State.HIT)
    at = models.DateTimeField(_("hit at"))
    amount_cents = models.BigIntegerField(_("amount (cents)"))
    level_seq = models.BigIntegerField(_("level value sequence at the hit"))
    cycle = models.PositiveIntegerField(_("cycle"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("recorded at"))
    verified_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("verified by"),
    )
    verified_at = models.DateTimeField(null=True, blank=True, verbose_name=_("verified at"))
    paid_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("paid by"),
    )
    paid_at = models.DateTimeField(null=True, blank=True, verbose_name=_("paid at"))
    # A table prize under the venue's two-person threshold is paid at the table when its round is
    # recorded (jackpots.tables.services.rounds): the table and the key that posted the round are the payer.
    paid_by_table = models.ForeignKey(
        "jackpots.Table",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("paid at the table"),
    )
    paid_by_key = models.ForeignKey(
        "jackpots.TableKey",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("paid with the table key"),
    )
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("voided by"),
    )
    voided_at = models.DateTimeField(null=True, blank=True, verbose_name=_("voided at"))
    void_reason = models.TextField(blank=True, verbose_name=_("void reason"))
    # The number people read aloud (NOG-2026-00123): per venue and business year, assigned once when the hit
    # is recorded (``jackpots.services.hit_numbers``). ``number`` stays the level's n-th hit.
    ref = models.CharField(_("hit number"), max_length=24, unique=True, null=True, blank=True, editable=False)
    # Added by the engine.
    kind = models.CharField(_("kind"), max_length=12, choices=HitKind.choices, default=HitKind.MACHINE)
    number = models.PositiveIntegerField(
        _("order on the level"),
        null=True,
        blank=True,
        help_text=_("1 for the level's first hit; orders simultaneous hits."),
    )
    amount_mc = models.BigIntegerField(_("level amount locked (millicents)"), default=0)
    machine_amount_cents = models.BigIntegerField(
        _("amount shown by the machine (cents)"), null=True, blank=True
    )
    discrepancy_cents = models.BigIntegerField(
        _("machine minus system (cents)"),
        null=True,
        blank=True,
        help_text=_("Nonzero: the machine disagreed."),
    )
    # Who paid a machine's jackpot, as its report said (``paid`` of the jackpot event): "machine" when the
    # machine credited the win itself (then the hit is recorded paid by that machine, at what it paid,
    # and never reaches the desk), "attendant" for a handpay lockup; blank when the report did not say.
    reported_paid = models.CharField(
        _("payer reported by the machine"),
        max_length=10,
        blank=True,
        default="",
        choices=[("machine", _("The machine (credit meter)")), ("attendant", _("Attendants (handpay)"))],
    )
    paid_by_machine = models.ForeignKey(
        "slots.SlotMachine",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("paid by the machine"),
    )
    machine_paid_cents = models.BigIntegerField(
        _("paid by the machine (cents)"),
        null=True,
        blank=True,
        help_text=_("What the machine credited itself; above the level's amount, the house paid the rest."),
    )
    event_id = models.BigIntegerField(_("jackpot event"), null=True, blank=True, unique=True)
    # The order of play (rule 7): the triggering event's ``at`` is ``at``, its machine ``machine``, its seq
    # here. ``late``: numbered after a hit on this level that was played after it (see contributions.py).
    play_seq = models.BigIntegerField(
        _("seq of the triggering event"),
        null=True,
        blank=True,
        help_text=_("With the time and the machine, the hit's place in the order of play."),
    )
    late = models.BooleanField(
        _("late"),
        default=False,
        help_text=_(
            "Its event reached the engine after a hit played later on this level: numbered after it."
        ),
    )
    second_verified_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("second verifier"),
    )
    second_verified_at = models.DateTimeField(null=True, blank=True, verbose_name=_("second verification at"))
    # The level as it stood before the hit, so that a void can restore it (auditors only: holds the trigger).
    before = models.JSONField(
        default=dict, blank=True, editable=False, verbose_name=_("level before the hit")
    )

    class Meta:
        ordering = ["-at", "-id"]
        constraints = [models.UniqueConstraint(fields=["level", "number"], name="hit_unique_level_number")]
        verbose_name = _("hit")
        verbose_name_plural = _("hits")

    def __str__(self) -> str:
        return f"{self.level} #{self.pk}"

    @property
    def machine_part_cents(self) -> int:
        """What the machine credited itself for this hit (its own win, or a mystery award paid by LP 8A)."""
        return self.machine_paid_cents or 0

    @property
    def attendant_cents(self) -> int:
        """What attendants hand over: nothing for a win the machine reported paid itself; otherwise the
        level's award, never less than what the machine displayed (a handpay is never paid below the
        display; the house pays the difference, on record as ``discrepancy_cents``), less what the machine
        already credited (a mystery award paid short leaves the rest to the desk)."""
        if self.reported_paid == "machine":
            return 0
        return max(self.amount_cents, self.machine_amount_cents or 0) - self.machine_part_cents

    @property
    def payout_cents(self) -> int:
        """What the player receives in all: the machine's part and the attendants'."""
        return self.machine_part_cents + self.attendant_cents


class HitNumberCounter(models.Model):
    """The last hit number given per venue (code) and business year; its row is locked to give the next."""

    venue_code = models.CharField(_("venue"), max_length=8)
    year = models.PositiveSmallIntegerField(_("business year"))
    last = models.PositiveIntegerField(_("last number given"), default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["venue_code", "year"], name="hit_counter_unique")]
        verbose_name = _("hit number counter")
        verbose_name_plural = _("hit number counters")

    def __str__(self) -> str:
        return f"{self.venue_code}-{self.year}: {self.last}"


class HitRefusal(models.Model):
    """A machine's jackpot report that is not a hit: the game that triggered it was not eligible for the
    level (or there was none), or the machine could not win the level then. Nothing is paid; the floor gets
    a ``MachineAlert`` (``jackpot_refused``) and the auditors this record."""

    class Code(models.TextChoices):
        NOT_A_MEMBER = "not_a_member", _("Not a member of the progressive")
        MACHINE_NOT_LIVE = "machine_not_live", _("Member disabled or machine not in service")
        LEVEL_SUSPENDED = "level_suspended", _("Level suspended")
        LEVEL_RETIRED = "level_retired", _("Level retired")
        MYSTERY_LEVEL = "mystery_level", _("Mystery level (won by the system, not reported)")
        NO_TRIGGERING_GAME = "no_triggering_game", _("No game before the report")
        WAGER_BELOW_MINIMUM = "wager_below_minimum", _("Wager below the level's minimum")
        NOT_MAX_BET = "not_max_bet", _("Not a max bet on a max-bet-only level")
        MACHINE_OFFLINE = "machine_offline", _("Machine marked offline when it reported")

    level = models.ForeignKey(
        Level, on_delete=models.PROTECT, related_name="refusals", verbose_name=_("level")
    )
    machine = models.ForeignKey(
        "slots.SlotMachine", on_delete=models.PROTECT, related_name="+", verbose_name=_("machine")
    )
    event_id = models.BigIntegerField(_("jackpot event"), unique=True)
    game_event_id = models.BigIntegerField(_("triggering game event"), null=True, blank=True)
    code = models.CharField(_("code"), max_length=24, choices=Code.choices)
    detail = models.TextField(_("detail"))
    at = models.DateTimeField(
        _("reported at"), help_text=_("The jackpot event's time (the machine's clock).")
    )
    batch = models.ForeignKey(
        "ContributionBatch", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("refused jackpot report")
        verbose_name_plural = _("refused jackpot reports")

    def __str__(self) -> str:
        return f"{self.level_id} {self.code} #{self.event_id}"


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

    level = models.ForeignKey(Level, on_delete=models.PROTECT, related_name="ledger")
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
            # The daily register (jackpots.register): a level's rows of a day, and its meters' sum before
            # it read from the index alone.
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


# The table games' models live in their own module; importing them here makes them the jackpots app's.
from jackpots.proposal_models import ChangeProposal, RetiredLiability  # noqa: E402, F401
from jackpots.signage.models import ScreenPresence, SignTheme  # noqa: E402, F401
from jackpots.tables.models import (  # noqa: E402, F401
    ExchangeRate,
    PayLine,
    PayTable,
    PayTableChange,
    PrizePart,
    PrizeShare,
    Table,
    TableDeclaration,
    TableKey,
    TableRound,
    TableSeat,
)


class SasAward(models.Model):
    """What a venue's SAS gateway answered for a mystery hit it was asked to credit to its machine
    (``award_result``, gateway/README.md "Server route"). One answer per hit: the first is kept and a
    replay changes nothing. ``paid``: the machine credited ``paid_cents`` by legacy bonus (whole credits,
    so it may be less than ``asked_cents``; the difference is kept) and the hit is paid by the machine;
    ``handpay``: above the machine's limit, the hit stays for the attendants."""

    class Status(models.TextChoices):
        PAID = "paid", _("Credited by the machine")
        HANDPAY = "handpay", _("Handpay by an attendant")

    hit = models.OneToOneField(Hit, on_delete=models.PROTECT, related_name="sas_award", verbose_name=_("hit"))
    machine = models.ForeignKey(
        "slots.SlotMachine", on_delete=models.PROTECT, related_name="+", verbose_name=_("slot machine")
    )
    status = models.CharField(_("outcome"), max_length=8, choices=Status.choices)
    asked_cents = models.BigIntegerField(_("amount asked (cents)"))
    paid_cents = models.BigIntegerField(_("amount credited (cents)"), default=0)
    difference_cents = models.BigIntegerField(
        _("credited minus asked (cents)"),
        default=0,
        help_text=_("Nonzero: the machine credited another amount."),
    )
    at = models.DateTimeField(_("answered at"))

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("SAS award")
        verbose_name_plural = _("SAS awards")

    def __str__(self) -> str:
        return f"{self.hit} {self.status}"
