"""What the link answered the forwarder, written down: acknowledged entries, errors, where to resend from.

The link is the authority on what it holds: its ``acked`` (or the seq it expects, less one) is where the
outbox's acknowledged mark stands. Above it nothing is marked; an entry this side had marked that the link
says it lacks is marked unacknowledged again (and sent again), with the fault in ``last_error`` and the
log: nothing is ever dropped.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Max

from linksite.models import LinkMembership, OutboxEntry

log = logging.getLogger(__name__)

ERROR_MAX = 300  # LinkMembership.last_error


@dataclass(frozen=True)
class Acked:
    """``marked``: entries newly acknowledged; ``unmarked``: entries the link says it lacks (a fault)."""

    marked: int
    unmarked: int
    fault: str = ""


def membership_error(membership_id: int, error: str) -> None:
    LinkMembership.objects.filter(pk=membership_id).update(last_error=error[:ERROR_MAX])


def outbox_acked(membership_id: int, acked: int, at: datetime, *, sent: bool = True) -> Acked:
    """The link holds this membership's entries up to ``acked``: marks them (``acked_at``, ``acked_seq``).
    ``sent``: an answer to a post (``last_sent_at``, and a cleared ``last_error``)."""
    with transaction.atomic():
        membership = LinkMembership.objects.select_for_update().get(pk=membership_id)
        written = membership.next_seq - 1
        fault = ""
        unmarked = 0
        if acked > written:
            # The link holds entries this side never wrote (its outbox restored from an older backup?):
            # its next rounds' numbers are taken there, and will conflict. Staff must look.
            fault = f"The link holds entries up to {acked}; this site wrote up to {written}."
        if acked < membership.acked_seq:
            unmarked = OutboxEntry.objects.filter(
                membership_id=membership_id, seq__gt=acked, acked_at__isnull=False
            ).update(acked_at=None)
            fault = (
                f"The link holds entries up to {acked} only; {membership.acked_seq} had been acknowledged. "
                f"{unmarked} entries are sent again."
            )
        marked = OutboxEntry.objects.filter(
            membership_id=membership_id, seq__lte=acked, acked_at__isnull=True
        ).update(acked_at=at)
        membership.acked_seq = min(acked, written)
        fields = ["acked_seq"]
        if sent:
            membership.last_sent_at = at
            membership.last_error = fault[:ERROR_MAX]
            fields += ["last_sent_at", "last_error"]
        elif fault:
            membership.last_error = fault[:ERROR_MAX]
            fields.append("last_error")
        membership.save(update_fields=fields)
    if fault:
        log.error("link membership %s: %s", membership_id, fault)
    return Acked(marked, unmarked, fault)


def outbox_last_seq(membership_id: int) -> int:
    return OutboxEntry.objects.filter(membership_id=membership_id).aggregate(m=Max("seq"))["m"] or 0
