"""Maker-checker for a level's money and parameters: one person proposes a change with a reason, another
approves or rejects it; until it is approved nothing moves.

    change_propose(*, kind, user, reason, level=None, progressive=None, params=None, amount_mc=None,
                   target_level=None) -> ChangeProposal
    change_approve(proposal, user) -> ChangeProposal
    change_reject(proposal, user, reason) -> ChangeProposal
    progressive_retire(progressive, user, reason, *, target_level=None) -> ChangeProposal

Kinds: ``parameters`` (``params``: name → new value, staged until the next reset as before), ``correction``
(a signed ``amount_mc``), ``topup`` (a positive ``amount_mc``), ``transfer`` (a positive ``amount_mc`` to
``target_level``), ``retirement`` (a ``progressive``; ``target_level`` or the register). Bad input raises
``EngineError`` (a code and a sentence) and writes nothing. An approval locks the proposal's row, then the
levels' (``levels_write``), and checks again what it checked at the proposal: two approvals at once apply
once. The approver must not be the proposer (``same_person``); neither may reject their own. Each proposal,
decision and move is a significant event, written in the same transaction.
"""

from __future__ import annotations

from datetime import datetime
from typing import TypedDict

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from common.money import mc_eur_grouped
from floor.models import SignificantEvent
from floor.services.significant import significant_event_record
from jackpots.models import ChangeProposal, Level, Progressive
from jackpots.services.errors import EngineError
from jackpots.services.parameters import JsonValue, level_parameters_change, parameters_proposed
from jackpots.services.proposal_apply import (
    correction_check,
    inflow_apply,
    level_usable,
    retirement_apply,
    transfer_apply,
    transfer_check,
)
from slots.models import SlotMachine

Kind = ChangeProposal.Kind
# The most a single change may move (€ 10 million): a typo of a few digits is refused, not approved.
AMOUNT_MAX_MC = 1_000_000_000_000
_LEVEL_KINDS = {Kind.PARAMETERS, Kind.CORRECTION, Kind.TOPUP, Kind.TRANSFER}
# Who proposes or decides: a request's user, which may be anonymous (refused), or none at all (refused).
Person = User | AnonymousUser | None


class _Fields(TypedDict, total=False):
    """A new proposal's fields, as ``change_propose`` gathers them."""

    kind: str
    reason: str
    proposed_by: User
    target_level: Level | None
    level: Level
    progressive: Progressive | None
    params: dict[str, JsonValue]
    amount_mc: int


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _person(user: Person) -> User:
    if user is None or not getattr(user, "is_authenticated", False):
        raise EngineError(
            "user_required", _("A change is proposed and decided by a person who is logged in.")
        )
    assert isinstance(user, User)  # an anonymous user is never authenticated
    return user


def _amount(kind: str, amount_mc: object) -> int:
    if isinstance(amount_mc, bool) or not isinstance(amount_mc, int):
        raise EngineError("invalid_amount", _("The amount must be a whole number of millicents."))
    if amount_mc == 0:
        raise EngineError("zero_amount", _("The amount must not be zero."))
    if kind != Kind.CORRECTION and amount_mc < 0:
        raise EngineError(
            "negative_amount", _("The amount must be above zero (a correction may be negative).")
        )
    if abs(amount_mc) > AMOUNT_MAX_MC:
        raise EngineError("amount_too_large", _("One change moves at most € 10,000,000.00."))
    return amount_mc


def _kind(kind: object) -> str:
    if kind not in Kind.values:
        raise EngineError(
            "unknown_kind",
            _("%(kind)r is not a kind of change (parameters, correction, topup, transfer, retirement).")
            % {"kind": kind},
        )
    return str(kind)


