"""The site's wide-area pages in the admin: its memberships (the site key is written, never shown back),
and, read-only, its outbox, the pool as heard and the awards the link sent."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db import models
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from common.admin import ReadOnlyAdmin
from linksite.models import LinkMembership, LinkPoolMirror, OutboxEntry, SiteAward


def _formfield(db_field: models.Field[Any, Any], **kwargs: Any) -> forms.Field | None:
    """A link's URL without a scheme is taken as https (Django 6's default, said now)."""
    if isinstance(db_field, models.URLField):
        kwargs["assume_scheme"] = "https"
    return db_field.formfield(**kwargs)


class MembershipForm(forms.ModelForm):  # type: ignore[type-arg]
    """The site key is typed in and kept; the page never sends it back (empty keeps the one stored)."""

    site_key = forms.CharField(
        label=_("site key"),
        required=False,
        max_length=200,
        widget=forms.PasswordInput(render_value=False),
        help_text=_("Issued on the link, shown there once. Leave empty to keep the key stored."),
    )

    class Meta:
        model = LinkMembership
        fields = ["progressive", "link_url", "pool_code", "site_key", "active"]
        formfield_callback = _formfield

    def clean_site_key(self) -> str:
        key: str = self.cleaned_data.get("site_key") or ""
        if key:
            return key.strip()
        if self.instance.pk is None:
            raise forms.ValidationError(_("A new membership needs the site key issued on the link."))
        return str(self.instance.site_key)


@admin.register(LinkMembership)
class LinkMembershipAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    form = MembershipForm
    list_display = ["pool_code", "link_url", "progressive", "active", "next_seq", "acked_seq", "last_sent_at",
                    "last_error"]  # fmt: skip
    list_filter = ["active"]
    readonly_fields = ["next_seq", "acked_seq", "last_sent_at", "last_error"]

    def formfield_for_dbfield(
        self, db_field: models.Field[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> forms.Field | None:
        if isinstance(db_field, models.URLField):
            kwargs["assume_scheme"] = "https"
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # its outbox is the record of what was owed; switch it off instead


@admin.register(OutboxEntry)
class OutboxEntryAdmin(ReadOnlyAdmin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["membership", "seq", "kind", "round_ref", "played_at", "state", "acked_at"]
    list_filter = ["kind", "membership", ("acked_at", admin.EmptyFieldListFilter)]
    list_select_related = ["membership"]
    search_fields = ["round_ref"]
    fields = (
        "membership",
        "seq",
        "kind",
        "round_ref",
        "played_at",
        "created_at",
        "acked_at",
        "state",
        "body",
    )
    readonly_fields = fields

    @admin.display(description=_("state"))
    def state(self, entry: OutboxEntry) -> str:
        if entry.acked_at is not None:
            return str(_("acknowledged"))
        minutes = int((timezone.now() - entry.created_at).total_seconds() // 60)
        return str(_("waiting for the link (%(minutes)d min)") % {"minutes": minutes})


@admin.register(LinkPoolMirror)
class LinkPoolMirrorAdmin(ReadOnlyAdmin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["membership", "amount_mc", "currency", "value_seq", "heard_at"]
    fields = ("membership", "amount_mc", "currency", "value_seq", "heard_at")
    readonly_fields = fields


@admin.register(SiteAward)
class SiteAwardAdmin(ReadOnlyAdmin, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["membership", "link_award_id", "recorded_at"]
    fields = ("membership", "link_award_id", "recorded_at", "body")
    readonly_fields = fields
