"""Caribbean Stud declarations (docs/tables.md "Declarations").

The Casinò's rule: "a player with a Royal or Straight Flush must always declare it; all the games being
played at the various tables are momentarily suspended". A round recorded at a Caribbean Stud table with
an eligible Royal or Straight Flush opens a ``TableDeclaration`` on its progressive's level. While it is
pending:
- a round played after it (by its played-at time) at any table of the progressive is refused
  ``level_pending`` (409) and changes nothing;
- a round played before it and posted meanwhile is accepted and shares the prize of its hand as a
  simultaneous win (``rounds._open_share``: the prize stays open while the declaration is pending).
It ends when a supervisor releases it (``declaration_release``), when its prize is paid in full
(``declaration_share_paid``) or, if no one does, by itself at ``expires_at``: the pay table's sharing
window after the declared round, the upper bound the old time window still sets (``declarations_lapse``,
run by beat every few seconds and by every round posted to the level). Once it has ended the prize is final
and the tables play again. Every opening and end is a significant event, in the same transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from floor.models import SignificantEvent
from floor.services.significant import significant_event_record
from jackpots.hooks import progressive_news_send
from jackpots.models import Hit, Level
from jackpots.services.errors import EngineError
from tables.models import PrizeShare, Table, TableDeclaration, TableRound, TableSeat
from tables.round_input import RoundError
from tables.rules import DECLARED_HANDS, Game
from tables.selectors import declaration_message

RELEASE_REASON_MAX = 500


def _venue_of(declaration: TableDeclaration) -> int | None:
    """The register's venue: the table's, or None (the whole house) for a link across venues."""
    venues = set(
        Table.objects.filter(progressive_id=declaration.progressive_id).values_list("venue_id", flat=True)
    )
    return venues.pop() if len(venues) == 1 else None


def _subject(declaration: TableDeclaration) -> str:
    return _("%(table)s seat %(seat)s: %(hand)s") % {
        "table": declaration.table.code,
        "seat": declaration.seat,
        "hand": declaration.get_hand_display(),
    }


def _announce(declaration: TableDeclaration) -> None:
    """The progressive's signs and tables learn the change once it is committed."""
    transaction.on_commit(lambda pk=declaration.pk: _declaration_tell(pk))


def _declaration_tell(declaration_id: int) -> None:
    found = declaration_message(declaration_id)
    if found is not None:
        progressive_news_send(*found)


def declaration_open_locked(
    round_: TableRound, seats: list[TableSeat], *, window: timedelta, received_at: datetime
) -> TableDeclaration | None:
    """Under the level's lock, for a new round: the declaration its best declared hand opens, if it is a
    Caribbean Stud round with an eligible Royal or Straight Flush and none is pending on the level (a
    round played before a pending declaration joins it instead)."""
    table = round_.table
    if table.game != Game.CARIBBEAN_STUD:
        return None
    declared = [
        s for s in seats if s.hand in DECLARED_HANDS and s.jackpot_bet_cents > 0 and not s.changed_card
    ]
    if not declared or declaration_current_locked(round_.level, max(round_.at, received_at)) is not None:
        return None
    seat = min(declared, key=lambda s: (DECLARED_HANDS.index(s.hand), s.seat))
    declaration = TableDeclaration.objects.create(
        progressive_id=table.progressive_id,
        level=round_.level,
        round=round_,
        table=table,
        seat=seat.seat,
        hand=seat.hand,
        share=seat.share,
        opened_at=round_.at,
        expires_at=round_.at + window,
    )
    significant_event_record(
        SignificantEvent.Kind.DECLARATION,
        venue=_venue_of(declaration),
        at=received_at,
        subject=_subject(declaration),
        level_id=round_.level_id,
        detail=_(
            "Played at %(at)s; the linked tables are suspended until it is released (at the latest %(end)s)."
        )
        % {"at": round_.at.isoformat(), "end": declaration.expires_at.isoformat()},
        reference=f"table {table.code} round {round_.round_id}",
    )
    _announce(declaration)
    return declaration


def declaration_current_locked(level: Level, now: datetime) -> TableDeclaration | None:
    """The level's pending declaration at ``now`` (the caller holds the level's lock); one whose window
    has passed is recorded as lapsed first."""
    declaration = (
        TableDeclaration.objects.select_related("table")
        .filter(level=level, state=TableDeclaration.State.PENDING)
        .first()
    )
    if declaration is None:
        return None
    if now > declaration.expires_at:
        _lapse(declaration)
        return None
    return declaration


def round_pending_refuse(level: Level, table: Table, played_at: datetime, received_at: datetime) -> None:
    """A round played after the level's pending declaration waits until it is released: ``level_pending``.
    A round played at the same time or before is a simultaneous win and is taken."""
    # A round played after the window has passed, or posted after it, finds the declaration lapsed.
    declaration = declaration_current_locked(level, max(played_at, received_at))
    if declaration is None or played_at <= declaration.opened_at:
        return
    raise RoundError(
        "level_pending",
        f"A {declaration.get_hand_display()} is being declared at table {declaration.table.code} "
        f"(seat {declaration.seat}): the tables of this progressive are suspended until a supervisor "
        f"releases it (at the latest {declaration.expires_at.isoformat()}); post round again then.",
        status=409,
    )


