"""The table declarations page: who sees it, who may release, and what a refused release says."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from tables.models import Table, TableDeclaration
from tables.seed import tables_seed
from tables.services import round_record
from tests.tables.factories import body, seat

pytestmark = pytest.mark.django_db


def declared() -> TableDeclaration:
    tables_seed(jumbo_7_opening_mc=None)
    played = body("N-1", [seat(1, "AS KS QS JS TS")], at=timezone.now().isoformat())
    round_record(Table.objects.get(code="NOG-CSP-1"), played)
    return TableDeclaration.objects.get()


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_an_attendant_neither_sees_the_page_nor_releases(slot_attendant) -> None:
    declaration = declared()
    client = client_of(slot_attendant)
    assert client.get("/tables/declarations/").status_code == 403
    response = client.post(f"/tables/declarations/{declaration.pk}/release/", {"reason": "seen"})
    assert response.status_code == 403
    assert TableDeclaration.objects.get().state == "pending"


def test_an_auditor_sees_it_without_a_release_button_and_cannot_release(auditor) -> None:
    declaration = declared()
    client = client_of(auditor)
    page = client.get("/tables/declarations/", HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    html = page.content.decode()
    assert "A floor manager releases it." in html
    assert "Release: the tables play again" not in html
    response = client.post(f"/tables/declarations/{declaration.pk}/release/", {"reason": "seen"}, follow=True)
    assert [str(m) for m in response.context["messages"]] == ["You may not do this: ask a floor manager."]
    assert TableDeclaration.objects.get().state == "pending"


def test_a_floor_manager_releases_with_a_reason_and_not_twice(floor_manager) -> None:
    declaration = declared()
    client = client_of(floor_manager)
    url = f"/tables/declarations/{declaration.pk}/release/"
    assert client.get(url).status_code == 405
    empty = client.post(url, {"reason": ""}, follow=True, HTTP_ACCEPT_LANGUAGE="en")
    assert [str(m) for m in empty.context["messages"]] == [
        "A release needs a reason of at most 500 characters."
    ]
    assert TableDeclaration.objects.get().state == "pending"
    done = client.post(url, {"reason": "Hand seen"}, follow=True, HTTP_ACCEPT_LANGUAGE="en")
    assert [str(m) for m in done.context["messages"]] == [
        "The declaration at table NOG-CSP-1 is released: the linked tables play again."
    ]
    again = client.post(url, {"reason": "Hand seen"}, follow=True, HTTP_ACCEPT_LANGUAGE="en")
    assert [str(m) for m in again.context["messages"]] == [
        "This declaration is no longer pending (Released): play has already resumed."
    ]
    assert (TableDeclaration.objects.get().state, TableDeclaration.objects.get().released_by) == (
        "released",
        floor_manager,
    )
