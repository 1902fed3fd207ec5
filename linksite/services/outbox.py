"""A round's entries owed to the link, written in the round's own transaction (``tables.hooks``).

For a round on a progressive with an active membership: its contribution (the round's jackpot bets in
the venue's cents, at the rate the round recorded) and, when a playing seat holds the hand the pool pays
(Jumbo 7: the 7-card straight flush), its claim, after the contribution. Each is numbered from the
membership's ``next_seq`` under the membership's row lock, so the numbers have no gap and commit in order
(the next round waits for the lock until this one commits or rolls back: a rolled-back round takes its
numbers with it). ``body`` is exactly the entry the wire carries.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from linksite.models import LinkMembership, OutboxEntry
from linksite.services.pending import pending_tell_on_commit
from linksite.wire import instant_text, rate_text, round_ref
from tables.hooks import RoundRecorded


def membership_active(progressive_id: int) -> bool:
    """Whether the progressive is played as a site of a link's pool (its percentage prize is the link's).
    In the round's transaction the membership row is locked, so the answer holds until the round's claim
    is written (a membership switched off meanwhile waits: never a prize neither awarded nor claimed)."""
    rows = LinkMembership.objects.filter(progressive_id=progressive_id, active=True)
    if transaction.get_connection().in_atomic_block:
        rows = rows.select_for_update()
    return rows.exists()


def _bodies(event: RoundRecorded) -> list[dict[str, Any]]:
    """The round's entries without their numbers: nothing for a round without a jackpot bet."""
    common = {
        "round": round_ref(event.table.code, event.round_.round_id),
        "played_at": instant_text(event.at),
        "currency": event.currency,
        "rate": rate_text(event.rate),
    }
    bodies: list[dict[str, Any]] = []
    if event.wagered_cents > 0:
        bodies.append(
            {"kind": OutboxEntry.Kind.CONTRIBUTION.value, **common, "wagered_cents": event.wagered_cents}
        )
    if event.percent_won:
        playing = event.playing
        bodies.append(
            {
                "kind": OutboxEntry.Kind.CLAIM.value,
                **common,
                "bets": len(playing),
                # Each bet with its seat: the link divides the prize by the bets (Jumbo 7's rule).
                "seats": [{"seat": bet.seat, "bet_cents": bet.bet_cents} for bet in playing],
            }
        )
    return bodies


def outbox_round_write(event: RoundRecorded) -> list[OutboxEntry]:
    """The round's entries in the outbox of the progressive's active membership (none: not linked)."""
    bodies = _bodies(event)
    if not bodies:
        return []
    membership = (
        LinkMembership.objects.select_for_update()
        .filter(progressive_id=event.progressive_id, active=True)
        .first()
    )
    if membership is None:
        return []
    entries = []
    for number, body in enumerate(bodies, start=membership.next_seq):
        membership.wagered_total_cents += body.get("wagered_cents", 0)
        entries.append(
            OutboxEntry(
                membership=membership,
                seq=number,
                kind=body["kind"],
                round_ref=body["round"],
                played_at=event.at,
                body={"seq": number, **body},
                wagered_through_cents=membership.wagered_total_cents,
            )
        )
    OutboxEntry.objects.bulk_create(entries)
    membership.next_seq += len(entries)
    membership.save(update_fields=["next_seq", "wagered_total_cents"])
    if any(entry.kind == OutboxEntry.Kind.CLAIM for entry in entries):
        pending_tell_on_commit(event.progressive_id)
    return entries
