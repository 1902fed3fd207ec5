"""API keys and screen tokens: random, shown once, stored only as a SHA-256 digest.

Keys carry 256 bits of randomness, so a fast digest is enough (no password stretching needed) and lets
an API authenticate a request with one indexed lookup. Every kind of key (machine, gateway, table) is a
concrete subclass of ``Credential`` (here, in the lowest app, so that these functions can name its fields;
an abstract model has no table, so where it lives changes no migration); these functions work on any.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Credential(models.Model):
    """A key, stored as its SHA-256 digest: the key itself is shown once, when issued."""

    digest = models.CharField(_("digest"), max_length=64, unique=True, editable=False)
    prefix = models.CharField(_("prefix"), max_length=24, editable=False)
    created_at = models.DateTimeField(_("issued at"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("issued by"),
    )
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True, editable=False)

    class Meta:
        abstract = True

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


C = TypeVar("C", bound=Credential)


class TokenHolder(Protocol):
    """What the screen-token functions use of a signage screen (``floor.models.SignageScreen``, which
    this lowest app cannot import)."""

    token_digest: str
    token_prefix: str
    token_issued_at: datetime | None

    def save(self, *, update_fields: Iterable[str] | None = ...) -> None: ...


# last_used_at is written at most this often per key, so a busy gateway does not write on every request.
LAST_USED_RESOLUTION = timedelta(seconds=30)

ISSUED, REVOKED = "issued", "revoked"
# Who hears of a key or screen token issued or revoked, in the same transaction (floor: the
# significant-events register). The apps above register in their ready(); common imports none of them.
credential_listeners: list[Callable[[str, Any, Any], None]] = []


def _credential_announce(action: str, credential: Any, user: Any) -> None:
    for listener in credential_listeners:
        listener(action, credential, user)


def key_generate(kind: str) -> str:
    """A new key such as ``pv_mach_3Xy...``; the prefix tells a human what it is for."""
    return f"pv_{kind}_{secrets.token_urlsafe(32)}"


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def key_display_prefix(key: str) -> str:
    """What the admin shows of a key so people can tell keys apart without seeing the secret."""
    return key[:16]


def credential_issue(
    model: type[C], *, kind: str, created_by: User | None = None, **owner: Any
) -> tuple[C, str]:
    """Creates a credential of ``model`` for ``owner`` and returns it with the key, which is never stored."""
    key = key_generate(kind)
    with transaction.atomic():
        credential = model._default_manager.create(
            digest=key_digest(key), prefix=key_display_prefix(key), created_by=created_by, **owner
        )
        _credential_announce(ISSUED, credential, created_by)
    return credential, key


def credential_revoke(credential: Credential, *, by: Any = None) -> None:
    """Revokes an active credential (``by``: the person who did, for the record)."""
    if credential.revoked_at is None:
        with transaction.atomic():
            credential.revoked_at = timezone.now()
            credential.save(update_fields=["revoked_at"])
            _credential_announce(REVOKED, credential, by)


def credential_find(model: type[C], key: str) -> C | None:
    """The active credential for ``key``, or None; notes when it was last used."""
    if not key:
        return None
    credential = model._default_manager.filter(digest=key_digest(key), revoked_at__isnull=True).first()
    if credential is not None:
        now = timezone.now()
        if credential.last_used_at is None or now - credential.last_used_at > LAST_USED_RESOLUTION:
            model._default_manager.filter(pk=credential.pk).update(last_used_at=now)
            credential.last_used_at = now
    return credential


def screen_token_issue(screen: TokenHolder, *, by: Any = None) -> str:
    """A new token for a signage screen; the previous one stops working."""
    token = key_generate("scr")
    screen.token_digest = key_digest(token)
    screen.token_prefix = key_display_prefix(token)
    screen.token_issued_at = timezone.now()
    with transaction.atomic():
        screen.save(update_fields=["token_digest", "token_prefix", "token_issued_at"])
        _credential_announce(ISSUED, screen, by)
    return token


def screen_token_revoke(screen: TokenHolder, *, by: Any = None) -> None:
    if not screen.token_digest:
        return  # no token to revoke
    screen.token_digest = ""
    with transaction.atomic():
        screen.save(update_fields=["token_digest"])
        _credential_announce(REVOKED, screen, by)


def screen_token_matches(screen: TokenHolder, token: str) -> bool:
    return (
        bool(screen.token_digest)
        and bool(token)
        and secrets.compare_digest(screen.token_digest, key_digest(token))
    )


def credentials_revoke(credentials: Iterable[Credential], *, by: Any = None) -> int:
    """Revokes every credential given; returns how many were active before."""
    revoked = 0
    with transaction.atomic():
        for credential in credentials:
            if credential.revoked_at is None:
                credential_revoke(credential, by=by)
                revoked += 1
    return revoked
