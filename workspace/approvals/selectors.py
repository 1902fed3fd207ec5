"""The approval queue's rows: each proposal as a person reads it (kind, level, money in euros, what changes,
who proposed it, how long ago, who decided it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.db.models import QuerySet
from django.utils import formats
from django.utils.translation import gettext as _

from common.money import mc_eur_grouped
from jackpots.models import ChangeProposal, Level, RetiredLiability

DECIDED_SHOWN = 50
_MONEY_PARAMS = {"reset_mc", "limit_mc"}
_RATE_PARAMS = {"rate", "reserve_rate"}


@dataclass(frozen=True)
class ProposalRow:
    proposal: ChangeProposal
    subject: str
    change: str
    age: timedelta
    mine: bool


def _param_text(name: str, value: object) -> str:
    labels = {
        "reset_mc": _("reset value"),
        "limit_mc": _("limit"),
        "rate": _("rate"),
        "reserve_rate": _("reserve rate"),
        "min_wager_cents": _("minimum wager (cents)"),
        "max_bet_only": _("max bet only"),
        "mystery": _("mystery"),
    }
    if name in _MONEY_PARAMS:
        shown = _("none") if value is None else f"€\u00a0{mc_eur_grouped(value)}"
    elif name in _RATE_PARAMS:
        shown = formats.number_format(Decimal(str(value)), use_l10n=True)  # "0,02" in Italian
    elif isinstance(value, bool):
        shown = _("yes") if value else _("no")
    else:
        shown = str(value)
    return f"{labels.get(name, name)}: {shown}"


def _change(proposal: ChangeProposal) -> str:
    """What the proposal changes, in a line."""
    if proposal.kind == ChangeProposal.Kind.PARAMETERS:
        return "; ".join(_param_text(name, value) for name, value in proposal.params.items())
    parts = []
    if proposal.amount_mc is not None:
        sign = "+" if proposal.kind == ChangeProposal.Kind.CORRECTION and proposal.amount_mc > 0 else ""
        parts.append(f"{sign}€\u00a0{mc_eur_grouped(proposal.amount_mc)}")
    if proposal.target_level_id is not None:
        parts.append(_("to %(level)s") % {"level": proposal.target_level})
    elif proposal.kind == ChangeProposal.Kind.RETIREMENT:
        parts.append(_("to the register of retired liabilities"))
    return " ".join(parts)


def _rows(proposals: QuerySet[ChangeProposal], user, now: datetime) -> list[ProposalRow]:
    rows = []
    for proposal in proposals.select_related(
        "level__progressive", "progressive", "target_level__progressive", "proposed_by", "decided_by"
    ):
        subject = str(proposal.level) if proposal.level_id else str(proposal.progressive)
        rows.append(
            ProposalRow(
                proposal,
                subject,
                _change(proposal),
                now - proposal.proposed_at,
                proposal.proposed_by_id == user.pk,
            )
        )
    return rows


def proposals_pending(user, now: datetime, level: Level | None = None) -> list[ProposalRow]:
    """The proposals waiting for a decision, oldest first (of one level, or of its progressive's
    retirement, when ``level`` is given)."""
    pending = ChangeProposal.objects.filter(state=ChangeProposal.State.PENDING).order_by("proposed_at", "id")
    if level is not None:
        pending = pending.filter(level=level) | pending.filter(
            progressive_id=level.progressive_id, kind=ChangeProposal.Kind.RETIREMENT
        )
    return _rows(pending, user, now)


def proposals_decided(user, now: datetime) -> list[ProposalRow]:
    decided = ChangeProposal.objects.exclude(state=ChangeProposal.State.PENDING).order_by(
        "-decided_at", "-id"
    )
    return _rows(decided[:DECIDED_SHOWN], user, now)


def retired_liabilities() -> QuerySet[RetiredLiability]:
    return RetiredLiability.objects.select_related(
        "level__progressive", "proposal__proposed_by", "proposal__decided_by"
    ).order_by("-at", "-id")
