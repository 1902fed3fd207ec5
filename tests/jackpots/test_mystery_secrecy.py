"""Rule 9: a mystery level's trigger shows to auditors only. Everything else a mystery hit produces (API,
signs, reports and their CSVs, the admin pages of floor managers and attendants in both languages, the
logs) is searched for the trigger in every form a page could print it."""

from __future__ import annotations

import logging
from datetime import timedelta
from decimal import Decimal

import orjson
import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from common.credentials import screen_token_issue
from common.days import business_date_of
from floor.models import StaffProfile
from jackpots.models import Hit, HitKind
from jackpots.services import contributions_apply, core
from jackpots.services.levels import level_create
from signage.currency import ScreenContent
from signage.selectors import hit_message, level_updates, rules_message, signage_snapshot
from tests.factories import SignageScreenFactory
from tests.jackpots.factories import GameEventFactory
from tests.jackpots.helpers import progressive_with_machines

pytestmark = pytest.mark.django_db

TRIGGER_MC = 73_456_789  # €734.56 and a bit: a value that appears nowhere else
NEXT_TRIGGER_MC = 91_827_364  # the trigger drawn at the reset after the hit: €918.27


def secret_forms(trigger_mc: int) -> list[str]:
    """The trigger as millicents, as cents, and as euros in English and Italian notation."""
    cents = trigger_mc // 1000
    euros = f"{cents // 100}.{cents % 100:02d}"
    return [str(trigger_mc), str(cents), euros, euros.replace(".", ",")]


SECRETS = secret_forms(TRIGGER_MC) + secret_forms(NEXT_TRIGGER_MC)


@pytest.fixture(autouse=True)
def _english_afterwards():
    yield
    translation.activate("en")


@pytest.fixture
def mystery_hit(monkeypatch, caplog):
    """A mystery level hit by the wager that crosses its trigger, with the logs of that hit captured."""
    caplog.set_level(logging.DEBUG)
    monkeypatch.setattr(core, "draw_trigger", lambda params, start_mc, randbelow: NEXT_TRIGGER_MC)
    progressive, machines = progressive_with_machines(2, name="Venezia Mystery")
    params = core.Params(50_000_000, Decimal("0.01"), Decimal("0.001"), limit_mc=100_000_000, mystery=True)
    level = level_create(progressive, name="Must Hit By", position=1, params=params)
    level.trigger_mc = TRIGGER_MC
    level.save(update_fields=["trigger_mc"])
    for _ in range(30):
        GameEventFactory(machine=machines[0], wager_cents=99_999)
    contributions_apply()
    level.refresh_from_db()
    hit = Hit.objects.get(level=level)
    # 24 wagers of 999,990 mc each carried €500 past €734.56: the 24th crossed the trigger and won.
    assert (hit.kind, hit.number, hit.amount_cents) == (HitKind.MYSTERY, 1, 73_999)
    assert level.trigger_mc == NEXT_TRIGGER_MC
    assert hit.before["state"]["trigger_mc"] == TRIGGER_MC
    return progressive, machines, level, hit


def _speaking(user, language: str):
    StaffProfile.objects.update_or_create(user=user, defaults={"language": language})
    return user


def _admin_pages(client: Client, level, hit) -> dict[str, str]:
    urls = {
        "level": reverse("admin:jackpots_level_change", args=[level.pk]),
        "levels": reverse("admin:jackpots_level_changelist"),
        "progressive": reverse("admin:jackpots_progressive_change", args=[level.progressive_id]),
        "hit": reverse("admin:jackpots_hit_change", args=[hit.pk]),
        "hits": reverse("admin:jackpots_hit_changelist"),
    }
    pages = {}
    for name, url in urls.items():
        response = client.get(url)
        assert response.status_code == 200, name
        pages[name] = response.content.decode()
    return pages


