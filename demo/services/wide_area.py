"""The demo's wide-area Jumbo 7 (docs/wide-area.md): one installation seeded as the link, others joined to
it as sites. Idempotent, like the rest of the demo's seed: run again, it leaves what exists and gives the
same answer (a site's key is issued once and kept in the caller's file, since the link keeps only digests).
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from common.credentials import credential_issue
from floor.models import Venue
from jackpots.models import ExchangeRate, Level, Progressive
from jackpots.services import core
from jackpots.services.levels import level_create
from linkcentral.models import LinkedPool, LinkMember, LinkSite, LinkSiteKey
from linksite.models import LinkMembership
from tables.seed import JUMBO_7, PROGRESSIVES

POOL = "JUMBO7"
SITE_KEY_KIND = "site"


def _jumbo_7_params() -> core.Params:
    """The tables' seed figures for Jumbo 7: the link's pool grows as a site's own Jumbo 7 would."""
    params = next(params for _, name, _, params in PROGRESSIVES if name == JUMBO_7)
    return core.Params(**params)


@transaction.atomic
def link_seed(
    sites: list[tuple[str, str, str]], *, settle_seconds: int = 120
) -> tuple[Level, dict[str, str]]:
    """The link's Jumbo 7 pool and its sites [(code, name, currency)]; returns the pool's level and the
    keys issued now (a site that already has a key gets none: its key was handed out before)."""
    progressive, _ = Progressive.objects.get_or_create(
        name=JUMBO_7, defaults={"kind": Progressive.Kind.WIDE_AREA, "currency": "EUR"}
    )
    level = progressive.levels.order_by("position", "id").first() or level_create(
        progressive, name="Jackpot", position=1, params=_jumbo_7_params()
    )
    pool, _ = LinkedPool.objects.get_or_create(
        code=POOL, defaults={"level": level, "settle_seconds": settle_seconds}
    )
    keys = {}
    for code, name, currency in sites:
        site, _ = LinkSite.objects.get_or_create(code=code, defaults={"name": name, "currency": currency})
        LinkMember.objects.get_or_create(pool=pool, site=site)
        if not site.keys.filter(revoked_at__isnull=True).exists():
            keys[code] = credential_issue(LinkSiteKey, kind=SITE_KEY_KIND, site=site)[1]
    return pool.level, keys


@transaction.atomic
def site_join(currency: str, rate: Decimal | None, link_url: str, site_key: str) -> LinkMembership:
    """This installation's venues bet in ``currency`` (at ``rate`` francs, say, to the euro) and its Jumbo 7
    progressive (the tables' seed) plays the link's pool."""
    Venue.objects.update(currency=currency)
    if rate is not None and not ExchangeRate.objects.filter(base="EUR", quote=currency).exists():
        since = timezone.now() - timedelta(days=1)
        ExchangeRate.objects.create(base="EUR", quote=currency, rate=rate, valid_from=since, source="demo")
    progressive = Progressive.objects.get(name=JUMBO_7)
    membership, _ = LinkMembership.objects.update_or_create(
        progressive=progressive,
        defaults={"link_url": link_url, "pool_code": POOL, "site_key": site_key},
    )
    return membership
