"""Progressives and their levels: meters (rule 2), the last 25 wins, parameter changes staged through the
engine with a reason and their full history (rule 4). Mystery triggers show to auditors only (rule 9)."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from common.days import business_date_of
from floor.access import VIEW_REPORTS
from jackpots.admin.common import (
    CHANGE_LEVEL_PARAMETERS,
    CHANGE_SAS_MAP,
    SEE_MYSTERY_TRIGGER,
    ReadOnlyAdmin,
    audit,
    eur_mc,
)
from jackpots.forms import LevelParametersForm
from jackpots.models import ChangeProposal, Level, LevelChange, Progressive
from jackpots.selectors import level_wins_recent
from jackpots.services import EngineError, change_propose

LAST_WINS = 25  # NY 5320.8(b): at least the last 25 wins per level


class LevelMeters:
    """The level's money meters as euro columns (rule 2), shared by the level page and the inline."""

    @admin.display(description=gettext_lazy("amount (EUR)"), ordering="current_mc")
    def amount(self, level: Level) -> str:
        return eur_mc(level.current_mc)

    @admin.display(description=gettext_lazy("reserve (EUR)"), ordering="reserve_mc")
    def reserve(self, level: Level) -> str:
        return eur_mc(level.reserve_mc)

    @admin.display(description=gettext_lazy("overflow (EUR)"), ordering="overflow_mc")
    def overflow(self, level: Level) -> str:
        return eur_mc(level.overflow_mc)


def _sas_editor(request: HttpRequest) -> bool:
    # The SAS map is the floor's wiring: floor managers edit it without any right on the money
    # (jackpots.change_progressive / change_level stay ungranted; parameters go through the engine).
    return request.user.has_perm(CHANGE_SAS_MAP)


class LevelInline(LevelMeters, ReadOnlyAdmin, admin.TabularInline):
    """Only the SAS level is edited here (the gateway's map); everything else moves through services."""

    model = Level
    extra = 0
    can_delete = False
    show_change_link = True
    fields = ["position", "name", "amount", "reserve", "overflow", "hits", "state", "sas_level"]
    readonly_fields = fields[:-1]

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return _sas_editor(request)


@admin.register(Progressive)
class ProgressiveAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    """Read-only but for the SAS group and its levels' SAS numbers (gateway/README.md "Server route")."""

    list_display = ["name", "kind", "currency", "sas_group", "created_at"]
    list_filter = ["kind", "currency"]
    search_fields = ["name"]
    inlines = [LevelInline]
    readonly_fields = ["name", "kind", "currency", "created_at"]
    fields = [*readonly_fields, "sas_group"]

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return _sas_editor(request)

    def save_model(self, request: HttpRequest, obj: Progressive, form, change: bool) -> None:
        obj.save(update_fields=["sas_group"])

    def save_formset(self, request: HttpRequest, form, formset, change: bool) -> None:
        # Only the SAS level, by an update: a whole-row save would write back meters the engine has
        # moved since the page was read.
        formset.new_objects, formset.deleted_objects, formset.changed_objects = [], [], []
        for level_form in formset.forms:
            if level_form.has_changed():
                level = level_form.instance
                Level.objects.filter(pk=level.pk).update(sas_level=level.sas_level)
                formset.changed_objects.append((level, level_form.changed_data))  # for the change log


def _history_url(level: Level) -> str:
    """The level history report over the last 30 business days."""
    today = business_date_of(timezone.now(), settings.TIME_ZONE)
    query = urlencode({"level": level.pk, "first": today - timedelta(days=29), "last": today})
    return f"{reverse('workspace:report-level-history')}?{query}"


# The meters a level keeps (NJ 13:69E-1.39A(b)), in the list and on the page.
METER_COLUMNS = ["amount", "reserve", "overflow", "wagered", "hits", "total_won", "cycle"]


