"""Revoking any key by what a person has of it: the whole key, or the prefix the admin lists.

Machine, gateway and table keys are revoked (kept on record with ``revoked_at``); a screen's token is
cleared. A revoked machine or gateway key stops working at once in every process (each request's write checks
the key's row, slots.services.auth); table keys and screen tokens are looked up afresh on every use.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import Q

from common.credentials import Credential, credentials_revoke, key_digest, screen_token_revoke
from floor.models import SignageScreen
from jackpots.hooks import providers
from jackpots.services.errors import EngineError
from slots.models import GatewayKey, MachineKey


def credential_models() -> list[type[Credential]]:
    """Every kind of key: the machines' and gateways', and those the apps above register (table keys)."""
    return [MachineKey, GatewayKey, *providers.credential_models]


def key_revoke(text: str, *, by: User | None = None) -> str:
    """Revokes the one active key or screen token that ``text`` names and says which it was; refuses
    (EngineError) when none does, or when a prefix names several (then the whole key is needed)."""
    text = text.strip()
    if not text:
        raise EngineError("key_not_found", "Give a key or the prefix the admin shows of it.")
    digest = key_digest(text)
    found: list[Credential | SignageScreen] = []
    for model in credential_models():
        # `objects`, reached as the default manager: the abstract Credential declares no `objects` to mypy.
        found += model._default_manager.filter(Q(digest=digest) | Q(prefix=text), revoked_at__isnull=True)
    found += SignageScreen.objects.exclude(token_digest="").filter(
        Q(token_digest=digest) | Q(token_prefix=text)
    )
    if not found:
        raise EngineError("key_not_found", f"No active key or screen token is {text!r} or starts so.")
    if len(found) > 1:
        raise EngineError(
            "key_ambiguous", f"{len(found)} active keys start with {text!r}: give the whole key."
        )
    (target,) = found
    if isinstance(target, SignageScreen):
        screen_token_revoke(target, by=by)
        return f"screen token of {target.slug}"
    credentials_revoke([target], by=by)
    return f"{target._meta.verbose_name} {target}"
