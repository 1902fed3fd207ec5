"""The floor managers' admin of the machines, their keys and the review of implausible meter deltas."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from common.admin import ReadOnlyAdmin, audit
from common.admin_changelist import BoundedDateHierarchyMixin
from common.admin_keys import keys_issue_response
from common.credentials import credentials_revoke
from floor.admin import VenueAdmin as FloorVenueAdmin
from floor.models import Venue
from slots.models import GatewayKey, MachineKey, MeterDelta, SlotMachine
from slots.services.keys import gateway_key_issue, machine_key_issue
from slots.services.meters import MeterReviewRefused, meter_delta_accept, meter_delta_correct


class ActiveKeyFilter(admin.SimpleListFilter):
    title = _("state")
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return (("active", _("Active")), ("revoked", _("Revoked")))

    def queryset(self, request, queryset):
        if self.value() == "active":
            return queryset.filter(revoked_at__isnull=True)
        if self.value() == "revoked":
            return queryset.filter(revoked_at__isnull=False)
        return queryset


class MachineKeyInline(admin.TabularInline):
    """The machine's keys, read-only: keys are issued and revoked with the list actions."""

    model = MachineKey
    extra = 0
    can_delete = False
    fields = ("prefix", "created_at", "created_by", "last_used_at", "revoked_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(SlotMachine)
class SlotMachineAdmin(admin.ModelAdmin):
    list_display = (
        "asset_number",
        "game_title",
        "manufacturer",
        "denomination_cents",
        "min_bet_cents",
        "max_bet_cents",
        "room",
        "bank",
        "status",
        "last_seen",
    )
    list_filter = ("room__venue", "room", "bank", "status", "manufacturer", "sas_line")
    search_fields = ("asset_number", "serial", "game_title")
    list_select_related = ("room__venue", "bank__room__venue")
    autocomplete_fields = ("room", "bank")
    list_per_page = 50
    inlines = (MachineKeyInline,)
    actions = ("issue_machine_key",)
    fieldsets = (
        (None, {"fields": ("asset_number", "serial", "manufacturer", "game_title", "stations")}),
        (_("Bets"), {"fields": ("denomination_cents", "min_bet_cents", "max_bet_cents", "meter_digits")}),
        (_("On the floor"), {"fields": ("room", "bank", "pos_x", "pos_y", "status")}),
        (_("SAS"), {"fields": ("sas_line", "sas_address", "sas_group", "sas_handpay_limit_cents")}),
        (
            _("Live condition"),
            {"fields": ("door_open", "tilted", "handpay_locked", "powered", "last_seen", "last_game_at")},
        ),
    )

    @admin.action(description=_("Issue a new key for the selected machines"), permissions=["issue_key"])
    def issue_machine_key(self, request: HttpRequest, queryset: QuerySet[SlotMachine]):
        return keys_issue_response(
            request, self, queryset, lambda machine: machine_key_issue(machine, created_by=request.user)[1]
        )

    def has_issue_key_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("slots.add_machinekey")


class CredentialAdmin(BoundedDateHierarchyMixin, admin.ModelAdmin):
    """Keys are issued from their machine's or venue's list (so the key can be shown once) and revoked
    here; they are never edited or deleted, so when each was used stays on record."""

    actions = ("revoke",)
    date_hierarchy = "created_at"

    @admin.display(description=_("active"), boolean=True)
    def active(self, credential) -> bool:
        return credential.is_active

    @admin.action(description=_("Revoke the selected keys"), permissions=["revoke"])
    def revoke(self, request: HttpRequest, queryset: QuerySet) -> None:
        revoked = credentials_revoke(queryset, by=request.user)
        messages.success(
            request,
            ngettext("%(count)d key revoked.", "%(count)d keys revoked.", revoked) % {"count": revoked},
        )

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        opts = self.model._meta
        return request.user.has_perm(f"{opts.app_label}.change_{opts.model_name}")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(MachineKey)
class MachineKeyAdmin(CredentialAdmin):
    list_display = ("prefix", "machine", "created_at", "created_by", "last_used_at", "revoked_at", "active")
    list_filter = (ActiveKeyFilter, "machine__room__venue")
    search_fields = ("prefix", "machine__asset_number")
    list_select_related = ("machine", "created_by")


@admin.register(GatewayKey)
class GatewayKeyAdmin(CredentialAdmin):
    list_display = ("prefix", "venue", "created_at", "created_by", "last_used_at", "revoked_at", "active")
    list_filter = (ActiveKeyFilter, "venue")
    search_fields = ("prefix", "venue__code")
    list_select_related = ("venue", "created_by")


class MeterCorrectionForm(forms.Form):
    delta = forms.IntegerField(
        label=_("corrected delta"), min_value=0, help_text=_("In the meter's unit (cents).")
    )
    note = forms.CharField(label=_("why"), widget=forms.Textarea(attrs={"rows": 3}))


@admin.register(MeterDelta)
class MeterDeltaAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    """The meters' increments. One a machine could not have played is flagged (review "pending") and
    stays out of the reports until a person accepts or corrects it here; each review records who and
    when, on the row and in the admin's log."""

    list_display = (
        "machine",
        "name",
        "at",
        "kind",
        "delta",
        "ceiling",
        "review",
        "reviewed_by",
        "reviewed_at",
    )
    list_filter = ("review", "name", "kind", "machine__room__venue")
    search_fields = ("machine__asset_number",)
    list_select_related = ("machine", "reviewed_by")
    date_hierarchy = "at"
    actions = ("accept_selected", "correct_selected")

    def has_review_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("slots.change_meterdelta")

    @admin.action(description=_("Accept the selected flagged deltas as reported"), permissions=["review"])
    def accept_selected(self, request: HttpRequest, queryset: QuerySet[MeterDelta]) -> None:
        for row in queryset.order_by("at", "id"):
            self._review(request, row, lambda r: meter_delta_accept(r.id, request.user), gettext("Accepted"))

    @admin.action(description=_("Correct the selected flagged delta…"), permissions=["review"])
    def correct_selected(self, request: HttpRequest, queryset: QuerySet[MeterDelta]) -> HttpResponse | None:
        if queryset.count() != 1:
            self.message_user(request, gettext("Correct one delta at a time."), messages.ERROR)
            return None
        row = queryset.get()
        form = MeterCorrectionForm(request.POST if "confirm" in request.POST else None)
        if form.is_valid():
            value, note = form.cleaned_data["delta"], form.cleaned_data["note"]
            done = gettext("Corrected to %(delta)s: %(note)s") % {"delta": value, "note": note}
            self._review(request, row, lambda r: meter_delta_correct(r.id, request.user, value, note), done)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Correct a meter delta"),
            "opts": self.model._meta,
            "row": row,
            "form": form,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/slots/meterdelta/correct.html", context)

    def _review(self, request: HttpRequest, row: MeterDelta, apply, done: str) -> None:
        try:
            reviewed = apply(row)
        except MeterReviewRefused as error:
            self.message_user(request, f"{row}: {error.message} ({error.code})", messages.ERROR)
            return
        audit(request, reviewed, done)
        self.message_user(request, f"{reviewed}: {done}", messages.SUCCESS)


# The venue's admin gains the gateway key action here: gateway keys are a slots model, and floor is below
# slots in the house, so floor's VenueAdmin cannot know them.
admin.site.unregister(Venue)


@admin.register(Venue)
class VenueAdmin(FloorVenueAdmin):
    actions = ("issue_gateway_key",)

    @admin.action(description=_("Issue a new gateway key"), permissions=["issue_key"])
    def issue_gateway_key(self, request: HttpRequest, queryset: QuerySet[Venue]):
        return keys_issue_response(
            request, self, queryset, lambda venue: gateway_key_issue(venue, created_by=request.user)[1]
        )

    def has_issue_key_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("slots.add_gatewaykey")
