"""Maker-checker in the admin, read-only: the change proposals with both people, and the register of retired
liabilities. Proposals are decided in the workspace's approval queue."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy

from jackpots.admin.common import ReadOnlyAdmin, eur_mc
from jackpots.models import ChangeProposal, RetiredLiability


@admin.register(ChangeProposal)
class ChangeProposalAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = [
        "id",
        "kind",
        "state",
        "level",
        "progressive",
        "amount",
        "proposed_by",
        "decided_by",
        "proposed_at",
    ]
    list_filter = ["kind", "state"]
    list_select_related = ["level__progressive", "progressive", "proposed_by", "decided_by"]
    fields = [
        "kind",
        "state",
        "level",
        "progressive",
        "target_level",
        "params",
        "amount",
        "reason",
        "proposed_by",
        "proposed_at",
        "decided_by",
        "decided_at",
        "decision_reason",
        "level_change",
    ]
    readonly_fields = fields

    @admin.display(description=gettext_lazy("amount (EUR)"))
    def amount(self, proposal: ChangeProposal) -> str:
        return eur_mc(proposal.amount_mc)


@admin.register(RetiredLiability)
class RetiredLiabilityAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ["level", "amount", "at", "proposed_by", "approved_by"]
    list_select_related = ["level__progressive", "proposal__proposed_by", "proposal__decided_by"]
    fields = ["progressive", "level", "amount", "at", "proposal", "proposed_by", "approved_by"]
    readonly_fields = fields

    @admin.display(description=gettext_lazy("liability (EUR)"))
    def amount(self, row: RetiredLiability) -> str:
        return eur_mc(row.amount_mc)

    @admin.display(description=gettext_lazy("proposed by"))
    def proposed_by(self, row: RetiredLiability):
        return row.proposal.proposed_by

    @admin.display(description=gettext_lazy("approved by"))
    def approved_by(self, row: RetiredLiability):
        return row.proposal.decided_by
