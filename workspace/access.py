"""Who may open a workspace page: logged-in staff (anonymous visitors go to the login page, other people
are refused), holding the page's permission when it names one."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.urls import reverse


def workspace_page(permission: str | None = None) -> Callable:
    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def checked(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            user = request.user
            if not user.is_authenticated:
                return redirect_to_login(request.get_full_path(), reverse("admin:login"))
            if not (user.is_active and user.is_staff):
                raise PermissionDenied
            if permission and not user.has_perm(permission):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return checked

    return decorate
