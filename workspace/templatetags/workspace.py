"""The admin home's links to the floor managers' workspace, by permission."""

from __future__ import annotations

from django import template

from floor.access import IMPORT_INVENTORY, VIEW_FLOOR_MAP, VIEW_REPORTS
from floor.models import Venue

register = template.Library()


@register.inclusion_tag("workspace/_workspace_links.html", takes_context=True)
def workspace_links(context: template.Context) -> dict:
    user = context["request"].user
    can_map = user.has_perm(VIEW_FLOOR_MAP)
    return {
        "venues": list(Venue.objects.prefetch_related("rooms")) if can_map else [],
        "can_report": user.has_perm(VIEW_REPORTS),
        "can_import": user.has_perm(IMPORT_INVENTORY),
    }
