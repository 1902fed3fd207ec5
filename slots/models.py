"""Slot machines, their credentials and the raw events they post."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from common.credentials import Credential


class SlotMachine(models.Model):
    class Status(models.TextChoices):
        IN_SERVICE = "in_service", _("In service")
        OFFLINE = "offline", _("Offline")
        OUT_OF_SERVICE = "out_of_service", _("Out of service")

    asset_number = models.CharField(_("asset number"), max_length=16, unique=True, help_text="NOG-0101")
    serial = models.CharField(_("serial number"), max_length=64, blank=True)
    manufacturer = models.CharField(_("manufacturer"), max_length=64)
    game_title = models.CharField(_("game title"), max_length=120)
    denomination_cents = models.PositiveIntegerField(_("denomination (cents)"))
    min_bet_cents = models.PositiveIntegerField(_("minimum bet (cents)"))
    max_bet_cents = models.PositiveIntegerField(_("maximum bet (cents)"))
    stations = models.PositiveSmallIntegerField(_("stations"), default=1)
    room = models.ForeignKey(
        "floor.Room", on_delete=models.PROTECT, related_name="machines", verbose_name=_("room")
    )
    bank = models.ForeignKey(
        "floor.Bank",
        on_delete=models.PROTECT,
        related_name="machines",
        null=True,
        blank=True,
        verbose_name=_("bank"),
    )
    pos_x = models.PositiveSmallIntegerField(_("floor column"), default=0)
    pos_y = models.PositiveSmallIntegerField(_("floor row"), default=0)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.IN_SERVICE)
    # SAS meters are BCD with this many digits; a meter wraps to zero at 10**meter_digits.
    meter_digits = models.PositiveSmallIntegerField(_("meter digits"), default=10)
    # Live condition reported by status events.
    door_open = models.BooleanField(_("door open"), default=False)
    tilted = models.BooleanField(_("tilt"), default=False)
    handpay_locked = models.BooleanField(_("handpay lockup"), default=False)
    powered = models.BooleanField(_("power on"), default=True)
    last_seen = models.DateTimeField(_("last seen"), null=True, blank=True)
    last_game_at = models.DateTimeField(_("last game at"), null=True, blank=True)
    # Seq of the status event the flags above come from: a late, older status does not overwrite them.
    status_seq = models.BigIntegerField(_("status event seq"), null=True, blank=True, editable=False)
    # Where the venue's SAS gateway finds the machine (gateway/README.md): a serial line it names and the
    # machine's SAS address on it. A machine with no address is not on SAS.
    sas_address = models.PositiveSmallIntegerField(
        _("SAS address"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(127)],
        help_text=_("1-127 on its serial line; empty: not on SAS."),
    )
    sas_line = models.CharField(
        _("SAS line"), max_length=32, blank=True, help_text=_("The gateway's serial line, e.g. line-1.")
    )
    sas_group = models.PositiveSmallIntegerField(
        _("SAS progressive group"),
        default=0,
        validators=[MaxValueValidator(255)],
        help_text=_("The group whose broadcasts the machine shows; 0: none."),
    )
    sas_handpay_limit_cents = models.PositiveBigIntegerField(
        _("SAS handpay limit (cents)"),
        null=True,
        blank=True,
        help_text=_("Awards above this are paid by an attendant, not credited by the gateway."),
    )

    class Meta:
        ordering = ["asset_number"]
        verbose_name = _("slot machine")
        verbose_name_plural = _("slot machines")
        # No index holds last_seen or last_game_at: every stored batch moves them, and an update that
        # changes no indexed column is a HOT update (no entry in any of the table's indexes, the row on its
        # own page). With (status, last_seen) indexed, every touch wrote an entry in each of the table's six
        # indexes. The sweep for silent machines reads the few hundred rows whole (migration 0012 also
        # leaves half of each page free for the rows' new versions).
        constraints = [
            models.CheckConstraint(
                condition=models.Q(sas_address__isnull=True)
                | models.Q(sas_address__gte=1, sas_address__lte=127),
                name="machine_sas_address_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.asset_number} {self.game_title}"

    def clean(self) -> None:
        super().clean()
        sas_machine_check(self)

    @property
    def venue(self):
        return self.room.venue


SAS_BOTH_NEEDED = _(
    "A machine on SAS needs both its SAS line and its SAS address; leave both empty otherwise."
)


def sas_machine_check(machine: SlotMachine) -> None:
    """A machine on SAS has both a line and an address, and no other machine of its venue holds the same
    address on the same line (the gateway could not tell them apart)."""
    machine.sas_line = machine.sas_line.strip()
    if (machine.sas_address is None) != (not machine.sas_line):
        missing = "sas_address" if machine.sas_address is None else "sas_line"
        raise ValidationError({missing: SAS_BOTH_NEEDED})
    if machine.sas_address is None or machine.room_id is None:
        return
    clash = (
        SlotMachine.objects.filter(
            room__venue_id=machine.room.venue_id, sas_line=machine.sas_line, sas_address=machine.sas_address
        )
        .exclude(pk=machine.pk)
        .values_list("asset_number", flat=True)
        .first()
    )
    if clash is not None:
        raise ValidationError(
            {
                "sas_address": _("%(machine)s already has SAS address %(address)s on line %(line)s.")
                % {"machine": clash, "address": machine.sas_address, "line": machine.sas_line}
            }
        )


class MachineKey(Credential):
    machine = models.ForeignKey(
        SlotMachine, on_delete=models.CASCADE, related_name="keys", verbose_name=_("machine")
    )

    class Meta:
        verbose_name = _("machine key")
        verbose_name_plural = _("machine keys")

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.machine.asset_number})"

    def significant_label(self) -> tuple[int, str, int | None]:
        """(venue id, subject, machine id) for the significant-events register."""
        return self.machine.room.venue_id, self.machine.asset_number, self.machine_id


class GatewayKey(Credential):
    venue = models.ForeignKey(
        "floor.Venue", on_delete=models.CASCADE, related_name="gateway_keys", verbose_name=_("venue")
    )

    class Meta:
        verbose_name = _("gateway key")
        verbose_name_plural = _("gateway keys")

    def __str__(self) -> str:
        return f"{self.prefix}… (gateway {self.venue.code})"

    def significant_label(self) -> tuple[int, str, int | None]:
        return self.venue_id, f"Gateway {self.venue.code}", None


class MachineEvent(models.Model):
    """One raw event as posted, unique on (machine, seq): the source of truth for everything after it."""

    class Type(models.IntegerChoices):
        GAME = 1, "game"
        METERS = 2, "meters"
        JACKPOT = 3, "jackpot"
        STATUS = 4, "status"

    # No index of its own: (machine, seq) and (machine, at) lead with it, and one more index entry for
    # every event stored served no look-up (tests/common/test_indexes.py; the same for every such key).
    machine = models.ForeignKey(SlotMachine, on_delete=models.PROTECT, related_name="events", db_index=False)
    seq = models.BigIntegerField()
    type = models.PositiveSmallIntegerField(choices=Type.choices)
    at = models.DateTimeField(help_text="When the machine says it happened.")
    received_at = models.DateTimeField()
    # SHA-1 of the canonical JSON: a retry with the same content is a duplicate, other content a conflict.
    digest = models.CharField(max_length=40)
    payload = models.JSONField(help_text="The fields beyond machine/seq/type/at, as posted.")
    # Game events, denormalised for the engine and the reports.
    wager_cents = models.BigIntegerField(null=True)
    win_cents = models.BigIntegerField(null=True)
    bank_id = models.BigIntegerField(null=True)
    denomination_cents = models.IntegerField(null=True)
    is_max_bet = models.BooleanField(null=True)
    # Jackpot events.
    level_id = models.BigIntegerField(null=True)
    amount_cents = models.BigIntegerField(null=True)
    # Game and jackpot events wait for the engine; it clears this in the transaction that applies them.
    pending = models.BooleanField(default=False)
    applied_at = models.DateTimeField(null=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["machine", "seq"], name="event_unique_machine_seq")]
        # No index mentions ``pending``: clearing it then leaves every index alone and PostgreSQL updates the
        # row in place (HOT). The engine finds pending events through PendingEvent instead.
        indexes = [
            models.Index(fields=["machine", "at"], name="event_machine_at"),
            models.Index(fields=["at"], name="event_at"),
        ]

    def __str__(self) -> str:
        return f"{self.machine_id}#{self.seq} {self.get_type_display()}"


class PendingEvent(models.Model):
    """The ids of pending events: the engine's queue (PostgreSQL).

    A statement trigger of the events table adds every event inserted with ``pending`` in the same
    statement, with its place in the order of play (``at``, machine, seq); the engine deletes the ids it
    claims (SKIP LOCKED), earliest played first, in the transaction that marks their events applied. Narrow
    rows, two small indexes: claiming touches nothing of the events table's indexes.
    On SQLite the table stays empty and the engine reads ``MachineEvent.pending``.
    """

    event_id = models.BigIntegerField(primary_key=True)
    # The event's place in the order of play, copied by the trigger: the engine claims in this order.
    at = models.DateTimeField()
    machine_id = models.BigIntegerField()
    seq = models.BigIntegerField()

    class Meta:
        # The engine's own bookkeeping: no role may add, change or delete a queued id (that skips an event).
        default_permissions = ()
        indexes = [models.Index(fields=["at", "machine_id", "seq"], name="pending_play_order")]

    def __str__(self) -> str:
        return f"pending event {self.event_id}"


class MachineMeter(models.Model):
    """The last cumulative value of one meter of a machine: the baseline the next snapshot is compared to."""

    machine = models.ForeignKey(
        SlotMachine,
        on_delete=models.CASCADE,
        related_name="meters",
        verbose_name=_("machine"),
        db_index=False,
    )
    name = models.CharField(_("meter"), max_length=32)
    value = models.BigIntegerField(_("last value"))
    # The seq of the snapshot that set the value: an older snapshot arriving late does not move it back.
    seq = models.BigIntegerField(_("snapshot seq"))
    at = models.DateTimeField(_("snapshot at"))
    # Sum of the deltas since the machine was first seen (or since its last memory reset).
    total = models.BigIntegerField(_("total since baseline"), default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["machine", "name"], name="meter_unique_machine_name")]
        ordering = ["machine_id", "name"]
        verbose_name = _("machine meter")
        verbose_name_plural = _("machine meters")

    def __str__(self) -> str:
        return f"{self.machine_id} {self.name}={self.value}"


class MeterDeltaQuerySet(models.QuerySet["MeterDelta"]):
    def counted(self) -> MeterDeltaQuerySet:
        """The deltas the reports count: all but implausible ones a person has not reviewed yet."""
        return self.exclude(review=MeterDelta.Review.PENDING)


class MeterDelta(models.Model):
    """The increment of one meter between two snapshots of a machine, never negative.

    An increment beyond what the machine could have played or paid since its last snapshot
    (``slots.services.meters.meter_ceiling``) is stored with review ``pending``: the floor is alerted and
    the reports leave it out until a person accepts it (it counts as reported) or corrects it (``delta``
    becomes the person's figure, ``reported_delta`` keeps the machine's)."""

    class Kind(models.TextChoices):
        BASELINE = "baseline", _("Baseline")
        INCREMENT = "increment", _("Increment")
        ROLLOVER = "rollover", _("Rollover")
        MEMORY_RESET = "memory_reset", _("Memory reset")

    class Review(models.TextChoices):
        NONE = "", _("Plausible")
        PENDING = "pending", _("Implausible, awaiting review")
        ACCEPTED = "accepted", _("Accepted")
        CORRECTED = "corrected", _("Corrected")

    event = models.ForeignKey(
        MachineEvent, on_delete=models.CASCADE, related_name="meter_deltas", db_index=False
    )
    machine = models.ForeignKey(
        SlotMachine, on_delete=models.CASCADE, related_name="meter_deltas", db_index=False
    )
    name = models.CharField(_("meter"), max_length=32)
    value = models.BigIntegerField(_("snapshot value"))
    delta = models.BigIntegerField(_("delta"))
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    at = models.DateTimeField(_("at"))
    review = models.CharField(_("review"), max_length=16, choices=Review.choices, blank=True, default="")
    # The most the meter could plausibly have advanced (set on flagged deltas), and the machine's own
    # delta once a person has corrected it.
    ceiling = models.BigIntegerField(_("plausible ceiling"), null=True, blank=True)
    reported_delta = models.BigIntegerField(_("delta as reported"), null=True, blank=True)
    reviewed_at = models.DateTimeField(_("reviewed at"), null=True, blank=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("reviewed by"),
    )
    review_note = models.TextField(_("review note"), blank=True)

    objects = MeterDeltaQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["event", "name"], name="meterdelta_unique_event_name"),
            models.CheckConstraint(condition=models.Q(delta__gte=0), name="meterdelta_delta_not_negative"),
        ]
        indexes = [
            models.Index(fields=["machine", "name", "at"], name="meterdelta_machine_name_at"),
            models.Index(
                fields=["at"], condition=models.Q(review="pending"), name="meterdelta_pending_review"
            ),
        ]
        verbose_name = _("meter delta")
        verbose_name_plural = _("meter deltas")

    def __str__(self) -> str:
        return f"{self.machine_id} {self.name} +{self.delta}"


class OfflinePeriod(models.Model):
    """A time a machine was out of play: from when the beat marked it offline (silent past
    MACHINE_OFFLINE_AFTER_SECONDS) until the server heard it again (``ended_at``, the first accepted event's
    arrival; open while it is still silent). Its games dated inside do not count towards any level and it
    cannot win a linked level then (docs/payments.md "Offline means out of play")."""

    machine = models.ForeignKey(
        SlotMachine, on_delete=models.CASCADE, related_name="offline_periods", verbose_name=_("machine")
    )
    started_at = models.DateTimeField(_("marked offline at"))
    ended_at = models.DateTimeField(_("heard again at"), null=True, blank=True)
    ended_seq = models.BigIntegerField(_("first event seq heard again"), null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["machine"],
                condition=models.Q(ended_at__isnull=True),
                name="offline_one_open_per_machine",
            )
        ]
        verbose_name = _("offline period")
        verbose_name_plural = _("offline periods")

    def __str__(self) -> str:
        return f"{self.machine_id} offline {self.started_at:%Y-%m-%d %H:%M:%S}"


class MachineAlert(models.Model):
    """For the floor: a machine's memory was reset, it reused a seq for other content, a meter jumped
    further than the machine could have played, the engine refused its jackpot report
    (``jackpots.HitRefusal``), it credited a mystery award short, or it went offline or was heard again
    (``OfflinePeriod``)."""

    class Kind(models.TextChoices):
        MEMORY_RESET = "memory_reset", _("Memory reset")
        SEQ_CONFLICT = "seq_conflict", _("Sequence conflict")
        IMPLAUSIBLE_METERS = "implausible_meters", _("Implausible meters")
        JACKPOT_REFUSED = "jackpot_refused", _("Jackpot report refused")
        AWARD_PAID_SHORT = "award_paid_short", _("Award paid short by the machine")
        MACHINE_OFFLINE = "machine_offline", _("Machine offline")
        MACHINE_BACK = "machine_back", _("Machine heard again")

    machine = models.ForeignKey(
        SlotMachine, on_delete=models.CASCADE, related_name="alerts", verbose_name=_("machine")
    )
    kind = models.CharField(_("kind"), max_length=24, choices=Kind.choices)
    seq = models.BigIntegerField(_("event seq"))
    at = models.DateTimeField(_("raised at"))
    detail = models.TextField(_("detail"))
    payload = models.JSONField(_("payload"), default=dict, blank=True)
    acknowledged_at = models.DateTimeField(_("acknowledged at"), null=True, blank=True)
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("acknowledged by"),
    )

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(
                fields=["machine", "at"],
                condition=models.Q(acknowledged_at__isnull=True),
                name="alert_open_machine_at",
            )
        ]
        verbose_name = _("machine alert")
        verbose_name_plural = _("machine alerts")

    def __str__(self) -> str:
        return f"{self.machine_id} {self.kind} #{self.seq}"
