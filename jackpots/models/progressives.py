"""Progressives, the machines that feed them and their levels."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


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
        Progressive,
        on_delete=models.CASCADE,
        related_name="members",
        verbose_name=_("progressive"),
        db_index=False,
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
        Progressive,
        on_delete=models.PROTECT,
        related_name="levels",
        verbose_name=_("progressive"),
        db_index=False,
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
