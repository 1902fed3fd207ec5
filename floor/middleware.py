"""Staff see the admin in their own language: Italian by default for Italian-speaking staff."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import translation


class StaffLanguageMiddleware:
    """Activates the language saved on the staff member's profile, unless they chose one this session."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        chosen = request.COOKIES.get("django_language")
        if user is not None and user.is_authenticated and not chosen:
            language = getattr(getattr(user, "staff_profile", None), "language", None)
            if language:
                translation.activate(language)
                request.LANGUAGE_CODE = language
        return self.get_response(request)
