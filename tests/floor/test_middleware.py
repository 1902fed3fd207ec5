"""Every middleware runs in the event loop under ASGI, and the staff language is applied on both paths."""

from __future__ import annotations

import pytest
from asgiref.sync import iscoroutinefunction, sync_to_async
from django.conf import settings
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.test import AsyncClient
from django.utils import translation
from django.utils.module_loading import import_string

from floor.middleware import StaffLanguageMiddleware
from floor.models import StaffProfile
from floor.roles import FLOOR_MANAGER
from tests.staff_fixtures import staff_member


@pytest.mark.parametrize("path", settings.MIDDLEWARE)
def test_every_middleware_is_async_capable(path: str) -> None:
    # One sync-only middleware makes Django hop between the event loop and a thread for every request.
    assert getattr(import_string(path), "async_capable", False) is True


async def _view(request: HttpRequest) -> HttpResponse:
    return HttpResponse(translation.get_language())


def test_the_middleware_takes_the_async_path_under_an_async_handler() -> None:
    assert iscoroutinefunction(StaffLanguageMiddleware(_view)) is True
    assert iscoroutinefunction(StaffLanguageMiddleware(lambda request: HttpResponse())) is False


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("language", "browser"), [("it", "en"), ("en", "it")])
async def test_the_async_path_speaks_the_profiles_language(language: str, browser: str) -> None:
    user = await _staff_with_profile(f"async-{language}", language)
    client = AsyncClient()
    await client.aforce_login(user)
    response = await client.get("/admin/", headers={"accept-language": browser})

    assert response.status_code == 200
    assert response["Content-Language"] == language


@pytest.mark.django_db(transaction=True)
async def test_the_async_path_keeps_the_language_chosen_in_the_session() -> None:
    user = await _staff_with_profile("async-chosen", "it")
    client = AsyncClient()
    await client.aforce_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    response = await client.get("/admin/")

    assert response["Content-Language"] == "en"


async def _staff_with_profile(username: str, language: str) -> User:
    def create() -> User:
        user = staff_member(username, FLOOR_MANAGER)
        StaffProfile.objects.create(user=user, language=language)
        return user

    return await sync_to_async(create)()
