"""The hits desk, the workspace's start page: verify, pay and void through the engine's own services
(jackpots.services.hit_payment, jackpots.services.hit_voids), each after a confirmation that shows the
amount and the machine."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from common.admin import audit
from common.api_errors import ApiError
from common.money import cents_money
from jackpots.admin.common import PAY_HIT, VERIFY_HIT, VOID_HIT
from jackpots.models import Hit, HitKind
from jackpots.services import EngineError, hit_pay, hit_verify, hit_void
from jackpots.services.hit_numbers import hit_label
from jackpots.services.winners import Winner
from jackpots.winner import WinnerIdentity
from tables.models import PrizePart
from tables.services import table_hit_void
from tables.services.parts import part_label, part_pay, part_verify, part_void
from workspace.access import workspace_page
from workspace.desk.selectors import desk_hits, hit_needs, hits_recent_closed, parts_recent_closed, person
from workspace.models import HitSlip
from workspace.shell import venue_current
from workspace.slips.services import SlipRefused, slip_print, slips_store

ACTIONS = {"verify": VERIFY_HIT, "pay": PAY_HIT, "void": VOID_HIT}


class VoidForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("Why the hit is void (e.g. a malfunction): it is recorded with your name."),
    )


class WinnerForm(forms.Form):
    """The winner's identification, required by the engine at or above the venue's threshold (€2,000)."""

    winner_name = forms.CharField(label=gettext_lazy("Winner's name"), max_length=120, required=False)
    document_type = forms.ChoiceField(
        label=gettext_lazy("Identity document"),
        choices=[("", "—"), *WinnerIdentity.DocumentType.choices],
        required=False,
    )
    document_number = forms.CharField(label=gettext_lazy("Document number"), max_length=40, required=False)
    document_country = forms.CharField(
        label=gettext_lazy("Issuing country"), max_length=2, required=False, help_text=gettext_lazy("e.g. IT")
    )

    def winner(self) -> Winner:
        data = self.cleaned_data
        return Winner(
            data["winner_name"], data["document_type"], data["document_number"], data["document_country"]
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
        "closed_parts": parts_recent_closed(venue),
        "can": {action: user.has_perm(permission) for action, permission in ACTIONS.items()},
    }
    return render(request, "workspace/desk/hits.html", context)


def _act(request: HttpRequest, target: Hit | PrizePart, action: str, form: forms.Form | None):
    if isinstance(target, PrizePart):
        steps = {"verify": part_verify, "pay": part_pay, "void": part_void}
    else:
        # A table prize is voided everywhere (its seats and rounds too), as a round's void does.
        void = table_hit_void if target.kind == HitKind.TABLE else hit_void
        steps = {"verify": hit_verify, "pay": hit_pay, "void": void}
    if action == "void":
        return steps["void"](target, request.user, form.cleaned_data["reason"])
    if action == "pay":
        return steps["pay"](target, request.user, form.winner())
    return steps["verify"](target, request.user)


def _done_message(target: Hit | PrizePart, action: str) -> str:
    if isinstance(target, PrizePart):
        values = {"hit": part_label(target), "amount": cents_money(target.amount_cents, target.currency)}
    else:
        values = {"hit": hit_label(target), "amount": cents_money(target.payout_cents)}
    if action == "verify" and target.state in (Hit.State.HIT, PrizePart.State.OPEN):
        return (
            _("%(hit)s (%(amount)s): first verification recorded; a second person must verify it.") % values
        )
    if action == "verify":
        return _("%(hit)s (%(amount)s) is verified and can be paid.") % values
    if action == "pay":
        return _("%(hit)s (%(amount)s) is paid. Print the slip for the winner and the cage.") % values
    if target.state != Hit.State.VOIDED:
        return _("%(hit)s (%(amount)s): void asked for; a different person must confirm it.") % values
    return _("%(hit)s (%(amount)s) is void.") % values


def _form(request: HttpRequest, action: str) -> forms.Form | None:
    data = request.POST if request.method == "POST" else None
    return {"void": VoidForm, "pay": WinnerForm}[action](data) if action in ("void", "pay") else None


@workspace_page()
@require_http_methods(["GET", "POST"])
def hit_action_view(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """GET: the confirmation (amount, machine, who verified); POST: the step, then back to the desk."""
    hit = get_object_or_404(Hit.objects.select_related("machine__room__venue", "level__progressive"), pk=pk)
    return _action(request, hit, action)


@workspace_page()
@require_http_methods(["GET", "POST"])
def part_action_view(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """A winner's part of a shared table prize: verified, paid and voided on its own."""
    part = get_object_or_404(
        PrizePart.objects.select_related("share__hit__level__progressive", "seat__round__table__venue"), pk=pk
    )
    return _action(request, part, action)


