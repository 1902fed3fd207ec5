"""The shell around every page, the sign previews and the API docs served from the project."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from floor.models import SignageScreen
from jackpots.models import Level
from signage.models import ScreenPresence
from tests.factories import LevelFactory, SignageScreenFactory, VenueFactory

pytestmark = pytest.mark.django_db


def test_api_docs_load_swagger_ui_from_our_static_files(client):
    page = client.get("/api/docs/").content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    # No address of another host: the page's random token once spelled "cdn", so hosts are looked for, not
    # the letters.
    assert re.findall(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page) == []
    assert "https://" not in page and "http://" not in page
    assert not any(host in page for host in ("cdn.", "cdnjs.", "unpkg.com"))


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
            SignageScreenFactory.build(venue=venue, slug=f"nog-{n}", token_digest=f"{n}" * 64)
            for n in (1, 2, 3, 4)
        ]
        + [SignageScreenFactory.build(venue=venue, slug="nog-5")]
    )
    screens = {screen.slug: screen for screen in SignageScreen.objects.all()}
    # What the signs' consumer writes: one connected and sent a frame now, one connected and silent for
    # five minutes, one disconnected; nog-4 never connected and nog-5 holds no token.
    ScreenPresence.objects.create(screen=screens["nog-1"], connections=1, connected_at=now, last_frame_at=now)
    ScreenPresence.objects.create(
        screen=screens["nog-2"], connections=1, connected_at=now, last_frame_at=now - timedelta(minutes=5)
    )
    ScreenPresence.objects.create(
        screen=screens["nog-3"], connections=0, connected_at=now, disconnected_at=now, last_frame_at=now
    )
    SignageScreen.objects.get(slug="nog-1").progressives.add(level.progressive)
    client.force_login(manager)
    page = client.get("/signs/").content.decode()
    states = (
        ("nog-1", "live"),
        ("nog-2", "silent"),
        ("nog-3", "offline"),
        ("nog-4", "never"),
        ("nog-5", "no_token"),
    )
    for slug, state in states:
        assert f'id="sign-{slug}" data-state="{state}"' in page
    assert "connected, but sent nothing lately" in page
    preview = client.get("/signs/nog-1/preview/")
    assert preview["X-Frame-Options"] == "SAMEORIGIN"
    html = preview.content.decode()
    # The sign itself (its script and stylesheet), fed the snapshot its screen would get.
    assert 'src="/static/signage/signage.js"' in html
    config = json.loads(
        html.split('<script id="sign-config" type="application/json">')[1].split("</script>")[0]
    )
    assert [(level["name"], level["amount_eur"]) for level in config["preview"][0]["levels"]] == [
        ("Grand", "1234.56")
    ]
    assert "token" not in config and config["time_zone"] == "Europe/Rome"
    assert Level.objects.count() == 1


def test_the_venue_switcher_goes_back_or_to_the_other_venues_floor(client, manager):
    VenueFactory(code="NOG", name="Ca' Noghera")
    VenueFactory(code="VEN", name="Ca' Vendramin Calergi")
    client.force_login(manager)
    assert client.get("/venue/", {"venue": "VEN", "next": "/progressives/"})["Location"] == "/progressives/"
    assert client.get("/venue/", {"venue": "NOG", "next": "/floor/VEN/"})["Location"] == "/floor/NOG/"
    assert (
        client.get("/venue/", {"venue": "VEN", "next": "https://elsewhere.example/"})["Location"] == "/hits/"
    )
    assert '<option value="VEN" selected>' in client.get("/hits/").content.decode()
