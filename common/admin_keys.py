"""The page that shows newly issued keys once. Shared by the machine, gateway and screen admins."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from django.contrib import admin
from django.db import models, transaction
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

M = TypeVar("M", bound=models.Model)


def keys_issued_response(
    request: HttpRequest, model_admin: admin.ModelAdmin[M], title: str, issued: list[tuple[str, str]]
) -> TemplateResponse:
    """Renders (label, key) pairs. Nothing is stored anywhere: leaving the page loses the keys, and the
    page must not be cached by the browser or a proxy."""
    context = {
        **model_admin.admin_site.each_context(request),
        "title": title,
        "issued": issued,
        "opts": model_admin.model._meta,
        "back_url": request.get_full_path(),
    }
    response = TemplateResponse(request, "admin/floor/keys_issued.html", context)
    response["Cache-Control"] = "no-store, private"
    response["Pragma"] = "no-cache"
    return response


def issued_title(count: int) -> str:
    return _("One new key") if count == 1 else _("%(count)d new keys") % {"count": count}


def keys_issue_response(
    request: HttpRequest,
    model_admin: admin.ModelAdmin[M],
    objects: Iterable[M],
    issue: Callable[[M], str],
    label: Callable[[M], str] = str,
) -> TemplateResponse:
    """Issues a key for each object (all or none: a key nobody saw must not stay valid) and shows them."""
    with transaction.atomic():
        issued = [(label(obj), issue(obj)) for obj in objects]
    return keys_issued_response(request, model_admin, issued_title(len(issued)), issued)