def _retirement_check(progressive: Progressive | None, target: Level | None) -> None:
    if progressive is None:
        raise EngineError("progressive_required", _("A retirement names the progressive it retires."))
    levels = Level.objects.filter(progressive=progressive)
    if not levels.exclude(state=Level.State.RETIRED).exists():
        raise EngineError("already_retired", _("%(p)s is retired already.") % {"p": progressive})
    pending = ChangeProposal.objects.filter(
        progressive=progressive, kind=Kind.RETIREMENT, state=ChangeProposal.State.PENDING
    )
    if pending.exists():
        raise EngineError(
            "pending_exists", _("A retirement of %(p)s is waiting for approval already.") % {"p": progressive}
        )
    if target is not None:
        if target.progressive_id == progressive.pk:
            raise EngineError("same_progressive", _("The liability goes to a level of another progressive."))
        level_usable(target)


def change_propose(
    *,
    kind: str,
    user: Person,
    reason: str,
    level: Level | None = None,
    progressive: Progressive | None = None,
    params: dict[str, object] | None = None,
    amount_mc: int | None = None,
    target_level: Level | None = None,
) -> ChangeProposal:
    """Records a proposal (nothing moves). Raises EngineError on bad input."""
    kind = _kind(kind)
    person = _person(user)
    reason = _text(reason)
    if not reason:
        raise EngineError("reason_required", _("A change needs a reason."))
    # Only a transfer and a retirement send money somewhere.
    target_level = target_level if kind in (Kind.TRANSFER, Kind.RETIREMENT) else None
    fields: _Fields = {"kind": kind, "reason": reason, "proposed_by": person, "target_level": target_level}
    if kind in _LEVEL_KINDS:
        _level_fields(fields, level, params, amount_mc)
    else:  # a retirement
        progressive = progressive or (level.progressive if level is not None else None)
        _retirement_check(progressive, target_level)
        fields["progressive"] = progressive
    with transaction.atomic():
        proposal = ChangeProposal.objects.create(proposed_at=timezone.now(), **fields)
        _significant(proposal, SignificantEvent.Kind.CHANGE_PROPOSED, person, proposal.reason)
    return proposal


def _level_fields(
    fields: _Fields, level: Level | None, params: dict[str, object] | None, amount_mc: int | None
) -> None:
    """The fields of a change of one level's money or parameters, checked against the level."""
    kind = fields["kind"]
    levels = Level.objects.select_related("progressive")
    found = levels.filter(pk=level.pk).first() if level is not None else None
    if found is None:
        raise EngineError("level_required", _("Name the level the change is about."))
    level_usable(found)
    fields["level"], fields["progressive"] = found, found.progressive
    if kind == Kind.PARAMETERS:
        fields["params"] = parameters_proposed(found, dict(params or {}))
        return
    amount = _amount(kind, amount_mc)
    fields["amount_mc"] = amount
    if kind == Kind.CORRECTION:
        correction_check(found, amount)
    if kind == Kind.TRANSFER:
        transfer_check(found, fields["target_level"], amount)


def progressive_retire(
    progressive: Progressive, user: Person, reason: str, *, target_level: Level | None = None
) -> ChangeProposal:
    """Proposes the retirement of ``progressive``; its approval applies it (``change_approve``)."""
    return change_propose(
        kind=Kind.RETIREMENT, user=user, reason=reason, progressive=progressive, target_level=target_level
    )


def _decidable(proposal: ChangeProposal, user: User) -> ChangeProposal:
    """The proposal's row, locked; refused when decided already or when ``user`` proposed it."""
    locked = ChangeProposal.objects.select_for_update().get(pk=proposal.pk)
    if locked.state != ChangeProposal.State.PENDING:
        raise EngineError(
            "decided_already",
            _("This change was %(state)s already by %(who)s on %(at)s.")
            % {
                "state": locked.get_state_display().lower(),
                "who": _name(locked.decided_by),
                "at": timezone.localtime(locked.decided_at).strftime("%Y-%m-%d %H:%M"),
            },
        )
    if locked.proposed_by_id == user.pk:
        raise EngineError(
            "same_person", _("You proposed this change: another person must approve or reject it.")
        )
    return locked


