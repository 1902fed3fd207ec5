"""Staff see the admin in their own language: Italian by default for Italian-speaking staff."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse
from django.utils import translation

from floor.models import StaffProfile


class StaffLanguageMiddleware:
    """Activates the language saved on the staff member's profile, unless they chose one this session.

    Sync and async capable: under ASGI a sync-only middleware makes Django hop from the event loop to a
    thread and back for every request, the machines' event posts included.
    """

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse | Awaitable[HttpResponse]]) -> None:
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
