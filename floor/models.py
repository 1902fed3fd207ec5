"""The casino's floor: venues, rooms, banks of machines and the signage screens above them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from common.append_only import AppendOnlyModel


class Venue(models.Model):
    code = models.CharField(_("code"), max_length=8, unique=True, help_text=_("VEN or NOG"))
    name = models.CharField(_("name"), max_length=120)
    address = models.CharField(_("address"), max_length=200, blank=True)
    time_zone = models.CharField(_("time zone"), max_length=64, default="Europe/Rome")
    currency = models.CharField(_("currency"), max_length=3, default="EUR")
    handpay_threshold_cents = models.PositiveBigIntegerField(
        _("two-person threshold (cents)"),
        default=settings.HANDPAY_THRESHOLD_CENTS,
        help_text=_("Hits at or above this amount need two different people to verify (Nevada MICS)."),
    )
    winner_id_threshold_cents = models.PositiveBigIntegerField(
        _("winner identification threshold (cents)"),
        default=200_000,
        help_text=_(
            "Paying this amount or more needs the winner's name and identity document (Italy's "
            "anti-money-laundering threshold for casino transactions: €2,000)."
        ),
    )

    class Meta:
        ordering = ["code"]
        verbose_name = _("venue")
        verbose_name_plural = _("venues")

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"


class Room(models.Model):
    venue = models.ForeignKey(
        Venue, on_delete=models.PROTECT, related_name="rooms", verbose_name=_("venue"), db_index=False
    )
    number = models.PositiveSmallIntegerField(_("number"))
    name = models.CharField(_("name"), max_length=80)
    # The room's floor plan is a grid; machines sit on its cells.
    grid_columns = models.PositiveSmallIntegerField(_("grid columns"), default=20)
    grid_rows = models.PositiveSmallIntegerField(_("grid rows"), default=12)

    class Meta:
        ordering = ["venue__code", "number"]
        constraints = [models.UniqueConstraint(fields=["venue", "number"], name="room_unique_number")]
        verbose_name = _("room")
        verbose_name_plural = _("rooms")

    def __str__(self) -> str:
        return f"{self.venue.code} {self.name}"


class Bank(models.Model):
    """Adjacent machines in a room, usually sharing a theme or a linked progressive."""

    room = models.ForeignKey(
        Room, on_delete=models.PROTECT, related_name="banks", verbose_name=_("room"), db_index=False
    )
    code = models.CharField(_("code"), max_length=32)
    name = models.CharField(_("name"), max_length=120, blank=True)

    class Meta:
        ordering = ["room__venue__code", "room__number", "code"]
        constraints = [models.UniqueConstraint(fields=["room", "code"], name="bank_unique_code")]
        verbose_name = _("bank")
        verbose_name_plural = _("banks")

    def __str__(self) -> str:
        return f"{self.room} / {self.code}"


class SignageScreen(models.Model):
    venue = models.ForeignKey(
        Venue, on_delete=models.PROTECT, related_name="screens", verbose_name=_("venue")
    )
    room = models.ForeignKey(
        Room, on_delete=models.PROTECT, related_name="screens", null=True, blank=True, verbose_name=_("room")
    )
    slug = models.SlugField(_("slug"), max_length=40, unique=True)
    name = models.CharField(_("name"), max_length=120, blank=True)
    # The language of the sign's words and number formats (amounts, "must hit by", link down).
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES, default="it")
    progressives = models.ManyToManyField(
        "jackpots.Progressive", related_name="screens", blank=True, verbose_name=_("progressives shown")
    )
    token_digest = models.CharField(
        _("token digest"), max_length=64, blank=True, db_index=True, editable=False
    )
    token_prefix = models.CharField(_("token prefix"), max_length=24, blank=True, editable=False)
    token_issued_at = models.DateTimeField(_("token issued at"), null=True, blank=True, editable=False)
    token_last_used_at = models.DateTimeField(_("token last used at"), null=True, blank=True, editable=False)

    class Meta:
        ordering = ["slug"]
        verbose_name = _("signage screen")
        verbose_name_plural = _("signage screens")

    def __str__(self) -> str:
        return self.slug

    def significant_label(self) -> tuple[int, str, int | None]:
        """(venue id, subject, machine id) for the significant-events register (its token's events)."""
        return self.venue_id, f"Screen {self.slug}", None


class StaffProfile(models.Model):
    """Per-person preferences of floor staff. The admin speaks the person's language."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="staff_profile",
        verbose_name=_("user"),
    )
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES, default="it")

    class Meta:
        verbose_name = _("staff profile")
        verbose_name_plural = _("staff profiles")

    def __str__(self) -> str:
        return f"{self.user} ({self.language})"


class Workspace(models.Model):
    """No table: holds the permissions of the floor managers' workspace, granted to roles by floor.roles.

    Codenames start with the verb, as floor.roles matches them by prefix.
    """

    class Meta:
        managed = False
        default_permissions = ()
        verbose_name = _("workspace")
        permissions = [
            ("view_reports", _("Can view the floor reports")),
            ("view_floor_map", _("Can view the live floor map")),
            ("import_inventory", _("Can import the machine inventory")),
            ("verify_hit", _("Can verify a hit")),
            ("pay_hit", _("Can pay a verified hit")),
            ("void_hit", _("Can void an unpaid hit")),
            ("change_level_parameters", _("Can change a level's parameters")),
            ("see_mystery_trigger", _("Can see mystery triggers")),
            # A winner's name and identity document, recorded with a payment at or above the venue's
            # identification threshold: auditors only (their role takes every "see" permission).
            ("see_winner_identity", _("Can see winners' identification")),
            # The SAS numbers of progressives and levels (the gateways' map), not their money.
            (
                "change_sas_map",
                _("Can change the SAS group of a progressive and the SAS numbers of its levels"),
            ),
        ]

    def __str__(self) -> str:
        return str(self._meta.verbose_name)


class SignificantEvent(AppendOnlyModel):
    """The significant-events register (GLI-12's "significant events"): what happened to a machine, a
    level or the link, when, who did it and the detail. Append-only: never edited or deleted, not even in
    the admin (a PostgreSQL trigger refuses UPDATE and DELETE too). Machines and levels live in higher
    apps, so they are named here by id and by a label kept as it was at the time."""

    class Kind(models.TextChoices):
        DOOR_OPEN = "door_open", _("Door opened")
        DOOR_CLOSED = "door_closed", _("Door closed")
        POWER_OFF = "power_off", _("Power off")
        POWER_ON = "power_on", _("Power on")
        TILT = "tilt", _("Tilt")
        HANDPAY = "handpay", _("Handpay")
        OFFLINE = "offline", _("Machine offline")
        ONLINE = "online", _("Machine back online")
        LINK_DOWN = "link_down", _("Link down")
        LINK_UP = "link_up", _("Link up")
        LEVEL_SUSPENDED = "level_suspended", _("Level suspended")
        LEVEL_RESUMED = "level_resumed", _("Level resumed")
        CHANGE_PROPOSED = "change_proposed", _("Change proposed")
        CHANGE_APPROVED = "change_approved", _("Change approved")
        CHANGE_REJECTED = "change_rejected", _("Change rejected")
        CORRECTION = "correction", _("Correction")
        TRANSFER = "transfer", _("Transfer")
        RETIREMENT = "retirement", _("Progressive retired")
        VOID = "void", _("Hit voided")
        KEY_ISSUED = "key_issued", _("Key issued")
        KEY_REVOKED = "key_revoked", _("Key revoked")
        DECLARATION = "declaration", _("Table declaration")
        DECLARATION_RELEASED = "declaration_released", _("Table declaration released")

    # Empty: the whole house (a link across both venues); shown in every venue's register.
    venue = models.ForeignKey(
        Venue,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("venue"),
        db_index=False,
    )
    at = models.DateTimeField(_("at"), db_index=True)
    kind = models.CharField(_("kind"), max_length=24, choices=Kind.choices)
    subject = models.CharField(_("machine, level or link"), max_length=120, blank=True)
    machine_id = models.BigIntegerField(_("machine id"), null=True, blank=True)
    level_id = models.BigIntegerField(_("level id"), null=True, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("by"),
    )
    detail = models.TextField(_("detail"), blank=True)
    reference = models.CharField(_("reference"), max_length=80, blank=True)

    class Meta:
        ordering = ["at", "id"]
        indexes = [models.Index(fields=["venue", "at"], name="significant_event_venue_at")]
        verbose_name = _("significant event")
        verbose_name_plural = _("significant events")

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.kind} {self.subject}"
