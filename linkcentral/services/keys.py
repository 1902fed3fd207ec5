"""Site keys: issued and revoked through the product's credential functions (``common.credentials``), as
every key of the product; looked up in the database on every request and connection, never cached, so a
revoked key is refused at once."""

from __future__ import annotations

from django.contrib.auth.models import User

from common.credentials import credential_find, credential_issue, credentials_revoke
from linkcentral.models import LinkSite, LinkSiteKey

SITE_KEY_KIND = "site"


def site_key_issue(site: LinkSite, *, created_by: User | None = None) -> tuple[LinkSiteKey, str]:
    """A new key for a site (``pv_site_…``), shown once; earlier keys stay valid until revoked (rotation)."""
    return credential_issue(LinkSiteKey, kind=SITE_KEY_KIND, created_by=created_by, site=site)


def site_keys_revoke(site: LinkSite, *, by: object = None) -> int:
    """Revokes every active key of the site; how many were active."""
    return credentials_revoke(LinkSiteKey.objects.filter(site=site, revoked_at__isnull=True), by=by)


def site_key_find(key: str) -> LinkSiteKey | None:
    """The active key ``key`` of an active site, with its site, or None."""
    credential = credential_find(LinkSiteKey, key)
    if credential is None:
        return None
    site = LinkSite.objects.filter(pk=credential.site_id, active=True).first()
    if site is None:
        return None
    credential.site = site
    return credential


def site_key_bearer(authorization: str | None) -> LinkSiteKey | None:
    """The site key an ``Authorization: Bearer <key>`` header carries, if it is an active one."""
    scheme, _, key = (authorization or "").partition(" ")
    return site_key_find(key.strip()) if scheme.lower() == "bearer" else None


def site_key_for(site_code: str) -> str:
    """``manage.py issue_key --site CODE``: a new key for the site, shown once."""
    from django.core.management.base import CommandError

    site = LinkSite.objects.filter(code=site_code).first()
    if site is None:
        raise CommandError(f"No link site has the code {site_code!r}.")
    return site_key_issue(site)[1]
