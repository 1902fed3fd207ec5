"""The hits desk, the workspace's start page: verify, pay and void through the engine's own services
(jackpots.services.hits), each after a confirmation that shows the amount and the machine."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from common.admin import audit
from common.money import cents_eur_grouped
from jackpots.admin.common import PAY_HIT, VERIFY_HIT, VOID_HIT
from jackpots.models import Hit, HitKind
from jackpots.services import EngineError, hit_pay, hit_verify, hit_void
from jackpots.tables.services import table_hit_void
from workspace.access import workspace_page
from workspace.desk.selectors import desk_hits, hit_needs, hits_recent_closed, person
from workspace.models import HitSlip
from workspace.shell import page_render, venue_current
from workspace.slips.services import SlipRefused, hit_slip_get, hit_slips_store

ACTIONS = {"verify": VERIFY_HIT, "pay": PAY_HIT, "void": VOID_HIT}


class VoidForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("Why the hit is void (e.g. a malfunction): it is recorded with your name."),
    )


@workspace_page()
def hits_desk_view(request: HttpRequest) -> HttpResponse:
    venue = venue_current(request)
    user = request.user
    context = {
        "title": _("Hits desk"),
        "venue": venue,
        "rows": desk_hits(venue, timezone.now()),
        "closed": hits_recent_closed(venue),
        "can": {action: user.has_perm(permission) for action, permission in ACTIONS.items()},
    }
    return page_render(request, "workspace/desk/hits.html", context, section="hits")


def _act(request: HttpRequest, hit: Hit, action: str, reason: str) -> Hit:
    if action == "verify":
        return hit_verify(hit, request.user)
    if action == "pay":
        return hit_pay(hit, request.user)
    # A table prize is voided everywhere (its seats and rounds too), as a round's void does.
    void = table_hit_void if hit.kind == HitKind.TABLE else hit_void
    return void(hit, request.user, reason)


def _done_message(hit: Hit, action: str) -> str:
    values = {"hit": hit.number, "amount": cents_eur_grouped(hit.amount_cents)}
    if action == "verify" and hit.state == Hit.State.HIT:
        return (
            _("Hit %(hit)s (€ %(amount)s): first verification recorded; a second person must verify it.")
            % values
        )
    if action == "verify":
        return _("Hit %(hit)s (€ %(amount)s) is verified and can be paid.") % values
    if action == "pay":
        return _("Hit %(hit)s (€ %(amount)s) is paid. Print the slip for the winner and the cage.") % values
    return _("Hit %(hit)s (€ %(amount)s) is void.") % values


@workspace_page()
@require_http_methods(["GET", "POST"])
def hit_action_view(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """GET: the confirmation (amount, machine, who verified); POST: the step, then back to the desk."""
    if action not in ACTIONS:
        raise Http404(_("No such action."))
    if not request.user.has_perm(ACTIONS[action]):
        messages.error(request, _("You may not do this: ask a floor manager."))
        return redirect("workspace:hits")
    hit = get_object_or_404(Hit.objects.select_related("machine__room__venue", "level__progressive"), pk=pk)
    form = VoidForm(request.POST if request.method == "POST" else None) if action == "void" else None
    if request.method == "POST" and (form is None or form.is_valid()):
        try:
            after = _act(request, hit, action, form.cleaned_data["reason"] if form else "")
        except EngineError as error:
            # The sentence is for people; the code stays in the API and the logs.
            messages.error(request, error.message)
            return redirect("workspace:hits")
        audit(request, after, _done_message(after, action))
        if after.state == Hit.State.PAID:
            hit_slips_store(after)
        messages.success(request, _done_message(after, action))
        return redirect("workspace:hits")
    context = {
        "title": _confirm_title(action),
        "hit": hit,
        "action": action,
        "form": form,
        "needs": hit_needs(hit),
        "verified_by": person(hit.verified_by),
    }
    return page_render(request, "workspace/desk/confirm.html", context, section="hits")


def _confirm_title(action: str) -> str:
    return {"verify": _("Verify this hit?"), "pay": _("Pay this hit?"), "void": _("Void this hit?")}[action]


@workspace_page("jackpots.view_hit")
def hit_slip_view(request: HttpRequest, pk: int, variant: str) -> HttpResponse:
    """The stored slip of a paid hit (a reprint is the same PDF)."""
    if variant not in HitSlip.Variant.values:
        raise Http404(_("No such slip format."))
    hit = get_object_or_404(Hit, pk=pk)
    try:
        pdf = hit_slip_get(hit, variant)
    except SlipRefused:
        messages.error(
            request,
            _("Hit %(hit)s is not paid yet: its slip is printed once it is paid.") % {"hit": hit.number},
        )
        return redirect("workspace:hits")
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="jackpot-slip-{hit.pk}-{variant}.pdf"'
    return response