def change_approve(proposal: ChangeProposal, user: Person) -> ChangeProposal:
    """Applies the proposal, once, with the approver's name; nothing is written if it no longer holds
    (a correction that would now bring the level below its reset value, say)."""
    with transaction.atomic():
        user = _person(user)
        proposal = _decidable(proposal, user)
        now = timezone.now()
        proposal.state, proposal.decided_by, proposal.decided_at = ChangeProposal.State.APPROVED, user, now
        proposal.save(update_fields=["state", "decided_by", "decided_at"])
        _apply(proposal, now)
        proposal.save(update_fields=["level_change"])
        _significant(proposal, SignificantEvent.Kind.CHANGE_APPROVED, user, proposal.reason)
        moved = _MOVE_EVENTS.get(proposal.kind)
        if moved is not None:
            _significant(proposal, moved, user, _detail(proposal))
    return proposal


def change_reject(proposal: ChangeProposal, user: Person, reason: str) -> ChangeProposal:
    """Rejects the proposal with a reason; nothing moves."""
    reason = _text(reason)
    if not reason:
        raise EngineError("reason_required", _("A rejection needs a reason."))
    with transaction.atomic():
        user = _person(user)
        proposal = _decidable(proposal, user)
        proposal.state, proposal.decided_by = ChangeProposal.State.REJECTED, user
        proposal.decided_at, proposal.decision_reason = timezone.now(), reason
        proposal.save(update_fields=["state", "decided_by", "decided_at", "decision_reason"])
        _significant(proposal, SignificantEvent.Kind.CHANGE_REJECTED, user, reason)
    return proposal


def _apply(proposal: ChangeProposal, now: datetime) -> None:
    if proposal.kind == Kind.PARAMETERS:
        level = proposal.level
        if level is None:
            raise ValueError("a parameters proposal without its level")
        level_usable(level)
        proposal.level_change = level_parameters_change(
            level, proposal.proposed_by, proposal.params, proposal.reason, proposal=proposal
        )
    elif proposal.kind in (Kind.CORRECTION, Kind.TOPUP):
        inflow_apply(proposal, now)
    elif proposal.kind == Kind.TRANSFER:
        transfer_apply(proposal, now)
    else:
        retirement_apply(proposal, now)


_MOVE_EVENTS: dict[str, str] = {
    Kind.CORRECTION: SignificantEvent.Kind.CORRECTION,
    Kind.TRANSFER: SignificantEvent.Kind.TRANSFER,
    Kind.RETIREMENT: SignificantEvent.Kind.RETIREMENT,
}


def _name(user: User | None) -> str:
    return (user.get_full_name() or user.get_username()) if user is not None else "?"


def _detail(proposal: ChangeProposal) -> str:
    """The sentence of the register: what moved, why, both people."""
    parts = [str(proposal.get_kind_display())]
    if proposal.amount_mc is not None:
        parts.append(f"€ {mc_eur_grouped(proposal.amount_mc)}")
    if proposal.target_level_id is not None:
        parts.append(_("to %(level)s") % {"level": proposal.target_level})
    parts.append(
        _("proposed by %(maker)s, approved by %(checker)s: %(reason)s")
        % {
            "maker": _name(proposal.proposed_by),
            "checker": _name(proposal.decided_by),
            "reason": proposal.reason,
        }
    )
    return " · ".join(parts)


def _venue_id(progressive_id: int) -> int | None:
    """The venue of the progressive's machines; None (the whole house) for a link across venues."""
    venues = set(
        SlotMachine.objects.filter(progressives__id=progressive_id).values_list("room__venue_id", flat=True)
    )
    return venues.pop() if len(venues) == 1 else None


def _significant(proposal: ChangeProposal, kind: str, user: User, detail: str) -> None:
    subject = str(proposal.level) if proposal.level_id else str(proposal.progressive)
    significant_event_record(
        kind,
        # Every proposal names its progressive (a level's, or the one retired).
        venue=_venue_id(proposal.progressive_id) if proposal.progressive_id is not None else None,
        subject=subject,
        level_id=proposal.level_id,
        user=user,
        detail=f"{proposal.get_kind_display()} #{proposal.pk}: {detail}",
        reference=f"proposal {proposal.pk}",
    )
