"""The level page suspends and resumes a level with a required reason (floor managers, who change level
parameters); the levels list and the admin show the state, which only the services change."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from floor.models import SignificantEvent
from jackpots.models import Level, LevelChange
from jackpots.services import level_suspend
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory
from tests.floor.staff import level_seeded
from workspace.reports.changes import change_lines

pytestmark = pytest.mark.django_db


@pytest.fixture
def grand(db) -> Level:
    progressive = ProgressiveFactory(name="Grease")
    ProgressiveMachineFactory(progressive=progressive, machine=SlotMachineFactory(asset_number="NOG-0005"))
    return level_seeded(progressive=progressive, name="Grand", reset_mc=100_000_000)


def _client(user, language: str = "it") -> Client:
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = language
    return client


def _url(level: Level) -> str:
    return f"/progressives/levels/{level.pk}/"


def test_a_manager_suspends_then_resumes_a_level_with_a_reason(grand, manager):
    client = _client(manager)
    page = client.get(_url(grand)).content.decode()
    assert 'id="level-state-form"' in page and "Sospendi il livello" in page
    response = client.post(_url(grand), {"action": "suspend", "reason": "Guasto del controller"})
    assert (response.status_code, response["Location"]) == (302, _url(grand))
    grand.refresh_from_db()
    assert grand.state == "suspended"
    page = client.get(_url(grand)).content.decode()
    assert "Grease Grand è sospeso." in page
    assert '<span class="state flag" id="level-state-value">Sospeso</span>' in page
    assert "Riattiva il livello" in page
    resumed = client.post(_url(grand), {"action": "resume", "reason": "Controller sostituito"})
    assert resumed.status_code == 302
    grand.refresh_from_db()
    assert grand.state == "active"
    assert list(LevelChange.objects.filter(level=grand).values_list("new", "reason", "user")) == [
        ({"state": "suspended"}, "Guasto del controller", manager.pk),
        ({"state": "active"}, "Controller sostituito", manager.pk),
    ]
    assert list(SignificantEvent.objects.order_by("id").values_list("kind", "detail")) == [
        ("level_suspended", "Guasto del controller"),
        ("level_resumed", "Controller sostituito"),
    ]


@pytest.mark.parametrize("reason", ["", "   "])
def test_no_reason_no_change(grand, manager, reason):
    response = _client(manager).post(_url(grand), {"action": "suspend", "reason": reason})
    assert response.status_code == 400
    assert '<strong class="error">Campo obbligatorio.</strong>' in response.content.decode()
    grand.refresh_from_db()
    assert (grand.state, LevelChange.objects.count(), SignificantEvent.objects.count()) == ("active", 0, 0)


def test_a_page_left_open_is_refused_not_turned_around(grand, manager):
    client = _client(manager)
    level_suspend(grand, manager, "fault")
    response = client.post(_url(grand), {"action": "suspend", "reason": "fault again"})
    assert response.status_code == 409
    page = response.content.decode()
    assert "Grease Grand è già sospeso." in page and "Riattiva il livello" in page
    assert LevelChange.objects.count() == 1


def test_a_tampered_action_is_refused(grand, manager):
    response = _client(manager).post(_url(grand), {"action": "retire", "reason": "why"})
    assert response.status_code == 400
    grand.refresh_from_db()
    assert grand.state == "active"


def test_a_retired_level_offers_no_form_and_refuses_a_post(grand, manager):
    Level.objects.filter(pk=grand.pk).update(state="retired")
    client = _client(manager)
    page = client.get(_url(grand)).content.decode()
    assert 'id="level-state-form"' not in page and "Ritirato" in page
    response = client.post(_url(grand), {"action": "resume", "reason": "back"})
    assert response.status_code == 409
    assert "Grease Grand è ritirato: non riceve più nulla." in response.content.decode()


def test_an_attendant_sees_the_state_but_may_not_change_it(grand, attendant):
    client = _client(attendant)
    page = client.get(_url(grand)).content.decode()
    assert 'id="level-state-value">Attivo</span>' in page and 'id="level-state-form"' not in page
    assert client.post(_url(grand), {"action": "suspend", "reason": "no"}).status_code == 403
    grand.refresh_from_db()
    assert grand.state == "active"


def test_the_levels_list_flags_a_suspended_level(grand, manager):
    level_suspend(grand, manager, "fault")
    page = _client(manager).get("/progressives/").content.decode()
    assert f'<a href="{_url(grand)}">Grand</a> <span class="state flag">Sospeso</span>' in page


def test_the_admin_shows_the_state_read_only(grand, manager):
    level_suspend(grand, manager, "fault")
    client = _client(manager, "en")
    page = client.get(f"/admin/jackpots/level/{grand.pk}/change/").content.decode()
    assert '<div class="readonly">Suspended</div>' in page
    assert 'name="state"' not in page
    listing = client.get("/admin/jackpots/level/?state__exact=suspended").content.decode()
    assert "Grease Grand" in listing


def test_the_change_history_says_a_state_change_in_words(grand, manager):
    change = level_suspend(grand, manager, "fault")
    with translation.override("it"):
        assert [str(line) for line in change_lines(change)] == ["Stato: Attivo → Sospeso"]
