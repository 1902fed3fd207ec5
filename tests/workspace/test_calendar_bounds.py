"""Staff forms and reports take days inside the business calendar (2000-01-01..2099-12-31) and text
without NUL and within its length (issue 28, findings 4 and 5): a 4xx with a sentence, nothing changed,
never a 500 (9999-12-31 raised OverflowError in common/days.py; year 1 was signed off)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.factories import LevelFactory
from tests.workspace.test_dayclose import floor  # noqa: F401
from workspace.dayclose.services import DayCloseRefused, dayclose_sign
from workspace.models import DayClose

pytestmark = pytest.mark.django_db
OUTSIDE = "Business days run from 01/01/2000 to 12/31/2099."


@pytest.fixture
def signed_in(client, floor, manager):  # noqa: F811
    client.force_login(manager)
    return client


@pytest.mark.parametrize("day", ["9999-12-31", "0001-01-01", "1900-01-01", "2100-01-01"])
def test_day_close_page_and_exports_refuse_a_day_outside_the_calendar(signed_in, day) -> None:
    page = signed_in.get(f"/dayclose/?day={day}")
    assert page.status_code == 400
    assert OUTSIDE in page.content.decode()
    for export in ("csv", "pdf"):
        answer = signed_in.get(f"/dayclose/NOG/{day}.{export}")
        assert answer.status_code == 400, export
        assert OUTSIDE in answer.content.decode(), export


@pytest.mark.parametrize("day", ["9999-12-31", "0001-01-01", "1900-01-01"])
def test_a_day_outside_the_calendar_is_not_signed_off(signed_in, day) -> None:
    answer = signed_in.post(f"/dayclose/?day={day}", {"note": ""})
    assert answer.status_code == 400
    assert OUTSIDE in answer.content.decode()
    assert not DayClose.objects.exists()


def test_no_sign_off_before_the_venues_first_day_or_after_today(floor, manager) -> None:  # noqa: F811
    from datetime import date

    # The floor's first event arrived on 2026-11-20.
    with pytest.raises(DayCloseRefused) as refused:
        dayclose_sign(floor, date(2026, 11, 19), manager, now=timezone.now())
    assert str(refused.value) == "NOG has nothing to sign off before its first business day here, 2026-11-20."
    with pytest.raises(DayCloseRefused, match="is not over yet"):
        dayclose_sign(floor, date(9999, 12, 31), manager, now=timezone.now())
    assert not DayClose.objects.exists()
    signed = dayclose_sign(floor, date(2026, 11, 20), manager, now=timezone.now())
    assert signed.business_day == date(2026, 11, 20)


@pytest.mark.parametrize(
    ("note", "sentence"),
    [
        ("checked\x00", "Null characters are not allowed."),
        ("x" * 501, "Ensure this value has at most 500 characters (it has 501)."),
    ],
)
def test_a_note_with_nul_or_too_long_is_refused(signed_in, note, sentence) -> None:
    answer = signed_in.post("/dayclose/?day=2026-11-20", {"note": note})
    assert answer.status_code == 400
    assert sentence in answer.content.decode()
    assert not DayClose.objects.exists()


@pytest.mark.parametrize("day", ["9999-12-31", "0001-01-01"])
def test_reports_refuse_a_day_outside_the_calendar(signed_in, floor, day) -> None:  # noqa: F811
    level = LevelFactory()
    room = floor.rooms.first()
    for url in (
        f"/floor/reports/games/?venue=NOG&first={day}&last={day}&group_by=machine",
        f"/floor/reports/games/?venue=NOG&first={day}&last={day}&group_by=machine&format=csv",
        f"/floor/reports/room-hours/?room={room.pk}&day={day}",
        f"/floor/reports/room-hours/?room={room.pk}&day={day}&format=csv",
        f"/floor/reports/level-history/?level={level.pk}&first={day}&last={day}",
    ):
        answer = signed_in.get(url)
        assert answer.status_code == 400, url
        assert OUTSIDE in answer.content.decode(), url
