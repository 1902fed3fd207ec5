"""The SAS gateways' award answers in the admin: read-only, as the engine's records are."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy

from common.money import cents_eur_grouped
from gatewaylink.models import SasAward
from jackpots.admin.common import ReadOnlyAdmin


@admin.register(SasAward)
class SasAwardAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    """What the venues' SAS gateways answered for the mystery awards they were sent: credited by the
    machine (with what it credited and the difference to the amount asked) or left to an attendant."""

    list_display = ["at", "hit", "machine", "status", "asked", "paid", "difference"]
    list_filter = ["status"]
    list_select_related = ["hit__level__progressive", "machine"]
    search_fields = ["machine__asset_number"]
    date_hierarchy = "at"
    fields = ["at", "hit", "machine", "status", "asked", "paid", "difference"]
    readonly_fields = fields

    @admin.display(description=gettext_lazy("asked (EUR)"), ordering="asked_cents")
    def asked(self, award: SasAward) -> str:
        return cents_eur_grouped(award.asked_cents)

    @admin.display(description=gettext_lazy("credited (EUR)"), ordering="paid_cents")
    def paid(self, award: SasAward) -> str:
        return cents_eur_grouped(award.paid_cents)

    @admin.display(description=gettext_lazy("difference (EUR)"), ordering="difference_cents")
    def difference(self, award: SasAward) -> str:
        return cents_eur_grouped(award.difference_cents)
