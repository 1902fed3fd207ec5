"""The admin speaks the staff member's language: Italian for Italian-speaking staff."""

from __future__ import annotations

import gettext
import re
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import translation

from floor.models import StaffProfile
from floor.roles import FLOOR_MANAGER
from jackpots.services import level_hit
from slots.models import MachineEvent
from tests.factories import (
    ProgressiveFactory,
    ProgressiveMachineFactory,
    RoomFactory,
    SlotMachineFactory,
    VenueFactory,
)
from tests.floor.staff import level_seeded
from tests.staff_fixtures import game_event, staff_member

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _default_language_afterwards():
    """A request leaves its language active on the thread: later tests calling services directly expect
    the default (English) sentences."""
    yield
    translation.deactivate()


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


# --- the workspace pages in the staff member's language --------------------------------------------------


@pytest.fixture
def floor(db):
    """A room with one machine that has played, and an open hit on it: every workspace page has content."""
    room = RoomFactory(venue=VenueFactory(), number=1, name="Sala Uno")
    machine = SlotMachineFactory(room=room, asset_number="NOG-0101", pos_x=0, pos_y=0)
    at = datetime(2026, 11, 20, 21, 0, tzinfo=ZoneInfo("Europe/Rome"))
    MachineEvent.objects.bulk_create([game_event(machine, 1, at, 12_345, 0)])
    progressive = ProgressiveFactory(name="Diamond Vault")
    ProgressiveMachineFactory(progressive=progressive, machine=machine)
    level = level_seeded(progressive=progressive, reset_mc=50_000_000)
    return level_hit(level.pk, machine_id=machine.pk)


def _manager_speaking(language: str):
    user = staff_member(f"manager-{language}", FLOOR_MANAGER)
    StaffProfile.objects.create(user=user, language=language)
    return user


GAMES = {"venue": "NOG", "first": "2026-11-20", "last": "2026-11-20", "group_by": "machine"}

# Each page with what it must say, exactly, in Italian and in English.
PAGES = {
    "hits queue": (
        reverse("admin:jackpots_hit_changelist"),
        {},
        [
            '<option value="verify_selected">Verifica le vincite selezionate</option>',
            '<option value="void_selected">Annulla le vincite selezionate…</option>',
            "Da verificare o pagare",
            ">Importo (EUR)</a>",
            ">Tempo trascorso</a>",
            '<td class="field-state">Vincita</td>',
        ],
        [
            '<option value="verify_selected">Verify the selected hits</option>',
            '<option value="void_selected">Void the selected hits…</option>',
            "To verify or pay",
            ">Amount (EUR)</a>",
            ">Age</a>",
            '<td class="field-state">Hit</td>',
        ],
    ),
    "game report": (
        reverse("workspace:report-games"),
        GAMES,
        [
            "<title>Partite, incasso e hold | Progressivo</title>",
            "<th>Incasso</th><th>Pagato</th><th>Hold</th>",
            "Dalla giornata contabile",
            "giornate contabili dal 20 novembre 2026 al 20 novembre 2026",
        ],
        [
            "<title>Games, coin in and hold | Progressivo</title>",
            "<th>Coin in</th><th>Coin out</th><th>Hold</th>",
            "From business day",
            "business days Nov. 20, 2026 to Nov. 20, 2026",
        ],
    ),
    "floor map": (
        reverse("workspace:map", args=["NOG", 1]),
        {},
        [
            "<title>Mappa della sala: NOG Sala Uno | Progressivo</title>",
            '<span class="machine state-idle">libera</span>',
            '<span class="machine state-door_open">sportello aperto</span>',
            'data-live="in diretta" data-down="riconnessione…">connessione…</span>',
            "Fai clic su una macchina per vederne i contatori, gli eventi recenti e le vincite.",
        ],
        [
            "<title>Floor map: NOG Sala Uno | Progressivo</title>",
            '<span class="machine state-idle">idle</span>',
            '<span class="machine state-door_open">door open</span>',
            'data-live="live" data-down="reconnecting…">connecting…</span>',
            "Click a machine for its meters, recent events and hits.",
        ],
    ),
    "inventory": (
        reverse("workspace:inventory"),
        {},
        [
            "<title>Inventario delle macchine | Progressivo</title>",
            '<h2 id="import">Importa</h2>',
            '<button type="submit" id="preview-button">Controlla (prova, nulla viene scritto)</button>',
            "Ogni riga viene prima controllata; se una riga è errata, non viene importato nulla.",
            'data-checking="controllo delle righe…" data-failed="caricamento non riuscito"',
        ],
        [
            "<title>Machine inventory | Progressivo</title>",
            '<h2 id="import">Import</h2>',
            '<button type="submit" id="preview-button">Check (dry run)</button>',
            "Every row is checked first; if any row is wrong, nothing is imported.",
            'data-checking="checking the rows…" data-failed="upload failed"',
        ],
    ),
}


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("language", ["it", "en"])
def test_workspace_pages_speak_the_profiles_language(client: Client, floor, page: str, language: str) -> None:
    url, params, italian, english = PAGES[page]
    client.force_login(_manager_speaking(language))
    response = client.get(url, params, HTTP_ACCEPT_LANGUAGE="en" if language == "it" else "it")

    body = response.content.decode()
    wanted, other = (italian, english) if language == "it" else (english, italian)
    assert response.status_code == 200
    assert response["Content-Language"] == language
    assert [text for text in wanted if text not in body] == []
    assert [text for text in other if text in body] == []


def test_the_machine_panel_names_the_state_in_italian(client: Client, floor) -> None:
    client.force_login(_manager_speaking("it"))
    body = client.get(reverse("workspace:machine-panel", args=["NOG-0101"])).content.decode()

    assert "<small>(non in linea)</small>" in body
    assert "<h4>Eventi recenti</h4>" in body
    assert "<td>Vincita</td>" in body


def test_hit_actions_and_engine_refusals_reach_staff_in_italian(client: Client, floor) -> None:
    user = _manager_speaking("it")
    client.force_login(user)
    changelist = reverse("admin:jackpots_hit_changelist")
    data = {"action": "verify_selected", "_selected_action": [floor.pk]}

    verified = client.post(changelist, data, follow=True)
    again = client.post(changelist, data, follow=True)

    assert [str(m) for m in verified.context["messages"]] == [f"{floor}: Verificata"]
    assert [str(m) for m in again.context["messages"]] == [
        f"{floor}: La vincita {floor.ref} è nello stato «verificata»: si può verificare solo una vincita "
        "aperta. (hit_not_open)"
    ]


def test_inventory_refusals_reach_staff_in_italian(client: Client, floor) -> None:
    client.force_login(_manager_speaking("it"))
    upload = SimpleUploadedFile("m.csv", b"serial\nX\n", content_type="text/csv")
    response = client.post(reverse("workspace:inventory"), {"file": upload})

    assert response.status_code == 400
    assert (
        "La prima riga deve indicare i nomi delle colonne, tra cui asset_number." in response.content.decode()
    )


def test_the_catalogue_has_no_untranslated_or_fuzzy_message() -> None:
    po = Path(settings.BASE_DIR) / "locale" / "it" / "LC_MESSAGES" / "django.po"
    text = po.read_text(encoding="utf-8")
    entries = text.split("\n\n")[1:]
    untranslated = [entry for entry in entries if re.search(r'^msgstr(\[\d\])? ""$(?!\n")', entry, re.M)]
    assert "#, fuzzy" not in text
    assert untranslated == []
