"""Hits: a level won (``Hit``, of a ``HitKind``), the counter that numbers them per venue and year, and
the jackpot reports the engine refused."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from jackpots.models.progressives import Level
from jackpots.winner import WinnerIdentity


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
        Level, on_delete=models.PROTECT, related_name="hit_records", verbose_name=_("level"), db_index=False
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
