"""The link's books of a wide-area progressive (``docs/wide-area.md``): the casinos that feed it (sites) and
their keys, the pools they feed (each an engine level of this installation), and every entry a site sent,
kept as sent: the site's (seq) is its identity, so a retry is acknowledged and changes nothing."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from common.credentials import Credential
from jackpots.models import Level


class LinkSite(models.Model):
    """A casino's installation that feeds the link's pools; it bets and is paid in its own currency."""

    code = models.CharField(_("code"), max_length=16, unique=True)
    name = models.CharField(_("name"), max_length=120)
    currency = models.CharField(_("currency"), max_length=3)
    active = models.BooleanField(_("active"), default=True)

    class Meta:
        ordering = ["code"]
        verbose_name = _("site")
        verbose_name_plural = _("sites")

    def __str__(self) -> str:
        return f"{self.code} ({self.name})"


class LinkSiteKey(Credential):
    site = models.ForeignKey(LinkSite, on_delete=models.CASCADE, related_name="keys", verbose_name=_("site"))

    class Meta:
        verbose_name = _("site key")
        verbose_name_plural = _("site keys")

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.site.code})"

    def significant_label(self) -> tuple[int | None, str, int | None]:
        """(venue id, subject, machine id) for the significant-events register: a site key is the whole
        house's (no venue), as every key issued or revoked is recorded there."""
        return None, f"Link site {self.site.code}", None


class LinkedPool(models.Model):
    """A wide-area progressive: one engine level of this installation, fed by its member sites."""

    code = models.CharField(_("code"), max_length=32, unique=True)
    level = models.OneToOneField(
        Level, on_delete=models.PROTECT, related_name="linked_pool", verbose_name=_("level")
    )
    # How long the link waits for a silent site before it takes an entry as settled (the wide area's
    # settle window: a round played this long ago from a site not heard from since goes in the order of play
    # without it; whatever of that site's play arrives later goes to the next cycle).
    settle_seconds = models.PositiveIntegerField(_("settle window (seconds)"), default=120)

    class Meta:
        ordering = ["code"]
        verbose_name = _("linked pool")
        verbose_name_plural = _("linked pools")

    def __str__(self) -> str:
        return self.code


class LinkMember(models.Model):
    """A site's membership of a pool and how far its entries have come."""

    pool = models.ForeignKey(LinkedPool, on_delete=models.CASCADE, related_name="members", db_index=False)
    site = models.ForeignKey(LinkSite, on_delete=models.CASCADE, related_name="memberships")
    active = models.BooleanField(_("active"), default=True)
    acked_seq = models.BigIntegerField(_("last entry received"), default=0)
    # Every round the site played before this instant has been received (the site's "through").
    through = models.DateTimeField(_("played through"), null=True, blank=True)
    heard_at = models.DateTimeField(_("last heard"), null=True, blank=True)
    # The site's own books as it last reported them: through its entry ``books_seq`` its contributions'
    # bets total ``books_wagered_cents`` of its currency (the reconciliation sets the link's beside them).
    books_seq = models.BigIntegerField(_("site's books through entry"), default=0)
    books_wagered_cents = models.BigIntegerField(_("site's books: bets (site's cents)"), default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["pool", "site"], name="linkmember_pool_site")]
        verbose_name = _("pool member")
        verbose_name_plural = _("pool members")

    def __str__(self) -> str:
        return f"{self.site.code} in {self.pool.code}"


class LinkEntry(models.Model):
    """One entry a site sent: a round's contribution or a claim, in the site's currency and at its rate."""

    class Kind(models.TextChoices):
        CONTRIBUTION = "contribution", _("contribution")
        CLAIM = "claim", _("claim")

    member = models.ForeignKey(LinkMember, on_delete=models.PROTECT, related_name="entries", db_index=False)
    seq = models.BigIntegerField(_("site's entry number"))
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    round_ref = models.CharField(_("site's round"), max_length=64)
    played_at = models.DateTimeField(_("played at"))
    received_at = models.DateTimeField(_("received at"))
    currency = models.CharField(_("site's currency"), max_length=3)
    # 1 unit of the pool's currency = ``rate`` units of the site's, as the site recorded it.
    rate = models.DecimalField(_("site's rate"), max_digits=18, decimal_places=8)
    wagered_cents = models.BigIntegerField(_("bets (site's cents)"), default=0)
    wagered_pool_cents = models.BigIntegerField(_("bets (pool's cents)"), default=0)
    bets = models.PositiveIntegerField(_("bets sharing a claim"), default=0)
    seats = models.JSONField(_("seats"), default=list, blank=True)
    digest = models.CharField(_("digest"), max_length=64)
    # Set when the entry has gone through the order of play into the pool (a claim: decided).
    applied_at = models.DateTimeField(_("applied at"), null=True, blank=True)
    cycle = models.PositiveIntegerField(_("cycle applied in"), null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["member", "seq"], name="linkentry_member_seq")]
        indexes = [
            models.Index(fields=["played_at"], name="linkentry_unapplied",
                         condition=models.Q(applied_at__isnull=True)),
        ]  # fmt: skip
        verbose_name = _("link entry")
        verbose_name_plural = _("link entries")

    def __str__(self) -> str:
        return f"{self.member} #{self.seq} ({self.kind})"


class LinkAward(models.Model):
    """A decided prize: the winning round(s) of one instant of play, taken from the pool."""

    pool = models.ForeignKey(LinkedPool, on_delete=models.PROTECT, related_name="awards")
    played_at = models.DateTimeField(_("played at"))
    decided_at = models.DateTimeField(_("decided at"))
    amount_mc = models.BigIntegerField(_("prize (pool's millicents)"))
    cycle = models.PositiveIntegerField(_("cycle"))
    hit = models.OneToOneField(
        "jackpots.Hit", on_delete=models.PROTECT, null=True, blank=True, related_name="link_award"
    )

    class Meta:
        ordering = ["id"]
        verbose_name = _("link award")
        verbose_name_plural = _("link awards")

    def __str__(self) -> str:
        return f"{self.pool.code} award {self.pk}"


class LinkAwardPart(models.Model):
    """One bet's part of an award, for the site whose player placed it, in the site's currency."""

    award = models.ForeignKey(LinkAward, on_delete=models.PROTECT, related_name="parts", db_index=False)
    entry = models.ForeignKey(LinkEntry, on_delete=models.PROTECT, related_name="award_parts")
    number = models.PositiveIntegerField(_("part number"))  # 1.. within the award, in the order of play
    seat = models.PositiveIntegerField(_("seat"), null=True, blank=True)
    amount_mc = models.BigIntegerField(_("part (pool's millicents)"))
    site_cents = models.BigIntegerField(_("part (site's cents)"))

    class Meta:
        ordering = ["award_id", "number"]
        constraints = [models.UniqueConstraint(fields=["award", "number"], name="linkawardpart_number")]
        verbose_name = _("award part")
        verbose_name_plural = _("award parts")

    def __str__(self) -> str:
        return f"{self.award} part {self.number}"
