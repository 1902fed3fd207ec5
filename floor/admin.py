"""The floor managers' admin: venues, rooms, banks, signage screens and staff languages."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from common.admin_keys import keys_issue_response
from common.credentials import screen_token_issue
from floor.models import Bank, Room, SignageScreen, SignificantEvent, StaffProfile, Venue


class RoomInline(admin.TabularInline):
    model = Room
    extra = 0
    fields = ("number", "name", "grid_columns", "grid_rows")
    show_change_link = True


@admin.register(Venue)
class VenueAdmin(admin.ModelAdmin):
    """Extended by slots.admin with the gateway key action (gateway keys are a slots model)."""

    list_display = ("code", "name", "address", "time_zone", "currency", "handpay_threshold_cents")
    search_fields = ("code", "name")
    inlines = (RoomInline,)


class MachineCountMixin:
    """Adds a sortable machine count to the list."""

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        # Meta.ordering is dropped from GROUP BY queries: restate it so pages are stable.
        queryset = super().get_queryset(request).annotate(machine_total=Count("machines"))
        return queryset.order_by(*self.model._meta.ordering)

    @admin.display(description=_("machines"), ordering="machine_total")
    def machine_count(self, obj: Room | Bank) -> int:
        return obj.machine_total


@admin.register(Room)
class RoomAdmin(MachineCountMixin, admin.ModelAdmin):
    list_display = ("__str__", "venue", "number", "name", "machine_count", "grid_columns", "grid_rows")
    list_filter = ("venue",)
    search_fields = ("name", "venue__code", "venue__name")
    list_select_related = ("venue",)


@admin.register(Bank)
class BankAdmin(MachineCountMixin, admin.ModelAdmin):
    list_display = ("code", "name", "room", "machine_count")
    list_filter = ("room__venue", "room")
    search_fields = ("code", "name", "room__name", "room__venue__code")
    list_select_related = ("room__venue",)
    autocomplete_fields = ("room",)


@admin.register(SignageScreen)
class SignageScreenAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "venue", "room", "token_prefix", "token_issued_at", "token_last_used_at")
    list_filter = ("venue", "room")
    search_fields = ("slug", "name")
    list_select_related = ("venue", "room__venue")
    filter_horizontal = ("progressives",)
    readonly_fields = ("token_prefix", "token_issued_at", "token_last_used_at")
    actions = ("issue_token",)

    @admin.action(description=_("Issue a new token (the old one stops working)"), permissions=["issue_token"])
    def issue_token(self, request: HttpRequest, queryset: QuerySet[SignageScreen]):
        return keys_issue_response(
            request,
            self,
            queryset,
            lambda screen: screen_token_issue(screen, by=request.user),
            label=lambda screen: screen.slug,
        )

    def has_issue_token_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("floor.change_signagescreen")

    def save_model(self, request: HttpRequest, obj: SignageScreen, form, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if not change:
            messages.info(request, _("Use the action “Issue a new token” to give this screen its token."))


class StaffProfileInline(admin.StackedInline):
    model = StaffProfile
    can_delete = False
    extra = 1
    max_num = 1
    verbose_name_plural = _("language of the admin")


User = get_user_model()
if admin.site.is_registered(User):
    admin.site.unregister(User)


@admin.register(User)
class StaffUserAdmin(UserAdmin):
    """Django's user admin with the staff member's language."""

    inlines = (*UserAdmin.inlines, StaffProfileInline)


@admin.register(SignificantEvent)
class SignificantEventAdmin(admin.ModelAdmin):
    """The register is read here, never written: no add, change or delete, no actions (the rows are
    append-only, and PostgreSQL's trigger refuses an UPDATE or DELETE anyway)."""

    list_display = ("at", "kind", "venue", "subject", "user", "detail", "reference")
    list_filter = ("kind", "venue")
    search_fields = ("subject", "detail", "reference")
    list_select_related = ("venue", "user")
    actions = None

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
