"""A site's side of a wide-area progressive (``docs/wide-area.md``): its membership of a link's pool, the
durable outbox of what its rounds owe the link (written in the round's own transaction, sent in order by the
forwarder, kept until the link acknowledges it), the pool it last heard from the link, and the awards it
was sent."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from jackpots.models import Progressive


class LinkMembership(models.Model):
    """This installation plays ``progressive`` as a site of the link's pool ``pool_code``."""

    progressive = models.OneToOneField(
        Progressive, on_delete=models.PROTECT, related_name="link_membership", verbose_name=_("progressive")
    )
    link_url = models.URLField(_("link URL"))
    pool_code = models.CharField(_("pool code at the link"), max_length=32)
    # The site key issued on the link: a secret this side must present, so it is kept as given (the link
    # keeps only its digest). Set in the admin; never shown again there.
    site_key = models.CharField(_("site key"), max_length=200)
    active = models.BooleanField(_("active"), default=True)
    next_seq = models.BigIntegerField(_("next entry number"), default=1)
    acked_seq = models.BigIntegerField(_("last entry acknowledged"), default=0)
    last_sent_at = models.DateTimeField(_("last sent"), null=True, blank=True)
    last_error = models.CharField(_("last error"), max_length=300, blank=True)
    # The site's own books of what it owes the link: every contribution's bets so far, in the site's cents
    # (each outbox entry keeps the total through itself; the link's reconciliation compares them).
    wagered_total_cents = models.BigIntegerField(_("bets contributed (site's cents)"), default=0)

    class Meta:
        verbose_name = _("link membership")
        verbose_name_plural = _("link memberships")

    def __str__(self) -> str:
        return f"{self.pool_code} @ {self.link_url}"


class OutboxEntry(models.Model):
    """One entry owed to the link, numbered without gaps per membership; ``body`` is exactly what is sent."""

    class Kind(models.TextChoices):
        CONTRIBUTION = "contribution", _("contribution")
        CLAIM = "claim", _("claim")

    membership = models.ForeignKey(
        LinkMembership, on_delete=models.PROTECT, related_name="outbox", db_index=False
    )
    seq = models.BigIntegerField(_("entry number"))
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    round_ref = models.CharField(_("round"), max_length=64)
    played_at = models.DateTimeField(_("played at"))
    body = models.JSONField(_("body"))
    # The membership's contributions' bets through this entry (site's cents): what the site's books say
    # it has sent once the link has this entry, sent with the batch it ends (``books``).
    wagered_through_cents = models.BigIntegerField(_("bets contributed through this entry"), default=0)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    acked_at = models.DateTimeField(_("acknowledged at"), null=True, blank=True)
    # A claim: when the link's award naming it was recorded here. Until then the jackpot is pending on the
    # signs (the link decides; a claim made while the line is down waits for it).
    awarded_at = models.DateTimeField(_("award recorded at"), null=True, blank=True)

    class Meta:
        ordering = ["membership_id", "seq"]
        constraints = [models.UniqueConstraint(fields=["membership", "seq"], name="outbox_membership_seq")]
        indexes = [
            models.Index(fields=["membership", "seq"], name="outbox_unacked",
                         condition=models.Q(acked_at__isnull=True)),
            models.Index(fields=["membership"], name="outbox_claims_pending",
                         condition=models.Q(kind="claim", awarded_at__isnull=True)),
        ]  # fmt: skip
        verbose_name = _("outbox entry")
        verbose_name_plural = _("outbox entries")

    def __str__(self) -> str:
        return f"#{self.seq} ({self.kind})"


class LinkPoolMirror(models.Model):
    """The link's pool as last heard (only a newer ``value_seq`` replaces it)."""

    membership = models.OneToOneField(LinkMembership, on_delete=models.CASCADE, related_name="mirror")
    amount_mc = models.BigIntegerField(_("pool (pool's millicents)"))
    currency = models.CharField(_("pool's currency"), max_length=3)
    value_seq = models.BigIntegerField(_("value sequence"))
    heard_at = models.DateTimeField(_("last heard"))

    class Meta:
        verbose_name = _("pool as heard")
        verbose_name_plural = _("pools as heard")

    def __str__(self) -> str:
        return f"{self.membership.pool_code}: {self.amount_mc} mc"


class SiteAward(models.Model):
    """An award the link sent for this site's players; its parts go to the hits desk once."""

    membership = models.ForeignKey(
        LinkMembership, on_delete=models.PROTECT, related_name="awards", db_index=False
    )
    link_award_id = models.BigIntegerField(_("award at the link"))
    body = models.JSONField(_("as sent"))
    recorded_at = models.DateTimeField(_("recorded at"), auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["membership", "link_award_id"], name="siteaward_once")]
        verbose_name = _("award from the link")
        verbose_name_plural = _("awards from the link")

    def __str__(self) -> str:
        return f"{self.membership.pool_code} award {self.link_award_id}"
