"""The shell around every page, the sign previews and the API docs served from the project."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from floor.models import SignageScreen
from jackpots.models import Level
from tests.factories import LevelFactory, SignageScreenFactory, VenueFactory

pytestmark = pytest.mark.django_db


def test_api_docs_load_swagger_ui_from_our_static_files(client):
    page = client.get("/api/docs/").content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    assert "cdn" not in page.lower() and "https://" not in page


def test_the_nav_shows_what_each_role_may_open(client, manager, attendant):
    VenueFactory()
    client.force_login(attendant)
    page = client.get("/hits/").content.decode()
    assert ">Hits</a>" in page and ">Floor</a>" in page
    assert ">Reports</a>" not in page and ">Day close</a>" not in page
    client.force_login(manager)
    page = client.get("/hits/").content.decode()
    assert ">Reports</a>" in page and ">Day close</a>" in page


def test_the_venue_chosen_stays_for_the_session(client, manager):
    VenueFactory(code="NOG", name="Ca' Noghera")
    VenueFactory(code="VEN", name="Ca' Vendramin Calergi")
    client.force_login(manager)
    assert '<option value="NOG" selected>' in client.get("/hits/").content.decode()
    client.get("/hits/?venue=VEN")
    assert '<option value="VEN" selected>' in client.get("/progressives/").content.decode()
    # An unknown code keeps nothing broken: the first venue.
    assert '<option value="NOG" selected>' in client.get("/hits/?venue=XXX").content.decode()


def test_each_sign_of_the_venue_with_its_state_and_a_live_preview(client, manager):
    venue = VenueFactory()
    now = timezone.now()
    level = LevelFactory(name="Grand", current_mc=123_456_789)
    SignageScreen.objects.bulk_create(
        [
            SignageScreenFactory.build(
                venue=venue, slug="nog-1", token_digest="x" * 64, token_last_used_at=now
            ),
            SignageScreenFactory.build(
                venue=venue,
                slug="nog-2",
                token_digest="y" * 64,
                token_last_used_at=now - timedelta(minutes=5),
            ),
            SignageScreenFactory.build(venue=venue, slug="nog-3"),
        ]
    )
    SignageScreen.objects.get(slug="nog-1").progressives.add(level.progressive)
    client.force_login(manager)
    page = client.get("/signs/").content.decode()
    for slug, state in (("nog-1", "connected"), ("nog-2", "silent"), ("nog-3", "no_token")):
        assert f'id="sign-{slug}" data-state="{state}"' in page
    preview = client.get("/signs/nog-1/preview/")
    assert preview["X-Frame-Options"] == "SAMEORIGIN"
    html = preview.content.decode()
    assert "<span>Grand</span><b>€ 1234.56</b>" in html
    assert Level.objects.count() == 1