def _end(
    declaration: TableDeclaration, state: str, *, at: datetime, reason: str, user=None
) -> TableDeclaration:
    """Ends a pending declaration: its prize is final from ``at`` (no later round joins it) and every
    stored answer of the prize's rounds says so."""
    declaration.state, declaration.released_at, declaration.release_reason = state, at, reason
    declaration.released_by = user if getattr(user, "is_authenticated", False) else None
    declaration.save(update_fields=["state", "released_at", "release_reason", "released_by"])
    if declaration.share_id is not None:
        share_close(PrizeShare.objects.select_for_update().get(pk=declaration.share_id), at)
    significant_event_record(
        SignificantEvent.Kind.DECLARATION_RELEASED,
        venue=_venue_of(declaration),
        at=at,
        subject=_subject(declaration),
        level_id=declaration.level_id,
        user=user,
        detail=f"{declaration.get_state_display()}: {reason}",
        reference=f"table {declaration.table.code} round {declaration.round.round_id}",
    )
    _announce(declaration)
    return declaration


def _lapse(declaration: TableDeclaration) -> None:
    """No one released it within the window: it ends by itself when the window does."""
    _end(declaration, TableDeclaration.State.LAPSED, at=declaration.expires_at, reason=_("window over"))


def share_close(share: PrizeShare, at: datetime) -> None:
    """The prize is final from ``at`` (if not already): the answers of its rounds give the new
    ``final_at``."""
    from tables.services.rounds import round_answer  # rounds opens declarations through us

    if share.closes_at <= at:
        return
    share.closes_at = at
    share.save(update_fields=["closes_at"])
    for round_ in TableRound.objects.filter(seat_rows__share=share).distinct().select_related("table"):
        round_.response = round_answer(round_)
        round_.save(update_fields=["response"])


def release_reason_clean(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise EngineError("reason_required", _("A release needs a reason."))
    if len(reason) > RELEASE_REASON_MAX or "\x00" in reason:
        raise EngineError(
            "invalid_reason",
            _("The reason must be text of at most %(n)s characters.") % {"n": RELEASE_REASON_MAX},
        )
    return reason


def declaration_release(declaration: TableDeclaration, user, reason: str) -> TableDeclaration:
    """A supervisor has seen the declared hand: the prize is final and the linked tables play again."""
    reason = release_reason_clean(reason)
    with transaction.atomic():
        Level.objects.select_for_update().filter(pk=declaration.level_id).values_list("pk").get()
        declaration = TableDeclaration.objects.select_related("table", "round").get(pk=declaration.pk)
        now = timezone.now()
        if declaration.state == TableDeclaration.State.PENDING and now > declaration.expires_at:
            _end(
                declaration, TableDeclaration.State.LAPSED, at=declaration.expires_at, reason=_("window over")
            )
        if declaration.state != TableDeclaration.State.PENDING:
            raise EngineError(
                "declaration_not_pending",
                _("This declaration is no longer pending (%(state)s): play has already resumed.")
                % {"state": declaration.get_state_display()},
            )
        return _end(declaration, TableDeclaration.State.RELEASED, at=now, reason=reason, user=user)


def declaration_share_paid(share: PrizeShare, user, now: datetime) -> None:
    """After the floor paid a part of a declared prize (under the share's lock): the division is fixed
    (money is out, no later round joins it) and, once its hit is paid, the declaration is released."""
    declaration = (
        TableDeclaration.objects.select_related("table", "round")
        .filter(share=share, state=TableDeclaration.State.PENDING)
        .first()
    )
    if declaration is None:
        return
    share_close(share, now)
    if Hit.objects.filter(pk=share.hit_id, state=Hit.State.PAID).exists():
        _end(declaration, TableDeclaration.State.PAID, at=now, reason=_("prize paid"), user=user)


def share_declared(share: PrizeShare) -> bool:
    """Whether a prize's declaration is pending: the floor may pay it then (paying ends the wait)."""
    return TableDeclaration.objects.filter(share=share, state=TableDeclaration.State.PENDING).exists()


def declarations_lapse(now: datetime | None = None) -> int:
    """Records the lapse of every pending declaration whose window has passed (beat's safety net: the
    signs hear of it even when no round is posted); returns how many lapsed."""
    now = now or timezone.now()
    expired = TableDeclaration.objects.filter(state=TableDeclaration.State.PENDING, expires_at__lt=now)
    level_ids = list(expired.values_list("level_id", flat=True))
    for level_id in level_ids:
        with transaction.atomic():
            declaration_current_locked(Level.objects.select_for_update().get(pk=level_id), now)
    return len(level_ids)
