"""The workspace in Italian: dates, months and amounts through Django's formats (issue 24)."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
from django.utils import formats, translation

from slots.models import MachineEvent
from tests.factories import RoomFactory, SlotMachineFactory
from tests.staff_fixtures import game_event
from workspace.dayclose.selectors import dayclose_day_default

pytestmark = pytest.mark.django_db
ROME = ZoneInfo("Europe/Rome")


def test_italian_months_are_lower_case():
    with translation.override("it"):
        assert formats.date_format(date(2026, 11, 26)) == "26 novembre 2026"
        assert formats.date_format(date(2026, 5, 1), "j E") == "1 maggio"


def test_the_day_close_date_field_carries_an_iso_value_in_italian(client, manager):
    RoomFactory()
    client.force_login(manager)
    page = client.get("/dayclose/?venue=NOG&day=2026-11-25", HTTP_ACCEPT_LANGUAGE="it").content.decode()
    assert 'type="date" name="day" value="2026-11-25"' in page


def test_report_csv_amounts_are_ungrouped_in_the_readers_language(client, manager):
    machine = SlotMachineFactory(asset_number="NOG-0101")
    evening = datetime(2026, 11, 20, 21, 0, tzinfo=ROME)
    MachineEvent.objects.bulk_create([game_event(machine, 1, evening, 152_341, 0)])
    client.force_login(manager)
    url = "/floor/reports/games/?venue=NOG&first=2026-11-20&last=2026-11-20&group_by=machine&format=csv"
    client.cookies["django_language"] = "it"
    rows = client.get(url).content.decode().splitlines()
    assert '"1523,41"' in rows[1]
    assert '"100,00"' in rows[1]  # hold %: nothing won
    client.cookies["django_language"] = "en"
    rows = client.get(url).content.decode().splitlines()
    assert ",1523.41," in rows[1]


def test_the_day_close_opens_on_the_last_business_day_with_activity():
    room = RoomFactory()
    machine = SlotMachineFactory(asset_number="NOG-0001", room=room)
    venue = room.venue
    assert dayclose_day_default(venue, date(2026, 11, 26)) == date(2026, 11, 25)
    # Played on the 20th (a game at 05:59 on the 21st still belongs to the 20th), nothing since.
    MachineEvent.objects.bulk_create(
        [
            game_event(machine, 1, datetime(2026, 11, 20, 21, 0, tzinfo=ROME), 100, 0),
            game_event(machine, 2, datetime(2026, 11, 21, 5, 59, tzinfo=ROME), 100, 0),
        ]
    )
    assert dayclose_day_default(venue, date(2026, 11, 26)) == date(2026, 11, 20)
    # Today's games do not count: today has not closed.
    MachineEvent.objects.bulk_create(
        [game_event(machine, 3, datetime(2026, 11, 26, 7, 0, tzinfo=ROME), 1, 0)]
    )
    assert dayclose_day_default(venue, date(2026, 11, 26)) == date(2026, 11, 20)


def test_the_day_close_pdf_is_bilingual_and_compact():
    import io

    from fpdf import FPDF
    from pypdf import PdfReader

    from workspace.dayclose.export import _WIDTHS, dayclose_pdf
    from workspace.dayclose.selectors import Line

    room = RoomFactory()
    flagged = ["coin_in", "coin_out", "handpay"]
    # 300 machines: 60 played (every third of them flagged on all three meters), 240 idle.
    lines = [
        Line(f"NOG-{n:04d}", 152_341 * (n <= 60), 150_000 * (n <= 60), 90_000 * (n <= 60), 90_000 * (n <= 60),
             0, 0, flagged if n <= 60 and n % 3 == 0 else [])
        for n in range(1, 301)
    ]  # fmt: skip
    reader = PdfReader(io.BytesIO(dayclose_pdf(room.venue, date(2026, 11, 20), lines, None, 500)))
    assert len(reader.pages) == 2  # 9 before: every idle machine had its row
    text = "".join(page.extract_text() for page in reader.pages)
    assert "Macchina" in text and "Machine" in text and "Segnalati" in text and "Flagged" in text
    assert "NOG-0060" in text and "NOG-0061" not in text
    assert "Machines without activity, not listed: 240" in text
    # The flagged meters' names fit their column at the size they are printed.
    pdf = FPDF()
    pdf.set_font("helvetica", size=6.5)
    assert pdf.get_string_width(" ".join(flagged)) < _WIDTHS[-1] - 2
