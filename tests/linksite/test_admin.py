"""The membership's page: the site key is typed in, kept, and never shown back."""

from __future__ import annotations

import pytest

from linksite.models import LinkMembership
from tests.linksite.factories import LINK_URL, SITE_KEY, linked_site

pytestmark = pytest.mark.django_db


def test_the_site_key_is_never_shown_and_an_empty_field_keeps_it(admin_client) -> None:
    *_, membership = linked_site()
    url = f"/admin/linksite/linkmembership/{membership.pk}/change/"
    page = admin_client.get(url)
    assert page.status_code == 200
    assert SITE_KEY not in page.content.decode()
    data = {"progressive": membership.progressive_id, "link_url": LINK_URL, "pool_code": "JUMBO7",
            "site_key": "", "active": "on"}  # fmt: skip
    assert admin_client.post(url, data).status_code == 302
    assert LinkMembership.objects.get().site_key == SITE_KEY
    assert admin_client.post(url, {**data, "site_key": " new-key "}).status_code == 302
    assert LinkMembership.objects.get().site_key == "new-key"


def test_a_new_membership_needs_its_key(admin_client) -> None:
    *_, membership = linked_site()
    progressive = membership.progressive
    membership.delete()
    data = {"progressive": progressive.pk, "link_url": LINK_URL, "pool_code": "JUMBO7", "site_key": ""}
    page = admin_client.post("/admin/linksite/linkmembership/add/", data)
    assert page.status_code == 200
    assert LinkMembership.objects.count() == 0
    assert (
        admin_client.post("/admin/linksite/linkmembership/add/", {**data, "site_key": "k"}).status_code == 302
    )
    assert LinkMembership.objects.get().site_key == "k"


def test_the_outbox_is_read_only(admin_client) -> None:
    assert admin_client.get("/admin/linksite/outboxentry/").status_code == 200
    assert admin_client.get("/admin/linksite/outboxentry/add/").status_code == 403
