"""The floor managers' admin of the machines and their keys."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from floor.admin_changelist import BoundedDateHierarchyMixin
from floor.admin_keys import keys_issue_response
from floor.services import credentials_revoke, machine_key_issue
from slots.models import GatewayKey, MachineKey, SlotMachine


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
    list_filter = ("room__venue", "room", "bank", "status", "manufacturer")
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
        revoked = credentials_revoke(queryset)
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
