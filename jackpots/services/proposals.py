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

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from common.money import mc_eur_grouped
from floor.models import SignificantEvent
from floor.services.significant import significant_event_record
from jackpots.models import ChangeProposal, Level, Progressive
from jackpots.services.errors import EngineError
from jackpots.services.parameters import level_parameters_change, parameters_proposed
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


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _person(user) -> None:
    if user is None or not getattr(user, "is_authenticated", False):
        raise EngineError(
            "user_required", _("A change is proposed and decided by a person who is logged in.")
        )


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
    return kind


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
    user,
    reason: str,
    level: Level | None = None,
    progressive: Progressive | None = None,
    params: dict | None = None,
    amount_mc: int | None = None,
    target_level: Level | None = None,
) -> ChangeProposal:
    """Records a proposal (nothing moves). Raises EngineError on bad input."""
    kind = _kind(kind)
    _person(user)
    reason = _text(reason)
    if not reason:
        raise EngineError("reason_required", _("A change needs a reason."))
    # Only a transfer and a retirement send money somewhere.
    target_level = target_level if kind in (Kind.TRANSFER, Kind.RETIREMENT) else None
    fields: dict = {"kind": kind, "reason": reason, "proposed_by": user, "target_level": target_level}
    if kind in _LEVEL_KINDS:
        level = Level.objects.select_related("progressive").filter(pk=getattr(level, "pk", None)).first()
        if level is None:
            raise EngineError("level_required", _("Name the level the change is about."))
        level_usable(level)
        fields.update(level=level, progressive=level.progressive)
    if kind == Kind.PARAMETERS:
        fields["params"] = parameters_proposed(level, dict(params or {}))
    elif kind == Kind.RETIREMENT:
        progressive = progressive or (level.progressive if level is not None else None)
        _retirement_check(progressive, target_level)
        fields["progressive"] = progressive
    else:
        fields["amount_mc"] = _amount(kind, amount_mc)
        if kind == Kind.CORRECTION:
            correction_check(level, amount_mc)
        if kind == Kind.TRANSFER:
            transfer_check(level, target_level, amount_mc)
    with transaction.atomic():
        proposal = ChangeProposal.objects.create(proposed_at=timezone.now(), **fields)
        _significant(proposal, SignificantEvent.Kind.CHANGE_PROPOSED, user, proposal.reason)
    return proposal


def progressive_retire(
    progressive: Progressive, user, reason: str, *, target_level: Level | None = None
) -> ChangeProposal:
    """Proposes the retirement of ``progressive``; its approval applies it (``change_approve``)."""
    return change_propose(
        kind=Kind.RETIREMENT, user=user, reason=reason, progressive=progressive, target_level=target_level
    )


def _decidable(proposal: ChangeProposal, user) -> ChangeProposal:
    """The proposal's row, locked; refused when decided already or when ``user`` proposed it."""
    _person(user)
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


def change_approve(proposal: ChangeProposal, user) -> ChangeProposal:
    """Applies the proposal, once, with the approver's name; nothing is written if it no longer holds
    (a correction that would now bring the level below its reset value, say)."""
    with transaction.atomic():
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


def change_reject(proposal: ChangeProposal, user, reason: str) -> ChangeProposal:
    """Rejects the proposal with a reason; nothing moves."""
    reason = _text(reason)
    if not reason:
        raise EngineError("reason_required", _("A rejection needs a reason."))
    with transaction.atomic():
        proposal = _decidable(proposal, user)
        proposal.state, proposal.decided_by = ChangeProposal.State.REJECTED, user
        proposal.decided_at, proposal.decision_reason = timezone.now(), reason
        proposal.save(update_fields=["state", "decided_by", "decided_at", "decision_reason"])
        _significant(proposal, SignificantEvent.Kind.CHANGE_REJECTED, user, reason)
    return proposal


def _apply(proposal: ChangeProposal, now) -> None:
    if proposal.kind == Kind.PARAMETERS:
        level = proposal.level
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


_MOVE_EVENTS = {
    Kind.CORRECTION: SignificantEvent.Kind.CORRECTION,
    Kind.TRANSFER: SignificantEvent.Kind.TRANSFER,
    Kind.RETIREMENT: SignificantEvent.Kind.RETIREMENT,
}


def _name(user) -> str:
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


def _venue_id(progressive_id: int | None) -> int | None:
    """The venue of the progressive's machines; None (the whole house) for a link across venues."""
    venues = set(
        SlotMachine.objects.filter(progressives__id=progressive_id).values_list("room__venue_id", flat=True)
    )
    return venues.pop() if len(venues) == 1 else None


def _significant(proposal: ChangeProposal, kind: str, user, detail: str) -> None:
    subject = str(proposal.level) if proposal.level_id else str(proposal.progressive)
    significant_event_record(
        kind,
        venue=_venue_id(proposal.progressive_id),
        subject=subject,
        level_id=proposal.level_id,
        user=user,
        detail=f"{proposal.get_kind_display()} #{proposal.pk}: {detail}",
        reference=f"proposal {proposal.pk}",
    )
