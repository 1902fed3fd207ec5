"""The link in the admin: a site's key issued and shown once, keys revoked at once, the reconciliation
page, entries, members' progress and awards read-only."""

from __future__ import annotations

import re
import sys
import types
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from linkcentral.models import LinkAward, LinkEntry, LinkMember, LinkSiteKey
from linkcentral.services.entries import entries_receive
from linkcentral.services.keys import site_key_bearer
from tests.linkcentral.api_factories import Link, award_make, batch, claim, contribution, link_ready, post

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.linkcentral.link_urls")]


@pytest.fixture
def link(monkeypatch: pytest.MonkeyPatch) -> Link:
    task = types.SimpleNamespace(delay=lambda pool_id: None)
    monkeypatch.setitem(sys.modules, "linkcentral.tasks", types.SimpleNamespace(link_entries_apply_task=task))
    return link_ready()


def test_a_sites_key_is_issued_shown_once_and_opens_the_link(link: Link, admin_client: Client, admin_user):
    response = admin_client.post(
        "/admin/linkcentral/linksite/", {"action": "issue_site_key", "_selected_action": [link.chx.pk]}
    )
    assert response.status_code == 200
    key = re.search(r'class="issued-key">([^<]+)<', response.content.decode()).group(1)
    assert key.startswith("pv_site_")
    assert response["Cache-Control"].startswith("no-store, private")
    issued = LinkSiteKey.objects.get(site=link.chx, created_by=admin_user)
    assert site_key_bearer(f"Bearer {key}") == issued
    assert post(batch(contribution(1)), key).status_code == 200
    # Shown once: the site's page lists the key's prefix, never the key.
    page = admin_client.get(f"/admin/linkcentral/linksite/{link.chx.pk}/change/").content.decode()
    assert issued.prefix in page
    assert key not in page


def test_revoking_a_sites_keys_refuses_them_at_once(link: Link, admin_client: Client):
    response = admin_client.post(
        "/admin/linkcentral/linksite/", {"action": "revoke_site_keys", "_selected_action": [link.chx.pk]}
    )
    assert response.status_code == 302
    assert list(LinkSiteKey.objects.filter(revoked_at__isnull=True).values_list("site__code", flat=True)) == [
        "NOG"
    ]
    assert post(batch(contribution(1)), link.chx_key).status_code == 401
    key = LinkSiteKey.objects.get(site=link.nog)
    admin_client.post("/admin/linkcentral/linksitekey/", {"action": "revoke", "_selected_action": [key.pk]})
    assert post(batch(contribution(1, rate="1", currency="EUR")), link.nog_key).status_code == 401


def test_the_reconciliation_page_shows_each_pool_and_site(link: Link, admin_client: Client):
    entries_receive(link.chx, batch(contribution(1, 1500)), timezone.now())
    changelist = admin_client.get("/admin/linkcentral/linkedpool/").content.decode()
    assert "/admin/linkcentral/linkedpool/reconciliation/" in changelist
    response = admin_client.get("/admin/linkcentral/linkedpool/reconciliation/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "JUMBO7 (EUR)" in page
    assert "CHX (Casinò Lugano)" in page
    assert "CHF\u00a015.00" in page
    assert "€\u00a016.04" in page
    assert "balanced" in page
    pool_page = admin_client.get(f"/admin/linkcentral/linkedpool/{link.pool.pk}/change/")
    assert pool_page.status_code == 200
    assert "played through" in pool_page.content.decode().lower()


def test_a_staff_member_without_the_links_permissions_does_not_see_it(link: Link):
    user = get_user_model().objects.create_user(username="clerk", password="x", is_staff=True)
    client = Client()
    client.force_login(user)
    assert client.get("/admin/linkcentral/linkedpool/reconciliation/").status_code == 403
    client.post(
        "/admin/linkcentral/linksite/", {"action": "issue_site_key", "_selected_action": [link.chx.pk]}
    )
    assert LinkSiteKey.objects.count() == 2


def test_entries_members_and_awards_are_read_only(link: Link, admin_client: Client):
    now = timezone.now()
    entries_receive(link.chx, batch(contribution(1, 1500), claim(2, [(3, 500)])), now)
    entry = LinkEntry.objects.get(seq=1)
    claim_row = LinkEntry.objects.get(seq=2)
    award = award_make(link, 1_000_000, [(claim_row, 3, 1_000_000, 935)])
    assert admin_client.get("/admin/linkcentral/linkentry/").status_code == 200
    assert admin_client.get("/admin/linkcentral/linkentry/add/").status_code == 403
    assert (
        admin_client.post(f"/admin/linkcentral/linkentry/{entry.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    edited = admin_client.post(f"/admin/linkcentral/linkentry/{entry.pk}/change/", {"wagered_cents": 1})
    assert edited.status_code == 403
    entry.refresh_from_db()
    assert entry.wagered_cents == 1500
    member = LinkMember.objects.get(pk=link.chx_member.pk)
    assert (
        admin_client.post(f"/admin/linkcentral/linkmember/{member.pk}/change/", {"acked_seq": 0}).status_code
        == 403
    )
    member.refresh_from_db()
    assert member.acked_seq == 2
    page = admin_client.get(f"/admin/linkcentral/linkaward/{award.pk}/change/")
    assert page.status_code == 200
    assert "935" in page.content.decode()
    assert (
        admin_client.post(f"/admin/linkcentral/linkaward/{award.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    assert LinkAward.objects.count() == 1


def test_the_key_commands_issue_and_revoke_a_sites_key(link: Link):
    out = StringIO()
    call_command("issue_key", "--site", "CHX", stdout=out)
    key = out.getvalue().strip()
    assert key.startswith("pv_site_")
    assert site_key_bearer(f"Bearer {key}").site == link.chx
    call_command("revoke_key", key, stdout=StringIO())
    assert site_key_bearer(f"Bearer {key}") is None
    with pytest.raises(CommandError, match="No link site has the code 'NOPE'"):
        call_command("issue_key", "--site", "NOPE", stdout=StringIO())


def test_a_floor_manager_issues_a_sites_key_and_reads_what_the_sites_sent(link: Link, floor_manager):
    """The roles (floor/roles.py): a manager adds a casino and issues or revokes its key; what the sites
    sent, the members' progress and the awards are the product's records, read only."""
    client = Client()
    client.force_login(floor_manager)
    response = client.post(
        "/admin/linkcentral/linksite/", {"action": "issue_site_key", "_selected_action": [link.chx.pk]}
    )
    key = re.search(r'class="issued-key">([^<]+)<', response.content.decode()).group(1)
    assert LinkSiteKey.objects.get(site=link.chx, created_by=floor_manager).digest != ""
    assert post(batch(contribution(1)), key).status_code == 200
    assert client.get("/admin/linkcentral/linkentry/").status_code == 200
    entry = LinkEntry.objects.get()
    assert client.post(f"/admin/linkcentral/linkentry/{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    assert floor_manager.has_perm("linksite.change_linkmembership")
    assert not floor_manager.has_perm("linksite.change_outboxentry")


def test_an_attendant_sees_nothing_of_the_link(link: Link, slot_attendant):
    client = Client()
    client.force_login(slot_attendant)
    assert client.get("/admin/linkcentral/linksite/").status_code == 403
