"""The link's admin (docs/wide-area.md "Joining a link"): sites and their keys (issued from the sites'
list and shown once, revoked at once), linked pools and their members, and, read-only, every entry the
sites sent and every award with its parts; the reconciliation is a page of the pools' list."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from common.admin import ReadOnlyAdmin
from common.admin_keys import keys_issue_response
from linkcentral.books_display import SITE_COLUMNS, books_table
from linkcentral.models import (
    LinkAward,
    LinkAwardPart,
    LinkedPool,
    LinkEntry,
    LinkMember,
    LinkSite,
    LinkSiteKey,
)
from linkcentral.selectors import link_books
from linkcentral.services.keys import site_key_issue, site_keys_revoke
from slots.admin import ActiveKeyFilter, CredentialAdmin

MEMBER_PROGRESS = ("acked_seq", "through", "heard_at")


class ReadOnlyInline(ReadOnlyAdmin, admin.TabularInline):  # type: ignore[type-arg]
    extra = 0


class LinkSiteKeyInline(ReadOnlyInline):
    model = LinkSiteKey
    fields = ("prefix", "created_at", "created_by", "last_used_at", "revoked_at")
    readonly_fields = fields


@admin.register(LinkSite)
class LinkSiteAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("code", "name", "currency", "active")
    list_filter = ("active", "currency")
    search_fields = ("code", "name")
    inlines = [LinkSiteKeyInline]
    actions = ("issue_site_key", "revoke_site_keys")

    @admin.action(description=_("Issue a new key for the selected sites"), permissions=["issue_key"])
    def issue_site_key(self, request: HttpRequest, queryset: QuerySet[LinkSite]) -> HttpResponse:
        user = request.user if request.user.is_authenticated else None
        return keys_issue_response(
            request, self, queryset, lambda site: site_key_issue(site, created_by=user)[1]
        )

    @admin.action(description=_("Revoke every key of the selected sites"), permissions=["issue_key"])
    def revoke_site_keys(self, request: HttpRequest, queryset: QuerySet[LinkSite]) -> None:
        revoked = sum(site_keys_revoke(site, by=request.user) for site in queryset)
        messages.success(
            request,
            ngettext("%(count)d key revoked.", "%(count)d keys revoked.", revoked) % {"count": revoked},
        )

    def has_issue_key_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("linkcentral.add_linksitekey")


@admin.register(LinkSiteKey)
class LinkSiteKeyAdmin(CredentialAdmin):
    """Site keys are issued from the sites' list and revoked here, like every key of the product."""

    list_display = ("prefix", "site", "created_at", "created_by", "last_used_at", "revoked_at", "active")
    list_filter = (ActiveKeyFilter, "site")
    search_fields = ("prefix", "site__code")
    list_select_related = ("site", "created_by")


class LinkMemberInline(admin.TabularInline):  # type: ignore[type-arg]
    """A pool's sites: added and (de)activated here; how far each has come is the link's own record."""

    model = LinkMember
    extra = 0
    fields = ("site", "active", *MEMBER_PROGRESS)
    readonly_fields = MEMBER_PROGRESS

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a member's entries stay on record


@admin.register(LinkedPool)
class LinkedPoolAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("code", "level", "settle_seconds")
    search_fields = ("code",)
    list_select_related = ("level__progressive",)
    inlines = [LinkMemberInline]
    change_list_template = "admin/linkcentral/linkedpool/change_list.html"

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_urls(self) -> list[URLPattern]:
        books = self.admin_site.admin_view(self.books_view)
        return [path("reconciliation/", books, name="linkcentral_linkedpool_books"), *super().get_urls()]

    def books_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "title": _("Reconciliation of the link"),
            "opts": self.model._meta,
            "columns": SITE_COLUMNS,
            "tables": [books_table(pool) for pool in link_books()],
        }
        return TemplateResponse(request, "admin/linkcentral/linkedpool/books.html", context)


@admin.register(LinkMember)
class LinkMemberAdmin(ReadOnlyAdmin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("site", "pool", "active", *MEMBER_PROGRESS)
    list_filter = ("pool", "active")
    list_select_related = ("site", "pool")


@admin.register(LinkEntry)
class LinkEntryAdmin(ReadOnlyAdmin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = (
        "member", "seq", "kind", "round_ref", "played_at", "received_at", "currency", "rate",
        "wagered_cents", "wagered_pool_cents", "bets", "applied_at", "cycle",
    )  # fmt: skip
    list_filter = ("member__pool", "member__site", "kind")
    search_fields = ("round_ref",)
    list_select_related = ("member__site", "member__pool")
    readonly_fields = [field.name for field in LinkEntry._meta.fields]


class LinkAwardPartInline(ReadOnlyInline):
    model = LinkAwardPart
    fields = ("number", "entry", "seat", "amount_mc", "site_cents")
    readonly_fields = fields


@admin.register(LinkAward)
class LinkAwardAdmin(ReadOnlyAdmin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "pool", "played_at", "decided_at", "amount_mc", "cycle", "hit")
    list_filter = ("pool",)
    list_select_related = ("pool",)
    readonly_fields = ("pool", "played_at", "decided_at", "amount_mc", "cycle", "hit")
    inlines = [LinkAwardPartInline]
