"""What the link tells its sites' sockets (``consumers``), after the commit that changed it.

The engine tells of changed levels and recorded hits through ``jackpots.hooks``; this app listens there
(registered in ``LinkcentralConfig.ready``) and sends each linked pool's new value to the pool's group,
and an award frame when a hit of a link award was recorded. A revoked site key closes its sockets at once
through the key's own group (``common.credentials``' listeners); the heartbeat's re-check of the key is the
safety net if that message is lost.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from common.channels import groups_send
from common.credentials import REVOKED
from linkcentral.models import LinkAward, LinkSiteKey
from linkcentral.selectors import pool_frames


def pool_group(pool_id: int) -> str:
    """The sockets of the sites that are members of the pool."""
    return f"linkcentral.pool.{pool_id}"


def key_group(key_id: int) -> str:
    """The sockets opened with one site key (closed when it is revoked)."""
    return f"linkcentral.key.{key_id}"


def levels_changed(level_ids: list[int]) -> None:
    """The engine changed these levels: a ``pool`` frame for each that is a linked pool (one query)."""
    frames = pool_frames(level_ids=sorted(set(level_ids)))
    groups_send([(pool_group(frame["pool_id"]), {"type": "link.pool", "frame": frame}) for frame in frames])


def hit_announced(hit_id: int) -> None:
    """A hit was recorded: if it is a link award's, its pool's sites are told to fetch it."""
    award = LinkAward.objects.select_related("pool").filter(hit_id=hit_id).first()
    if award is not None:
        award_announce(award)


def award_announce(award: LinkAward) -> None:
    """The ``award`` frame to the pool's sites (the apply service may call it after its commit)."""
    frame = {"type": "award", "pool": award.pool.code, "id": award.pk}
    groups_send([(pool_group(award.pool_id), {"type": "link.award", "frame": frame})])


def credential_changed(action: str, credential: Any, user: Any) -> None:
    """A site key revoked: its sockets close once the revocation is committed."""
    if action == REVOKED and isinstance(credential, LinkSiteKey):
        key_id = credential.pk
        transaction.on_commit(lambda: groups_send([(key_group(key_id), {"type": "link.key_revoked"})]))


def listeners_register() -> None:
    """The engine's news and the keys' revocations the link's sockets hear (called once, in ready())."""
    from common.credentials import credential_listeners
    from jackpots.hooks import hooks

    if levels_changed not in hooks.levels_changed:
        hooks.levels_changed.append(levels_changed)
    if hit_announced not in hooks.hit_announced:
        hooks.hit_announced.append(hit_announced)
    if credential_changed not in credential_listeners:
        credential_listeners.append(credential_changed)
