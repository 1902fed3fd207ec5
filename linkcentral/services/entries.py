"""A site's entries received at the link (docs/wide-area.md "Up"): kept as sent, in seq order, once.

The pair (site's membership, seq) is an entry's identity. In one transaction, with the membership's row
locked (two posts of one site wait for each other, so acked_seq moves one way), each entry of the batch is
either one already received (same digest: acknowledged again, nothing written; another digest: the whole
batch is refused, ``entry_conflict``), the next one (kept), or past a gap (the whole batch is refused,
``entry_gap``). A forwarder killed after the commit but before it read the answer sends the batch again
and is answered the same ``acked``. Applying the entries to the pool, in the order of play across sites,
is the apply task's (``linkcentral.tasks``), told after the commit.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction

from common.times import time_window
from jackpots.currency import convert_cents_back
from linkcentral.errors import LinkRefused, invalid_body
from linkcentral.models import LinkEntry, LinkMember, LinkSite
from linkcentral.parsing import BatchInput, EntryInput, SiteBooksInput, batch_parse, batch_pool


def member_find(site: LinkSite, pool_code: str, *, lock: bool = False) -> LinkMember:
    """The site's active membership of the pool ``pool_code`` (locked: ``select_for_update``), or 403."""
    members = LinkMember.objects.select_related("pool__level__progressive").filter(
        site=site, pool__code=pool_code, active=True
    )
    member = (members.select_for_update(of=("self",)) if lock else members).first()
    if member is None:
        raise LinkRefused(403, "not_a_member", f"This site is not an active member of the pool {pool_code}.")
    return member


def pool_answer(member: LinkMember) -> dict[str, Any]:
    """The pool as it stands (what a site shows until the socket tells it more)."""
    level = member.pool.level
    return {"amount_mc": level.current_mc, "currency": level.progressive.currency, "value_seq": level.seq}


def _new_entries(member: LinkMember, entries: tuple[EntryInput, ...]) -> list[EntryInput]:
    """The entries of the batch not yet received, in order; refuses the batch on a conflict or a gap."""
    old_seqs = {entry.seq for entry in entries if entry.seq <= member.acked_seq}
    received = (
        LinkEntry.objects.filter(member=member, seq__in=old_seqs) if old_seqs else LinkEntry.objects.none()
    )
    # Each seq's digest: the ones received before, then this batch's as they are taken.
    taken: dict[int, str] = dict(received.values_list("seq", "digest"))
    acked, new = member.acked_seq, []
    for entry in entries:
        if entry.seq <= acked:
            if taken[entry.seq] != entry.digest:
                raise LinkRefused(
                    409,
                    "entry_conflict",
                    f"Entry {entry.seq} was already received with other content; nothing was changed.",
                    seq=entry.seq,
                )
            continue
        if entry.seq != acked + 1:
            raise LinkRefused(
                409,
                "entry_gap",
                f"Entry {entry.seq} comes after a gap: the link expects {acked + 1}; nothing was changed.",
                expected=acked + 1,
            )
        new.append(entry)
        taken[entry.seq] = entry.digest
        acked = entry.seq
    return new


def _entry_row(member: LinkMember, entry: EntryInput, received_at: datetime) -> LinkEntry:
    return LinkEntry(
        member=member,
        seq=entry.seq,
        kind=entry.kind,
        round_ref=entry.round_ref,
        played_at=entry.played_at,
        received_at=received_at,
        currency=entry.currency,
        rate=entry.rate,
        wagered_cents=entry.wagered_cents,
        # The product's one rounding rule: floor(wagered / rate), to the pool's cent.
        wagered_pool_cents=convert_cents_back(entry.wagered_cents, entry.rate),
        bets=entry.bets,
        # Each bet as the wire names it: its seat and its bet in the site's cents (its weight in a prize).
        seats=[{"seat": seat, "bet_cents": bet_cents} for seat, bet_cents in entry.seats],
        digest=entry.digest,
    )


def _batch_write(member: LinkMember, batch: BatchInput, received_at: datetime) -> bool:
    new = _new_entries(member, batch.entries)
    LinkEntry.objects.bulk_create([_entry_row(member, entry, received_at) for entry in new])
    fields = ["heard_at"]
    member.heard_at = received_at
    moved = member.through is None or batch.through > member.through
    if moved:  # only forward: a late batch re-sent after a newer one says nothing new
        member.through = batch.through
        fields.append("through")
    if new:
        member.acked_seq = new[-1].seq
        fields.append("acked_seq")
    fields += _books_keep(member, batch.books)
    member.save(update_fields=fields)
    return bool(new) or moved


def _books_keep(member: LinkMember, books: SiteBooksInput | None) -> list[str]:
    """Keeps the site's books when they are about entries the link holds (the batch's included) and not
    older than those kept (a late batch re-sent after a newer one); the fields changed."""
    if books is None or books.seq < member.books_seq:
        return []
    if books.seq > member.acked_seq:
        raise invalid_body("books.seq", f"must not pass the last entry the link holds ({member.acked_seq}).")
    member.books_seq, member.books_wagered_cents = books.seq, books.wagered_cents
    return ["books_seq", "books_wagered_cents"]


def entries_receive(site: LinkSite, data: object, received_at: datetime) -> dict[str, Any]:
    """Receives a site's batch (the decoded body) and answers ``{"acked", "pool"}``; refuses it whole
    (LinkRefused: 400 invalid_body, 403 not_a_member, 409 entry_gap / entry_conflict) with nothing
    changed. The apply task is told when entries were kept or ``through`` moved."""
    pool_code = batch_pool(data)
    assert isinstance(data, dict)  # batch_pool refuses anything else
    with transaction.atomic():
        member = member_find(site, pool_code, lock=True)
        batch = batch_parse(
            data,
            currency=site.currency,
            pool_currency=member.pool.level.progressive.currency,
            window=time_window(received_at),
        )
        if _batch_write(member, batch, received_at):
            entries_received_on_commit(member.pool_id)
        return {"acked": member.acked_seq, "pool": pool_answer(member)}


def entries_received_on_commit(pool_id: int) -> None:
    """Once the entries are committed, the apply task looks at the pool (the order of play across sites).
    The task lives in ``linkcentral.tasks``; imported here, when called, so this module loads without
    Celery's app."""

    def send() -> None:
        from linkcentral.tasks import link_entries_apply_task  # type: ignore[import-not-found,unused-ignore]

        link_entries_apply_task.delay(pool_id)

    # robust: the entries are committed and acknowledged whatever the broker does; a send that fails is
    # logged, and the apply task's next run (the next batch, or its schedule) takes them.
    transaction.on_commit(send, robust=True)