def _action(request: HttpRequest, target: Hit | PrizePart, action: str) -> HttpResponse:
    if action not in ACTIONS:
        raise Http404(_("No such action."))
    if not request.user.has_perm(ACTIONS[action]):
        messages.error(request, _("You may not do this: ask a floor manager."))
        return redirect("workspace:hits")
    form = _form(request, action)
    error = ""
    if request.method == "POST" and (form is None or form.is_valid()):
        try:
            after = _act(request, target, action, form)
        except (EngineError, ApiError) as refused:
            # The sentence is for people; the code stays in the API and the logs.
            text = refused.message if isinstance(refused, EngineError) else refused.detail
            if getattr(refused, "code", "") != "winner_id_required":
                messages.error(request, text)
                return redirect("workspace:hits")
            error = text  # the form asks again, with what is missing
        else:
            audit(
                request,
                after.share.hit if isinstance(after, PrizePart) else after,
                _done_message(after, action),
            )
            if after.state == Hit.State.PAID:
                slips_store(after)
            messages.success(request, _done_message(after, action))
            return redirect("workspace:hits")
    part = target if isinstance(target, PrizePart) else None
    hit = part.share.hit if part is not None else target
    context = {
        "title": _confirm_title(action),
        "hit": hit,
        "part": part,
        "label": part_label(part) if part is not None else hit_label(hit),
        "amount": cents_money(part.amount_cents, part.currency) if part else cents_money(hit.payout_cents),
        "action": action,
        "form": form,
        "error": error,
        "needs": hit_needs(target),
        "verified_by": person(target.verified_by),
    }
    return render(request, "workspace/desk/confirm.html", context)


def _confirm_title(action: str) -> str:
    return {"verify": _("Verify this hit?"), "pay": _("Pay this hit?"), "void": _("Void this hit?")}[action]


@workspace_page("jackpots.view_hit")
def hit_slip_view(request: HttpRequest, pk: int, variant: str) -> HttpResponse:
    """The stored slip of a paid hit; a reprint is the same slip marked COPIA / COPY with its number."""
    return _slip(request, get_object_or_404(Hit, pk=pk), variant)


@workspace_page("jackpots.view_hit")
def part_slip_view(request: HttpRequest, pk: int, variant: str) -> HttpResponse:
    """A paid part's own slip."""
    return _slip(request, get_object_or_404(PrizePart, pk=pk), variant)


def _slip(request: HttpRequest, target: Hit | PrizePart, variant: str) -> HttpResponse:
    if variant not in HitSlip.Variant.values:
        raise Http404(_("No such slip format."))
    label = part_label(target) if isinstance(target, PrizePart) else hit_label(target)
    try:
        pdf = slip_print(target, variant, request.user)
    except SlipRefused:
        messages.error(
            request, _("%(hit)s is not paid yet: its slip is printed once it is paid.") % {"hit": label}
        )
        return redirect("workspace:hits")
    response = HttpResponse(pdf, content_type="application/pdf")
    kind = "part" if isinstance(target, PrizePart) else "hit"
    response["Content-Disposition"] = f'inline; filename="jackpot-slip-{kind}-{target.pk}-{variant}.pdf"'
    return response
