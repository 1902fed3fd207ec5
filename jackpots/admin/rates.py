"""The exchange rates a progressive's pool is converted at (``jackpots.currency``): entered by the floor
managers, appended and never edited, since a round or a sign may have used one."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from jackpots.models import ExchangeRate


@admin.register(ExchangeRate)
class ExchangeRateAdmin(admin.ModelAdmin):
    """Rates are appended: a new rate from a date, never an edit of one a round may have used."""

    list_display = ("base", "quote", "rate", "valid_from", "created_by", "source")
    list_filter = ("base", "quote")
    fields = ("base", "quote", "rate", "valid_from", "source")

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: ExchangeRate, form, change: bool) -> None:
        obj.created_by = request.user
        super().save_model(request, obj, form, change)
