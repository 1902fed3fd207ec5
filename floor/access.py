"""Who may open the floor managers' pages: staff, logged in through the admin, holding the permission."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse

VIEW_REPORTS = "floor.view_reports"
VIEW_FLOOR_MAP = "floor.view_floor_map"
IMPORT_INVENTORY = "floor.import_inventory"


def staff_page(permission: str) -> Callable:
    """Admin login for anonymous visitors, 403 for staff without the permission."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def checked(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if not request.user.has_perm(permission):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return admin.site.admin_view(checked)

    return decorate
