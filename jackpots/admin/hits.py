"""The hits queue: per venue, newest first; verify, pay and void through the engine (rule 8). Each hit
shows its place in the order of play (number, the triggering event's time, machine and seq, late) and the
refused jackpot reports have their own read-only list.

An attendant verifies; a floor manager verifies, pays and voids; an auditor reads. At or above the venue's
threshold two different people verify (Nevada MICS): the engine enforces it, the queue shows who is missing.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.timesince import timesince
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from common.admin_changelist import BoundedDateHierarchyMixin
from common.money import cents_eur_grouped
from jackpots.admin.common import (
    PAY_HIT,
    SEE_MYSTERY_TRIGGER,
    SEE_WINNER_IDENTITY,
    VERIFY_HIT,
    VOID_HIT,
    ReadOnlyAdmin,
    audit,
)
from jackpots.hooks import first_answer, providers
from jackpots.models import Hit, HitRefusal
from jackpots.services import EngineError, hit_pay, hit_verify, hit_void


class VoidForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("Why the hit is void (e.g. a malfunction): it is recorded with your name."),
    )


class OpenFilter(admin.SimpleListFilter):
    title = gettext_lazy("queue")
    parameter_name = "queue"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [
            ("open", _("To verify or pay")),
            ("two_person", _("Waiting for a second verifier")),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Hit]) -> QuerySet[Hit]:
        if self.value() == "open":
            return queryset.filter(state__in=[Hit.State.HIT, Hit.State.VERIFIED])
        if self.value() == "two_person":
            return queryset.filter(state=Hit.State.HIT, verified_by__isnull=False)
        return queryset


@admin.register(Hit)
class HitAdmin(BoundedDateHierarchyMixin, ReadOnlyAdmin, admin.ModelAdmin):
    # The hit number people read aloud (NOG-2026-00123) leads; the database id is only in the address.
    list_display = [
        "ref",
        "number",
        "at",
        "late",
        "age",
        "venue",
        "machine",
        "level",
        "amount",
        "state",
        "verified_by",
        "second_verified_by",
        "payer",
    ]
    list_filter = [OpenFilter, "state", "machine__room__venue", "kind", "late", "level__progressive"]
    list_select_related = [
        "machine__room__venue",
        "level__progressive",
        "verified_by",
        "second_verified_by",
        "paid_by",
    ]
    search_fields = ["ref", "machine__asset_number", "level__name", "level__progressive__name"]
    ordering = ["-at", "-id"]
    date_hierarchy = "at"
    actions = ["verify_selected", "pay_selected", "void_selected"]
    list_per_page = 50
    fields = [
        "id",
        "ref",
        "state",
        "kind",
        "number",
        "at",
        "play_seq",
        "late",
        "event_id",
        "level",
        "machine",
        "amount",
        "machine_amount",
        "discrepancy",
        "cycle",
        "verified_by",
        "verified_at",
        "second_verified_by",
        "second_verified_at",
        "payer",
        "paid_at",
        "voided_by",
        "voided_at",
        "void_reason",
    ]

    # --- columns --------------------------------------------------------------------------------------
    @admin.display(description=gettext_lazy("amount (EUR)"), ordering="amount_cents")
    def amount(self, hit: Hit) -> str:
        return cents_eur_grouped(hit.amount_cents)

    # People read euros: the machine's own figure and the difference, not raw cents (the engine's value
    # sequence stays in the audit trail and the API, not on this page).
    @admin.display(description=gettext_lazy("machine showed (EUR)"))
    def machine_amount(self, hit: Hit) -> str:
        return "-" if hit.machine_amount_cents is None else cents_eur_grouped(hit.machine_amount_cents)

    @admin.display(description=gettext_lazy("difference (EUR)"))
    def discrepancy(self, hit: Hit) -> str:
        return "-" if hit.discrepancy_cents is None else cents_eur_grouped(hit.discrepancy_cents)

    @admin.display(description=gettext_lazy("age"), ordering="at")
    def age(self, hit: Hit) -> str:
        return timesince(hit.at, timezone.now())

    @admin.display(description=gettext_lazy("venue"), ordering="machine__room__venue__code")
    def venue(self, hit: Hit) -> str:
        return hit.machine.room.venue.code if hit.machine_id else "-"

    @admin.display(description=gettext_lazy("paid by"))
    def payer(self, hit: Hit) -> str:
        """Who paid: a person of the floor, or (asked of the apps above only for a hit paid by no person)
        the table that paid a prize under the threshold."""
        if hit.paid_by_id is not None:
            return str(hit.paid_by)
        if hit.state != Hit.State.PAID:
            return "-"
        return first_answer(providers.hit_payer, hit) or "-"

    # --- permissions: nothing is edited or deleted here; the actions are the only writes ---------------
    def has_verify_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(VERIFY_HIT)

    def has_pay_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(PAY_HIT)

    def has_void_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(VOID_HIT)

    def get_fields(self, request: HttpRequest, obj: Hit | None = None) -> list[str]:
        # The level as it stood before the hit holds the mystery trigger (rule 9): auditors only.
        extra = ["before"] if request.user.has_perm(SEE_MYSTERY_TRIGGER) else []
        if request.user.has_perm(SEE_WINNER_IDENTITY):  # auditors only
            extra += [
                "winner_name",
                "winner_document_type",
                "winner_document_number",
                "winner_document_country",
            ]
        return [*self.fields, *extra]

    def get_readonly_fields(self, request: HttpRequest, obj: Hit | None = None) -> list[str]:
        return self.get_fields(request, obj)

    # --- actions: each hit through the engine, one by one, each step in the admin log -------------------
    def _each(self, request: HttpRequest, queryset: QuerySet[Hit], step: str, apply, done: str) -> None:
        for hit in queryset.order_by("at", "id"):
            try:
                after = apply(hit)
            except EngineError as error:
                self.message_user(request, f"{hit}: {error.message} ({error.code})", messages.ERROR)
                continue
            if step == "verify" and after.state == Hit.State.HIT:
                audit(request, after, _("First verification (two-person rule)"))
                self.message_user(
                    request,
                    _("%(hit)s: first verification recorded; a second person must verify (%(amount)s EUR).")
                    % {"hit": after, "amount": cents_eur_grouped(after.amount_cents)},
                    messages.WARNING,
                )
                continue
            audit(request, after, done)
            self.message_user(request, f"{after}: {done}", messages.SUCCESS)

    @admin.action(description=gettext_lazy("Verify the selected hits"), permissions=["verify"])
    def verify_selected(self, request: HttpRequest, queryset: QuerySet[Hit]) -> None:
        self._each(request, queryset, "verify", lambda hit: hit_verify(hit, request.user), _("Verified"))

    @admin.action(description=gettext_lazy("Pay the selected hits"), permissions=["pay"])
    def pay_selected(self, request: HttpRequest, queryset: QuerySet[Hit]) -> None:
        self._each(request, queryset, "pay", lambda hit: hit_pay(hit, request.user), _("Paid"))

    @admin.action(description=gettext_lazy("Void the selected hits…"), permissions=["void"])
    def void_selected(self, request: HttpRequest, queryset: QuerySet[Hit]) -> HttpResponse | None:
        form = VoidForm(request.POST if "confirm" in request.POST else None)
        if form.is_valid():
            reason = form.cleaned_data["reason"]
            self._each(
                request,
                queryset,
                "void",
                # A table prize is voided everywhere (its seats and rounds too), as a round's void does.
                lambda hit: providers.hit_voiders.get(hit.kind, hit_void)(hit, request.user, reason),
                _("Voided: %(reason)s") % {"reason": reason},
            )
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": _("Void hits"),
            "opts": self.model._meta,
            "hits": queryset,
            "form": form,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
            "selected": [str(pk) for pk in queryset.values_list("pk", flat=True)],
        }
        return TemplateResponse(request, "admin/jackpots/hit/void.html", context)


@admin.register(HitRefusal)
class HitRefusalAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    """Jackpot reports the engine refused (no eligible triggering game, or a machine that could not win the
    level): for auditors and floor managers; the floor also gets a ``jackpot_refused`` machine alert."""

    list_display = ["at", "machine", "level", "code", "event_id", "game_event_id", "batch"]
    list_filter = ["code", "level__progressive"]
    list_select_related = ["machine", "level__progressive"]
    search_fields = ["machine__asset_number", "level__name", "level__progressive__name"]
    date_hierarchy = "at"
    fields = ["at", "machine", "level", "code", "detail", "event_id", "game_event_id", "batch"]
    readonly_fields = fields
