"""A jackpot pending at the link: this site's claim sent (or waiting in the outbox while the line is down)
and its award not yet back. The signs say so on the progressive's card until the award is recorded here
(``docs/wide-area.md``): the players see that the straight flush was seen and is being decided."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from jackpots.hooks import progressive_news_send
from linksite.selectors import progressives_pending


def pending_frame(progressive_id: int, pending: bool) -> dict[str, object]:
    """The signs' ``pending`` frame of a linked progressive."""
    return {"type": "pending", "jackpot": progressive_id, "pending": pending}


def pending_frames(progressive_ids: list[int]) -> list[dict[str, object]]:
    """What a sign connecting now gets after its snapshot: the pending ones (``providers.sign_frames``)."""
    return [pending_frame(pid, True) for pid in sorted(progressives_pending(progressive_ids))]


def pending_strings() -> dict[str, str]:
    """The sign's words for it, in the active language (``providers.sign_strings``)."""
    return {"link_pending": _("Jackpot won: awaiting the link's confirmation")}


def pending_tell(progressive_id: int) -> None:
    """Tells the progressive's signs whether it is pending now, as committed. The signs' channel carries
    it as a ``declaration.changed`` message: news for the signs that the machines' gateways ignore, like
    a table's declaration."""
    frame = pending_frame(progressive_id, progressive_id in progressives_pending([progressive_id]))
    progressive_news_send(progressive_id, {"type": "declaration.changed", "frame": frame})


def pending_tell_on_commit(progressive_id: int) -> None:
    transaction.on_commit(lambda: pending_tell(progressive_id))
