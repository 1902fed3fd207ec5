"""The approval queue (maker-checker): the proposals waiting for a second person, who approves or rejects
them; the decided ones; the register of retired liabilities. And the level page's proposals."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from jackpots.models import ChangeProposal, Level
from jackpots.services import EngineError, change_approve, change_propose, change_reject, progressive_retire
from workspace.access import workspace_page
from workspace.approvals.forms import RejectForm, level_forms
from workspace.approvals.selectors import proposals_decided, proposals_pending, retired_liabilities
from workspace.progressives.views import PROPOSE, level_page
from workspace.shell import VIEW_PROPOSALS

APPROVE = "jackpots.approve_change"


def _queue(
    request: HttpRequest, *, error: str = "", failed: int | None = None, status: int = 200
) -> HttpResponse:
    now = timezone.now()
    context = {
        "title": _("Approvals"),
        "pending": proposals_pending(request.user, now),
        "decided": proposals_decided(request.user, now),
        "retired": retired_liabilities(),
        "can_approve": request.user.has_perm(APPROVE),
        "error": error,
        "failed": failed,
    }
    return render(request, "workspace/approvals/queue.html", context, status=status)


@workspace_page(VIEW_PROPOSALS)
def approvals_view(request: HttpRequest) -> HttpResponse:
    return _queue(request)


@require_POST
@workspace_page(APPROVE)
def proposal_decide_view(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """Approves or rejects (with a reason) a proposal another person made; a refusal shows the queue again
    with its sentence and code (400), nothing changed."""
    if action not in ("approve", "reject"):
        raise Http404
    proposal = get_object_or_404(ChangeProposal, pk=pk)
    try:
        if action == "approve":
            change_approve(proposal, request.user)
        else:
            form = RejectForm(request.POST)
            reason = form.cleaned_data["reason"] if form.is_valid() else ""
            change_reject(proposal, request.user, reason)
    except EngineError as error:
        return _queue(request, error=f"{error.message} ({error.code})", failed=proposal.pk, status=400)
    done = _("Approved: %(p)s.") if action == "approve" else _("Rejected: %(p)s.")
    messages.success(request, done % {"p": proposal})
    return redirect("workspace:approvals")


def _propose(request: HttpRequest, level: Level, kind: str, form) -> ChangeProposal | None:
    """The proposal the valid ``form`` asks for; None (with the form's error) when the engine refuses."""
    user, reason = request.user, form.cleaned_data["reason"]
    try:
        if kind == "parameters":
            changes = form.changes_for(level)
            if not changes:
                form.add_error(None, _("Nothing differs from the current parameters."))
                return None
            return change_propose(kind=kind, user=user, reason=reason, level=level, params=changes)
        if kind == "retirement":
            target = form.cleaned_data.get("target_level")
            return progressive_retire(level.progressive, user, reason, target_level=target)
        return change_propose(
            kind=kind,
            user=user,
            reason=reason,
            level=level,
            amount_mc=form.amount_mc(),
            target_level=form.cleaned_data.get("target_level"),
        )
    except EngineError as error:
        form.add_error(None, f"{error.message} ({error.code})")
        return None


@require_POST
@workspace_page(PROPOSE)
def level_propose_view(request: HttpRequest, pk: int, kind: str) -> HttpResponse:
    """A proposal from the level page; nothing moves until another person approves it."""
    if kind not in ChangeProposal.Kind.values:
        raise Http404
    level = get_object_or_404(Level.objects.select_related("progressive"), pk=pk)
    forms = level_forms(level, request.POST, kind)
    form = forms[kind]
    proposal = _propose(request, level, kind, form) if form.is_valid() else None
    if proposal is None:
        return level_page(request, level, forms=forms, open_kind=kind, status=400)
    messages.success(
        request,
        _(
            "Proposed: %(p)s. Another person approves or rejects it in the approval queue; "
            "nothing changes until then."
        )
        % {"p": proposal},
    )
    return redirect(reverse("workspace:level", args=[level.pk]) + "#proposals")