@admin.register(Level)
# Parameters change only through the engine (staged until the next reset), never by a plain save.
class LevelAdmin(LevelMeters, ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ["__str__", "position", *METER_COLUMNS, "state", "staged"]
    list_filter = ["progressive__kind", "progressive__currency", "state", "mystery"]
    list_select_related = ["progressive"]
    search_fields = ["name", "progressive__name"]
    change_form_template = "admin/jackpots/level/change_form.html"
    base_fields = [
        "progressive",
        "name",
        "position",
        *METER_COLUMNS,
        "seq",
        "state",
        "reset",
        "rate",
        "reserve_rate",
        "limit",
        "min_wager_cents",
        "max_bet_only",
        "mystery",
    ]

    @admin.display(description=gettext_lazy("wagered (EUR)"), ordering="wagered_cents")
    def wagered(self, level: Level) -> str:
        return eur_mc(level.wagered_cents * 1000)

    @admin.display(description=gettext_lazy("total won (EUR)"), ordering="total_won_cents")
    def total_won(self, level: Level) -> str:
        return eur_mc(level.total_won_cents * 1000)

    @admin.display(description=gettext_lazy("reset (EUR)"))
    def reset(self, level: Level) -> str:
        return eur_mc(level.reset_mc)

    @admin.display(description=gettext_lazy("limit (EUR)"))
    def limit(self, level: Level) -> str:
        return eur_mc(level.limit_mc)

    @admin.display(description=gettext_lazy("mystery trigger (EUR)"))
    def trigger(self, level: Level) -> str:
        return eur_mc(level.trigger_mc)

    @admin.display(description=gettext_lazy("staged changes"))
    def staged(self, level: Level) -> int:
        return level.changes.filter(state=LevelChange.State.STAGED).count()

    def get_fields(self, request: HttpRequest, obj: Level | None = None) -> list[str]:
        extra = ["trigger"] if request.user.has_perm(SEE_MYSTERY_TRIGGER) else []
        return [*self.base_fields, *extra]

    def get_readonly_fields(self, request: HttpRequest, obj: Level | None = None) -> list[str]:
        return self.get_fields(request, obj)

    def get_list_display(self, request: HttpRequest) -> list[str]:
        extra = ["trigger"] if request.user.has_perm(SEE_MYSTERY_TRIGGER) else []
        return [*self.list_display, *extra]

    def get_urls(self) -> list:
        return [
            path(
                "<int:level_id>/parameters/",
                self.admin_site.admin_view(self.parameters_view),
                name="jackpots_level_parameters",
            ),
            *super().get_urls(),
        ]

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "", extra_context=None):
        level = self.get_object(request, object_id)
        extra = dict(extra_context or {})
        if level is not None:
            extra.update(
                wins=level_wins_recent(level, LAST_WINS),
                changes=LevelChange.objects.filter(level=level).select_related("user").order_by("-id"),
                can_change_parameters=request.user.has_perm(CHANGE_LEVEL_PARAMETERS),
                history_url=_history_url(level) if request.user.has_perm(VIEW_REPORTS) else None,
            )
        return super().change_view(request, object_id, form_url, extra)

    def parameters_view(self, request: HttpRequest, level_id: int) -> HttpResponse:
        if not request.user.has_perm(CHANGE_LEVEL_PARAMETERS):
            raise PermissionDenied
        level = get_object_or_404(Level.objects.select_related("progressive"), pk=level_id)
        form = LevelParametersForm(request.POST or None, initial=LevelParametersForm.initial_for(level))
        if request.method == "POST" and form.is_valid():
            changes = form.changes_for(level)
            if not changes:
                form.add_error(None, _("Nothing differs from the current parameters."))
            else:
                try:
                    proposal = change_propose(
                        kind=ChangeProposal.Kind.PARAMETERS,
                        user=request.user,
                        reason=form.cleaned_data["reason"],
                        level=level,
                        params=changes,
                    )
                except EngineError as error:
                    form.add_error(None, f"{error.message} ({error.code})")
                else:
                    audit(request, level, _("Parameters proposed: %(new)s") % {"new": proposal.params})
                    self.message_user(
                        request,
                        _(
                            "The change is proposed: another person approves or rejects it in the "
                            "workspace's approval queue. Until then nothing changes."
                        ),
                        messages.SUCCESS,
                    )
                    return HttpResponseRedirect(reverse("admin:jackpots_level_change", args=[level.pk]))
        context = {
            **self.admin_site.each_context(request),
            "title": _("Change the parameters of %(level)s") % {"level": level},
            "opts": self.model._meta,
            "original": level,
            "form": form,
        }
        status = 400 if request.method == "POST" else 200
        return TemplateResponse(request, "admin/jackpots/level/parameters.html", context, status=status)
