"""The significant-events register: append-only everywhere (model, PostgreSQL, admin), and the selector
of one venue's business day with the house's rows."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import DatabaseError, connection, transaction

from floor.models import SignificantEvent
from floor.selectors import significant_events
from floor.services.significant import significant_event_record, significant_events_record
from tests.factories import VenueFactory

pytestmark = pytest.mark.django_db

# Business day 2026-11-20 at a Europe/Rome venue (CET, UTC+1), closing at 06:00 local: 05:00 UTC on the
# 20th to 05:00 UTC on the 21st.
DAY = date(2026, 11, 20)
OPENS = datetime(2026, 11, 20, 5, 0, tzinfo=UTC)
CLOSES = datetime(2026, 11, 21, 5, 0, tzinfo=UTC)


@pytest.fixture
def row(db) -> SignificantEvent:
    venue = VenueFactory()
    return significant_event_record("tilt", venue=venue, at=OPENS, subject="NOG-0101", detail="Machine tilt")


def test_the_model_refuses_save_and_delete(row):
    row.detail = "rewritten"
    with pytest.raises(ValueError, match="append-only"):
        row.save()
    with pytest.raises(ValueError, match="append-only"):
        row.delete()
    assert SignificantEvent.objects.get().detail == "Machine tilt"


@pytest.mark.postgres
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE floor_significantevent SET detail = 'rewritten'",
        "DELETE FROM floor_significantevent",
    ],
)
def test_postgresql_refuses_raw_update_and_delete(row, sql):
    if connection.vendor != "postgresql":
        pytest.skip("the trigger is PostgreSQL's")
    refused = pytest.raises(DatabaseError, match="the significant-events register is append-only")
    with refused, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql)
    assert list(SignificantEvent.objects.values_list("detail", flat=True)) == ["Machine tilt"]


def test_the_queryset_refuses_a_bulk_update_on_postgresql(row):
    if connection.vendor != "postgresql":
        pytest.skip("the trigger is PostgreSQL's")
    with pytest.raises(DatabaseError), transaction.atomic():
        SignificantEvent.objects.update(detail="rewritten")
    assert SignificantEvent.objects.get().detail == "Machine tilt"


def test_an_unknown_kind_is_refused(db):
    with pytest.raises(ValueError, match="unknown significant event kind 'door'"):
        significant_event_record("door")
    with pytest.raises(ValueError, match="unknown significant event kind 'door'"):
        significant_events_record([SignificantEvent(kind="door", at=OPENS)])
    assert SignificantEvent.objects.count() == 0


def test_the_admin_reads_and_refuses_add_change_delete(row, client):
    admin = get_user_model().objects.create_superuser("root", password="not-used")
    client.force_login(admin)
    base = "/admin/floor/significantevent/"
    listing = client.get(base)
    assert listing.status_code == 200
    assert 'name="action"' not in listing.content.decode()  # no actions, not even delete
    assert "NOG-0101" in listing.content.decode()
    assert client.get(f"{base}{row.pk}/change/").status_code == 200  # the read-only view
    assert client.post(f"{base}{row.pk}/change/", {"detail": "rewritten"}).status_code == 403
    assert client.get(f"{base}{row.pk}/delete/").status_code == 403
    assert client.post(f"{base}{row.pk}/delete/", {"post": "yes"}).status_code == 403
    assert client.get(f"{base}add/").status_code == 403
    assert (
        client.post(f"{base}add/", {"kind": "tilt", "at_0": "2026-11-20", "at_1": "10:00"}).status_code == 403
    )
    assert list(SignificantEvent.objects.values_list("pk", "detail")) == [(row.pk, "Machine tilt")]


def test_no_role_may_add_change_or_delete_the_register(db):
    from django.contrib.auth.models import Group

    from floor.roles import ROLES

    for role in ROLES:
        codenames = set(
            Group.objects.get(name=role)
            .permissions.filter(content_type__model="significantevent")
            .values_list("codename", flat=True)
        )
        assert codenames == {"view_significantevent"}, role


def test_the_selector_takes_the_venues_business_day_and_the_house_rows_in_time_order(db):
    noghera, venezia = VenueFactory(code="NOG"), VenueFactory(code="VEN", name="Ca' Vendramin")
    second = timedelta(microseconds=1)

    def add(venue, at, subject):
        return significant_event_record("link_down", venue=venue, at=at, subject=subject)

    add(noghera, OPENS - second, "before the day")
    add(noghera, CLOSES, "the next day")
    last = add(noghera, CLOSES - second, "last instant")
    house = add(None, OPENS + timedelta(hours=3), "house link")
    first = add(noghera, OPENS, "first instant")
    add(venezia, OPENS + timedelta(hours=1), "other venue")
    add(None, CLOSES + timedelta(hours=1), "house, next day")
    same_time = add(noghera, OPENS, "first instant, written later")
    assert [event.pk for event in significant_events(noghera, DAY)] == [
        first.pk,
        same_time.pk,
        house.pk,
        last.pk,
    ]
    assert [event.subject for event in significant_events(venezia, DAY)] == ["other venue", "house link"]


def test_the_day_follows_summer_time(db):
    """On 2026-07-01 Rome is UTC+2: the business day opens at 04:00 UTC."""
    venue = VenueFactory()
    significant_event_record(
        "tilt", venue=venue, at=datetime(2026, 7, 1, 3, 59, tzinfo=UTC), subject="before"
    )
    significant_event_record("tilt", venue=venue, at=datetime(2026, 7, 1, 4, 0, tzinfo=UTC), subject="in")
    assert [event.subject for event in significant_events(venue, date(2026, 7, 1))] == ["in"]
    assert [event.subject for event in significant_events(venue, date(2026, 6, 30))] == ["before"]
