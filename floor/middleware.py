"""Middleware of the whole site: paths no route can name refused up front, and staff see the admin in their
own language (Italian by default for Italian-speaking staff)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import translation
from django.utils.decorators import sync_and_async_middleware

from floor.models import StaffProfile

Handler = Callable[[HttpRequest], HttpResponse | Awaitable[HttpResponse]]


@sync_and_async_middleware
def nul_path_refuse(get_response: Handler) -> Handler:
    """A path with a NUL character is a 404 before any view sees it (JSON on /api/ through
    common.api_errors). PostgreSQL text cannot hold NUL, so no code, asset number or id contains one, and
    a view that looked it up would fail with a database error (a 500) instead of not finding it.

    Sync and async capable, like every middleware here (see StaffLanguageMiddleware)."""

    if iscoroutinefunction(get_response):

        async def middleware_async(request: HttpRequest) -> HttpResponse:
            _nul_path_check(request)
            return await get_response(request)

        return middleware_async

    def middleware(request: HttpRequest) -> HttpResponse:
        _nul_path_check(request)
        return get_response(request)

    return middleware


def _nul_path_check(request: HttpRequest) -> None:
    if "\x00" in request.path:
        raise Http404("The path contains a NUL character.")


class StaffLanguageMiddleware:
    """Activates the language saved on the staff member's profile, unless they chose one this session.

    Sync and async capable: under ASGI a sync-only middleware makes Django hop from the event loop to a
    thread and back for every request, the machines' event posts included.
    """

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> HttpResponse | Awaitable[HttpResponse]:
        if iscoroutinefunction(self):
            return self._acall(request)
        if not request.COOKIES.get("django_language"):
            user = getattr(request, "user", None)
            if user is not None and user.is_authenticated:
                _activate(request, getattr(getattr(user, "staff_profile", None), "language", None))
        return self.get_response(request)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        if not request.COOKIES.get("django_language") and hasattr(request, "auser"):
            user: AbstractBaseUser | AnonymousUser = await request.auser()
            if user.is_authenticated:
                language = (
                    await StaffProfile.objects.filter(user_id=user.pk)
                    .values_list("language", flat=True)
                    .afirst()
                )
                _activate(request, language)
        return await self.get_response(request)


def _activate(request: HttpRequest, language: str | None) -> None:
    if language:
        translation.activate(language)
        request.LANGUAGE_CODE = language
