"""What the engine asks of the link about the hits it records for the pool's awards (``jackpots.hooks``).

An award's prize leaves the link's pool as one engine Hit, but the money leaves the house at the sites:
each site's hits desk pays its own players their parts. So the link's desk must never pay that Hit as one
sum (it would be paid twice): it is a prize paid in parts, by the sites, and says so where it is shown."""

from __future__ import annotations

from django.utils.translation import gettext as _

from jackpots.hooks import HitPlace, providers
from jackpots.models import Hit
from linkcentral.models import LinkAward


def hit_link_award(hit: Hit) -> LinkAward | None:
    return LinkAward.objects.filter(hit_id=hit.id).select_related("pool").first()


def hit_paid_by_sites(hit: Hit) -> bool:
    """A link award's Hit is paid part by part at the sites, never at the link's desk."""
    return LinkAward.objects.filter(hit_id=hit.id).exists()


def hit_link_payer(hit: Hit) -> str | None:
    award = hit_link_award(hit)
    if award is None:
        return None
    return _("the sites of pool %(pool)s, part by part (award %(award)d)") % {
        "pool": award.pool.code,
        "award": award.id,
    }


def hit_link_place(hit: Hit) -> HitPlace | None:
    award = hit_link_award(hit)
    if award is None:
        return None
    return HitPlace(code=award.pool.code, where=_("Wide-area pool %(pool)s") % {"pool": award.pool.code})


def providers_register() -> None:
    # First in line: a link award's Hit is of kind "table" (no machine) but has no table of this house.
    providers.hit_paid_in_parts.insert(0, hit_paid_by_sites)
    providers.hit_payer.insert(0, hit_link_payer)
    providers.hit_place.insert(0, hit_link_place)
