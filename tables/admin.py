"""The floor managers' admin of the table games: tables and their keys, pay tables
(changed only through the staging service, with a reason), rounds (read-only)."""

from __future__ import annotations

from decimal import Decimal

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from common.admin_changelist import BoundedDateHierarchyMixin
from common.admin_keys import keys_issue_response
from jackpots.admin.common import SEE_WINNER_IDENTITY, ReadOnlyAdmin
from jackpots.services.errors import EngineError
from jackpots.winner import WINNER_FIELDS
from slots.admin import ActiveKeyFilter, CredentialAdmin
from tables.models import (
    HitTablePayment,
    PayLine,
    PayTable,
    PayTableChange,
    PrizePart,
    Table,
    TableKey,
    TableRound,
    TableSeat,
)
from tables.rules import Hand
from tables.services import table_key_issue
from tables.services.paytables import pay_table_change


class ReadOnlyInline(ReadOnlyAdmin, admin.TabularInline):
    extra = 0


class TableKeyInline(ReadOnlyInline):
    model = TableKey
    fields = ("prefix", "created_at", "created_by", "last_used_at", "revoked_at")
    readonly_fields = fields


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("code", "venue", "game", "progressive", "jackpot_bet_cents", "active")
    list_filter = ("venue", "game", "active")
    search_fields = ("code",)
    inlines = [TableKeyInline]
    actions = ("issue_table_key",)

    @admin.action(description=_("Issue a new key for the selected tables"), permissions=["issue_key"])
    def issue_table_key(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse:
        return keys_issue_response(
            request, self, queryset, lambda table: table_key_issue(table, created_by=request.user)[1]
        )

    def has_issue_key_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tables.add_tablekey")


@admin.register(TableKey)
class TableKeyAdmin(CredentialAdmin):
    """Table keys are issued from the tables' list and revoked here, like machine and gateway keys."""

    list_display = ("prefix", "table", "created_at", "created_by", "last_used_at", "revoked_at", "active")
    list_filter = (ActiveKeyFilter, "table__venue")
    search_fields = ("prefix", "table__code")
    list_select_related = ("table", "created_by")


class PayLineInline(ReadOnlyInline):
    model = PayLine
    fields = ("hand", "kind", "percent", "fixed_cents")
    readonly_fields = fields


class PayTableChangeInline(ReadOnlyInline):
    model = PayTableChange
    fields = ("at", "user", "state", "reason", "old", "new", "applied_at", "applied_cycle")
    readonly_fields = fields


class PayTableChangeForm(forms.Form):
    """One row per hand: leave the kind empty for no line. Fixed amounts in the progressive's currency."""

    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={"rows": 2}))

    def __init__(self, *args, lines: dict[str, PayLine], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        kinds = [("", "—"), *PayLine.Kind.choices]
        for hand, label in Hand.choices:
            line = lines.get(hand)
            value = None
            if line is not None:
                value = line.percent if line.kind == PayLine.Kind.PERCENT else Decimal(line.fixed_cents) / 100
            self.fields[f"kind_{hand}"] = forms.ChoiceField(
                label=label, choices=kinds, required=False, initial=line.kind if line else ""
            )
            self.fields[f"value_{hand}"] = forms.DecimalField(
                label=_("percent or amount"), required=False, decimal_places=4, initial=value
            )

    def hand_rows(self) -> list[tuple]:
        return [(label, self[f"kind_{hand}"], self[f"value_{hand}"]) for hand, label in Hand.choices]

    def lines(self) -> list[dict]:
        chosen = []
        for hand in Hand.values:
            kind = self.cleaned_data.get(f"kind_{hand}")
            value = self.cleaned_data.get(f"value_{hand}")
            if not kind:
                continue
            if value is None:
                raise EngineError(
                    "bad_pay_line", gettext("%(hand)s: a value is needed.") % {"hand": Hand(hand).label}
                )
            if kind == PayLine.Kind.PERCENT:
                chosen.append({"hand": hand, "kind": kind, "percent": str(value)})
            else:
                cents = value * 100
                if cents != cents.to_integral_value():
                    raise EngineError(
                        "bad_pay_line",
                        gettext("%(hand)s: an amount in whole cents.") % {"hand": Hand(hand).label},
                    )
                chosen.append({"hand": hand, "kind": kind, "fixed_cents": int(cents)})
        return chosen


@admin.register(PayTable)
class PayTableAdmin(admin.ModelAdmin):
    list_display = ("progressive", "game", "level", "share_window_seconds")
    readonly_fields = ("progressive", "level", "game")
    fields = ("progressive", "level", "game", "share_window_seconds")
    inlines = [PayLineInline, PayTableChangeInline]
    change_form_template = "admin/tables/paytable/change_form.html"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def get_urls(self):
        stage = self.admin_site.admin_view(self.stage_view)
        return [path("<int:pk>/stage/", stage, name="tables_paytable_stage"), *super().get_urls()]

    def stage_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        if not request.user.has_perm("tables.stage_paytable"):
            raise PermissionDenied
        pay_table = get_object_or_404(PayTable, pk=pk)
        lines = {line.hand: line for line in pay_table.lines.all()}
        form = PayTableChangeForm(request.POST or None, lines=lines)
        if request.method == "POST" and form.is_valid():
            try:
                change = pay_table_change(pay_table, request.user, form.lines(), form.cleaned_data["reason"])
            except EngineError as error:
                form.add_error(None, error.message)
            else:
                if change.state == PayTableChange.State.APPLIED:
                    self.message_user(request, _("The level is suspended: the new pay table applies now."))
                else:
                    self.message_user(
                        request,
                        _("Staged: the new pay table applies after the level's next win."),
                        messages.INFO,
                    )
                return HttpResponseRedirect(reverse("admin:tables_paytable_change", args=[pk]))
        context = {
            **self.admin_site.each_context(request),
            "title": _("Change the pay table of %(name)s") % {"name": pay_table.progressive},
            "form": form,
            "opts": self.model._meta,
            "original": pay_table,
        }
        return TemplateResponse(request, "admin/tables/paytable/stage.html", context)


class TableSeatInline(ReadOnlyInline):
    model = TableSeat
    fields = (
        "seat",
        "cards",
        "changed_card",
        "hand",
        "jackpot_bet_cents",
        "bet_pool_cents",
        "contribution_mc",
        "share_cents",
        "fixed_cents",
        "fixed_hit",
        "award_cents",
    )
    readonly_fields = fields


@admin.register(TableRound)
class TableRoundAdmin(BoundedDateHierarchyMixin, ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("round_id", "table", "at", "state", "bets_cents", "currency", "rate")
    list_filter = ("state", "table")
    search_fields = ("round_id",)
    date_hierarchy = "at"
    inlines = [TableSeatInline]

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        return [f.name for f in self.model._meta.fields]


@admin.register(PrizePart)
class PrizePartAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    """Each winner's part of a shared prize and who paid it; paid and voided on the hits desk. The winner's
    identification: auditors only."""

    list_display = (
        "id",
        "hit_number",
        "seat",
        "amount_cents",
        "currency",
        "state",
        "paid_by",
        "paid_by_table",
    )
    list_filter = ("state", "seat__round__table")
    search_fields = ("share__hit__ref", "seat__round__round_id")
    list_select_related = ("share__hit", "seat__round", "paid_by", "paid_by_table")
    fields = (
        "share",
        "seat",
        "amount_cents",
        "currency",
        "state",
        "verified_by",
        "verified_at",
        "second_verified_by",
        "second_verified_at",
        "paid_by",
        "paid_by_table",
        "paid_by_key",
        "paid_at",
        "void_requested_by",
        "void_requested_at",
        "void_reason",
    )

    @admin.display(description=_("hit number"), ordering="share__hit__ref")
    def hit_number(self, part: PrizePart) -> str:
        return part.share.hit.ref or ""

    def get_fields(self, request: HttpRequest, obj: PrizePart | None = None) -> list[str]:
        winner = list(WINNER_FIELDS) if request.user.has_perm(SEE_WINNER_IDENTITY) else []
        return [*self.fields, *winner]

    def get_readonly_fields(self, request: HttpRequest, obj: PrizePart | None = None) -> list[str]:
        return self.get_fields(request, obj)


@admin.register(HitTablePayment)
class HitTablePaymentAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    """The hits a table paid (under the venue's two-person threshold) and the key that posted the round."""

    list_display = ("hit", "table", "key")
    list_filter = ("table",)
    search_fields = ("hit__ref", "table__code")
    list_select_related = ("hit", "table", "key__table")
    fields = ("hit", "table", "key")
    readonly_fields = fields
