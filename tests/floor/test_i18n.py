"""The admin speaks the staff member's language: Italian for Italian-speaking staff."""

from __future__ import annotations

import gettext
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from floor.models import StaffProfile
from floor.roles import FLOOR_MANAGER
from tests.floor.conftest import staff_member

pytestmark = pytest.mark.django_db


def _index(client: Client, user, **headers):
    client.force_login(user)
    return client.get("/admin/", **headers)


@pytest.mark.parametrize(
    ("language", "browser", "present", "absent"),
    [
        ("it", "en", ["Sale da gioco", "Sedi", "Chiavi delle macchine"], "Casino floor"),
        ("en", "it", ["Casino floor", "Venues", "Machine keys"], "Sale da gioco"),
    ],
)
def test_staff_get_the_admin_in_their_profiles_language(
    client: Client, language: str, browser: str, present: list[str], absent: str
) -> None:
    user = staff_member(f"staff-{language}", FLOOR_MANAGER)
    StaffProfile.objects.create(user=user, language=language)
    response = _index(client, user, HTTP_ACCEPT_LANGUAGE=browser)

    page = response.content.decode()
    assert response["Content-Language"] == language
    assert [text for text in present if text in page] == present
    assert absent not in page


def test_a_language_chosen_in_the_session_wins_over_the_profile(client: Client) -> None:
    user = staff_member("marco", FLOOR_MANAGER)
    StaffProfile.objects.create(user=user, language="it")
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    response = _index(client, user)

    assert response["Content-Language"] == "en"
    assert "Casino floor" in response.content.decode()


def test_new_profiles_default_to_italian() -> None:
    user = staff_member("anna", None)
    assert StaffProfile.objects.create(user=user).language == "it"


def test_the_compiled_catalogue_is_committed_and_matches() -> None:
    mo = Path(settings.BASE_DIR) / "locale" / "it" / "LC_MESSAGES" / "django.mo"
    with mo.open("rb") as handle:
        catalogue = gettext.GNUTranslations(handle)
    assert catalogue.gettext("slot machine") == "slot machine"
    assert catalogue.gettext("venues") == "sedi"
    assert catalogue.gettext("Revoke the selected keys") == "Revoca le chiavi selezionate"
    assert (
        catalogue.ngettext("%(count)d key revoked.", "%(count)d keys revoked.", 2)
        == "%(count)d chiavi revocate."
    )
