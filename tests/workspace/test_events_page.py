"""The significant-events page and its CSV: one venue's business day with the house's rows, filtered by
kind, machine/level text and person; bad input a 400 or 404 with a sentence."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from urllib.parse import quote

import pytest
from django.contrib.auth.models import User

from floor.models import SignificantEvent
from floor.services.significant import significant_event_record
from tests.factories import VenueFactory

pytestmark = pytest.mark.django_db

DAY = "2026-11-20"  # business day of Ca' Noghera (Europe/Rome, UTC+1): 05:00 UTC to 05:00 UTC next day
HEADER = "id,at,venue,kind,subject,machine_id,level_id,user,detail,reference"


@pytest.fixture
def register(manager) -> dict[str, SignificantEvent]:
    noghera, venezia = VenueFactory(code="NOG"), VenueFactory(code="VEN", name="Ca' Vendramin Calergi")
    giulia = User.objects.create_user("giulia", first_name="Giulia", last_name="Rossi")

    def add(name, kind, at, venue=noghera, **fields):
        return name, significant_event_record(kind, venue=venue, at=at, **fields)

    return dict(
        [
            add(
                "door",
                "door_open",
                datetime(2026, 11, 20, 9, 15, 2, tzinfo=UTC),
                subject="NOG-0101",
                machine_id=101,
                detail="Slot door was opened (SAS exception 11)",
                reference="seq 44",
            ),
            add(
                "void",
                "void",
                datetime(2026, 11, 20, 23, 30, tzinfo=UTC),
                subject="NOG-0102",
                machine_id=102,
                level_id=7,
                user=giulia,
                detail="Hit NOG-2026-00012 of EUR 1523.47 voided: =reel, malfunction",
                reference="NOG-2026-00012",
            ),
            add(
                "link", "link_down", datetime(2026, 11, 21, 4, 59, 59, tzinfo=UTC), venue=None, subject="Link"
            ),
            add("next_day", "tilt", datetime(2026, 11, 21, 5, 0, tzinfo=UTC), subject="NOG-0101"),
            add(
                "other_venue",
                "tilt",
                datetime(2026, 11, 20, 10, 0, tzinfo=UTC),
                venue=venezia,
                subject="VEN-1",
            ),
        ]
    )


@pytest.fixture
def signed_in(client, manager, register):
    client.force_login(manager)
    return client


def ids(page) -> list[int]:
    """The rows' ids in the page's order."""
    return [int(pk) for pk in re.findall(r'<tr id="event-(\d+)"', page.content.decode())]


def test_the_csv_of_a_day_is_exact(signed_in, register):
    answer = signed_in.get(f"/events/NOG/{DAY}/events.csv")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/csv; charset=utf-8"
    assert answer["Content-Disposition"] == f'attachment; filename="significant-events-NOG-{DAY}.csv"'
    door, void, link = register["door"].pk, register["void"].pk, register["link"].pk
    giulia = User.objects.get(username="giulia")
    assert giulia.pk == register["void"].user_id
    assert answer.content.decode().split("\r\n") == [
        HEADER,
        f"{door},2026-11-20T10:15:02+01:00,NOG,door_open,NOG-0101,101,,,"
        "Slot door was opened (SAS exception 11),seq 44",
        # Times by the venue's clock with its offset; a cell with a comma is quoted.
        f"{void},2026-11-21T00:30:00+01:00,NOG,void,NOG-0102,102,7,giulia,"
        '"Hit NOG-2026-00012 of EUR 1523.47 voided: =reel, malfunction",NOG-2026-00012',
        f"{link},2026-11-21T05:59:59+01:00,,link_down,Link,,,,,",
        "",
    ]
    assert signed_in.get(f"/events/NOG/{DAY}/?format=csv").content == answer.content


def test_the_csv_escapes_a_formula(signed_in, register):
    significant_event_record(
        "correction", venue=register["door"].venue, at=datetime(2026, 11, 20, 12, tzinfo=UTC), detail="=1+1"
    )
    line = signed_in.get(f"/events/NOG/{DAY}/events.csv").content.decode().split("\r\n")[2]
    assert line.endswith(",correction,,,,,'=1+1,")


def test_the_page_shows_the_venues_day_and_the_house_rows(signed_in, register):
    page = signed_in.get(f"/events/NOG/{DAY}/")
    assert page.status_code == 200
    assert ids(page) == [register["door"].pk, register["void"].pk, register["link"].pk]
    text = page.content.decode()
    assert "11/20/2026 10:15:02" in text  # the venue's clock, in the reader's language (English here)
    assert "Giulia Rossi" in text
    assert f'href="/events/NOG/{DAY}/events.csv"' in text
    assert ids(signed_in.get(f"/events/VEN/{DAY}/")) == [register["other_venue"].pk, register["link"].pk]


def test_the_page_in_italian(signed_in, register):
    signed_in.cookies["django_language"] = "it"
    text = signed_in.get(f"/events/NOG/{DAY}/").content.decode()
    assert "20/11/2026 10:15:02" in text
    assert "Porta aperta" in text and "Vincita annullata" in text and "Collegamento interrotto" in text
    assert "Eventi significativi" in text


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("kind=door_open", ["door"]),
        ("kind=link_down", ["link"]),
        ("subject=nog-0102", ["void"]),
        ("subject=NOG-01", ["door", "void"]),
        ("user=ross", ["void"]),
        ("user=giulia&kind=void", ["void"]),
        ("user=giulia&kind=tilt", []),
        ("kind=", ["door", "void", "link"]),
    ],
)
def test_filters(signed_in, register, query, expected):
    page = signed_in.get(f"/events/NOG/{DAY}/?{query}")
    assert page.status_code == 200
    assert ids(page) == [register[name].pk for name in expected]
    csv_lines = signed_in.get(f"/events/NOG/{DAY}/events.csv?{query}").content.decode().split("\r\n")
    assert [int(line.split(",")[0]) for line in csv_lines[1:-1]] == [register[name].pk for name in expected]


def test_the_day_picker_goes_to_the_day_with_its_filters(signed_in, register):
    answer = signed_in.get(f"/events/?venue=VEN&day={DAY}&kind=tilt&subject=&user=giu")
    assert (answer.status_code, answer["Location"]) == (302, f"/events/VEN/{DAY}/?kind=tilt&user=giu")
    assert signed_in.get("/events/?venue=NOG").status_code == 302


@pytest.mark.parametrize("day", ["2026-13-01", "yesterday", "9999-12-31"])
def test_a_bad_day_is_a_400_with_a_sentence(signed_in, day):
    sentence = (
        "Enter a valid date." if day != "9999-12-31" else "Business days run from 01/01/2000 to 12/31/2099."
    )
    for path in (f"/events/NOG/{quote(day)}/", f"/events/NOG/{quote(day)}/events.csv", f"/events/?day={day}"):
        answer = signed_in.get(path)
        assert answer.status_code == 400, path
        assert sentence in answer.content.decode(), path


def test_a_bad_filter_is_a_400_with_a_sentence(signed_in):
    page = signed_in.get(f"/events/NOG/{DAY}/?kind=nonsense")
    assert page.status_code == 400
    sentence = "Select a valid choice. nonsense is not one of the available choices."
    assert sentence in page.content.decode()
    assert 'id="event-' not in page.content.decode()
    answer = signed_in.get(f"/events/NOG/{DAY}/events.csv?kind=nonsense")
    assert (answer.status_code, answer.content.decode()) == (400, sentence)
    assert signed_in.get(f"/events/NOG/{DAY}/?subject=" + "x" * 121).status_code == 400
    assert signed_in.get(f"/events/NOG/{DAY}/events.csv?user=a%00b").status_code == 400


def test_an_unknown_venue_is_a_404(signed_in):
    assert signed_in.get(f"/events/XXX/{DAY}/").status_code == 404
    assert signed_in.get(f"/events/XXX/{DAY}/events.csv").status_code == 404


def test_only_people_who_read_reports_see_it(client, attendant, register):
    client.force_login(attendant)
    assert client.get(f"/events/NOG/{DAY}/").status_code == 403
    assert client.get(f"/events/NOG/{DAY}/events.csv").status_code == 403


def test_the_navigation_links_the_register(signed_in):
    text = signed_in.get("/hits/").content.decode()
    assert '<a href="/events/">Significant events</a>' in text


def test_the_venue_switch_keeps_the_day(signed_in, register):
    answer = signed_in.get(f"/venue/?venue=VEN&next=/events/NOG/{DAY}/")
    assert answer["Location"] == f"/events/VEN/{DAY}/"
