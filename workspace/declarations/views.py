"""Caribbean Stud declarations in the workspace: what is pending (the linked tables wait) and its release
by a supervisor, with a reason (tables.services.declarations)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from jackpots.services.errors import EngineError
from tables.models import TableDeclaration
from tables.selectors import declarations_desk
from tables.services.declarations import RELEASE_REASON_MAX, declaration_release
from workspace.access import workspace_page

VIEW = "tables.view_tabledeclaration"
RELEASE = "tables.release_tabledeclaration"


class ReleaseForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        max_length=RELEASE_REASON_MAX,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=gettext_lazy("What you checked (e.g. the hand seen at the table): kept with your name."),
    )


@workspace_page(VIEW)
def declarations_view(request: HttpRequest) -> HttpResponse:
    pending, ended = declarations_desk(timezone.now())
    context = {
        "title": _("Table declarations"),
        "pending": pending,
        "ended": ended,
        "can_release": request.user.has_perm(RELEASE),
        "form": ReleaseForm(),
    }
    return render(request, "workspace/declarations/declarations.html", context)


@workspace_page(VIEW)
@require_POST
def declaration_release_view(request: HttpRequest, pk: int) -> HttpResponse:
    declaration = get_object_or_404(TableDeclaration.objects.select_related("table"), pk=pk)
    if not request.user.has_perm(RELEASE):
        messages.error(request, _("You may not do this: ask a floor manager."))
        return redirect("workspace:declarations")
    form = ReleaseForm(request.POST)
    if not form.is_valid():
        messages.error(
            request, _("A release needs a reason of at most %(n)s characters.") % {"n": RELEASE_REASON_MAX}
        )
        return redirect("workspace:declarations")
    try:
        declaration_release(declaration, request.user, form.cleaned_data["reason"])
    except EngineError as refused:
        messages.error(request, refused.message)
    else:
        messages.success(
            request,
            _("The declaration at table %(table)s is released: the linked tables play again.")
            % {"table": declaration.table.code},
        )
    return redirect("workspace:declarations")