def _report_pages(client: Client, level, machine) -> dict[str, str]:
    today = business_date_of(timezone.now(), "Europe/Rome")
    days = {"first": str(today - timedelta(days=1)), "last": str(today + timedelta(days=1))}
    games = {"venue": machine.room.venue.code, "group_by": "machine", **days}
    requests = {
        "games": (reverse("workspace:report-games"), games),
        "games.csv": (reverse("workspace:report-games"), {**games, "format": "csv"}),
        "room-hours": (reverse("workspace:report-room-hours"), {"room": machine.room_id, "day": str(today)}),
        "liability": (reverse("workspace:report-liability"), {}),
        "liability.csv": (reverse("workspace:report-liability"), {"format": "csv"}),
        "level-history": (reverse("workspace:report-level-history"), {"level": level.pk, **days}),
        "level-history.csv": (
            reverse("workspace:report-level-history"),
            {"level": level.pk, "format": "csv", **days},
        ),
    }
    pages = {}
    for name, (url, params) in requests.items():
        response = client.get(url, params)
        assert response.status_code == 200, name
        pages[name] = response.content.decode()
    return pages


def test_no_public_output_shows_the_trigger(mystery_hit, caplog, capsys):
    progressive, machines, level, hit = mystery_hit
    screen = SignageScreenFactory(slug="nog-1", venue=machines[0].room.venue, room=machines[0].room)
    screen.progressives.add(progressive)
    token = screen_token_issue(screen)
    client = Client()
    content = ScreenContent((progressive.id,), "EUR")
    outputs = {
        "api list": client.get("/api/v1/jackpots").content.decode(),
        "api detail": client.get(f"/api/v1/jackpots/{progressive.id}").content.decode(),
        "schema": client.get("/api/schema/").content.decode(),
        "sign page": client.get(f"/signage/nog-1/?token={token}").content.decode(),
        "snapshot frame": orjson.dumps({"type": "snapshot", "jackpots": signage_snapshot(content)}).decode(),
        "update frames": orjson.dumps(level_updates([level.id]), option=orjson.OPT_NON_STR_KEYS).decode(),
        "hit frame": orjson.dumps(hit_message(hit.id)).decode(),
        "rules page it": client.get(f"/rules/{progressive.id}/?lang=it").content.decode(),
        "rules page en": client.get(f"/rules/{progressive.id}/?lang=en").content.decode(),
        "rules frame": orjson.dumps(rules_message(progressive.id)).decode(),
    }
    assert "Must hit by €\u00a01,000.00" in outputs["rules page en"]  # the limit is public
    call_command("jackpots_audit")
    out = capsys.readouterr()
    outputs["logs"] = caplog.text + out.out + out.err
    assert "73,999.00" not in outputs["logs"]  # the hit's award is what the public sees: €739.99
    assert '"amount_eur":"739.99"' in outputs["hit frame"]
    assert [(name, s) for name, text in outputs.items() for s in SECRETS if s in text] == []


@pytest.mark.parametrize("role", ["manager", "attendant"])
@pytest.mark.parametrize("language", ["en", "it"])
def test_staff_other_than_auditors_never_see_the_trigger(mystery_hit, client, role, language, request):
    _progressive, machines, level, hit = mystery_hit
    client.force_login(_speaking(request.getfixturevalue(role), language))
    pages = _admin_pages(client, level, hit)
    if role == "manager":
        pages |= _report_pages(client, level, machines[0])
    assert {"en": "739.99", "it": "739,99"}[language] in pages["level"]  # the win is on the level page
    assert [(name, s) for name, text in pages.items() for s in SECRETS if s in text] == []


@pytest.mark.parametrize("language", ["en", "it"])
def test_auditors_see_the_trigger_on_the_level_and_hit_pages(mystery_hit, client, auditor, language):
    _progressive, _machines, level, hit = mystery_hit
    client.force_login(_speaking(auditor, language))
    pages = _admin_pages(client, level, hit)
    trigger = {"en": "918.27", "it": "918,27"}[language]
    assert trigger in pages["level"]  # the trigger standing now
    assert trigger in pages["levels"]
    assert str(TRIGGER_MC) in pages["hit"]  # the level before the hit, as a void would restore it
