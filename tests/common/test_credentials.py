"""Machine and gateway keys, screen tokens: issue, verify, revoke; the commands and the admin actions."""

from __future__ import annotations

import hashlib
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from common.credentials import credential_find, credentials_revoke, screen_token_matches
from slots.models import GatewayKey, MachineKey
from slots.services.keys import gateway_key_issue, machine_key_issue
from tests.factories import SignageScreenFactory, SlotMachineFactory, VenueFactory

pytestmark = pytest.mark.django_db


def test_a_machine_key_authenticates_until_revoked() -> None:
    machine = SlotMachineFactory(asset_number="NOG-0101")
    credential, key = machine_key_issue(machine)

    found = credential_find(MachineKey, key)
    assert found == credential
    assert found.machine == machine
    assert found.last_used_at is not None

    credential.refresh_from_db()
    assert credential.digest == hashlib.sha256(key.encode()).hexdigest()
    assert key not in {credential.digest, credential.prefix}
    assert key.startswith(credential.prefix)
    assert key.startswith("pv_mach_")

    assert credentials_revoke(MachineKey.objects.filter(pk=credential.pk)) == 1
    assert credential_find(MachineKey, key) is None
    assert credentials_revoke(MachineKey.objects.filter(pk=credential.pk)) == 0


def test_a_wrong_or_empty_key_finds_nothing() -> None:
    _credential, key = machine_key_issue(SlotMachineFactory())
    assert credential_find(MachineKey, key + "x") is None
    assert credential_find(MachineKey, "") is None
    assert credential_find(GatewayKey, key) is None  # a machine key is no gateway key


def test_gateway_keys_belong_to_their_venue() -> None:
    venue = VenueFactory(code="VEN", name="Ca' Vendramin Calergi")
    credential, key = gateway_key_issue(venue)
    assert credential_find(GatewayKey, key) == credential
    assert credential.venue == venue
    assert key.startswith("pv_gw_")


def test_issue_key_prints_only_the_key() -> None:
    machine = SlotMachineFactory(asset_number="NOG-0101")
    out = StringIO()
    call_command("issue_key", "NOG-0101", stdout=out)

    key = out.getvalue().strip()
    assert out.getvalue() == key + "\n"
    assert credential_find(MachineKey, key).machine == machine


def test_issue_key_for_a_gateway_prints_only_the_key() -> None:
    venue = VenueFactory(code="NOG")
    out = StringIO()
    call_command("issue_key", "--gateway", "nog", stdout=out)

    key = out.getvalue().strip()
    assert out.getvalue() == key + "\n"
    assert credential_find(GatewayKey, key).venue == venue


def test_issue_key_for_an_unknown_machine_or_venue_fails_and_issues_nothing() -> None:
    with pytest.raises(CommandError, match="No machine has the asset number 'NOG-9999'"):
        call_command("issue_key", "NOG-9999")
    with pytest.raises(CommandError, match="No venue has the code 'XXX'"):
        call_command("issue_key", "--gateway", "XXX")
    assert MachineKey.objects.count() == 0
    assert GatewayKey.objects.count() == 0


def test_issue_screen_token_replaces_the_previous_token() -> None:
    screen = SignageScreenFactory(slug="nog-1")
    first, second = StringIO(), StringIO()
    call_command("issue_screen_token", "nog-1", stdout=first)
    call_command("issue_screen_token", "nog-1", stdout=second)

    screen.refresh_from_db()
    old, new = first.getvalue().strip(), second.getvalue().strip()
    assert second.getvalue() == new + "\n"
    assert not screen_token_matches(screen, old)
    assert screen_token_matches(screen, new)
    assert screen.token_digest == hashlib.sha256(new.encode()).hexdigest()
    with pytest.raises(CommandError, match="No signage screen has the slug 'nope'"):
        call_command("issue_screen_token", "nope")


def _action(client: Client, url: str, action: str, ids: list[int]):
    return client.post(url, {"action": action, "_selected_action": ids})


def test_admin_issues_machine_keys_and_shows_each_once(floor_manager, client: Client) -> None:
    machines = [SlotMachineFactory(asset_number=f"NOG-010{n}") for n in (1, 2)]
    client.force_login(floor_manager)
    response = _action(client, "/admin/slots/slotmachine/", "issue_machine_key", [m.pk for m in machines])

    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store, private, max-age=0, no-cache, must-revalidate"
    page = response.content.decode()
    for machine in machines:
        [credential] = MachineKey.objects.filter(machine=machine)
        shown = page.split(f'{machine.asset_number} {machine.game_title}</td><td><code class="issued-key">')[
            1
        ]
        key = shown.split("</code>")[0]
        assert credential_find(MachineKey, key) == credential
    # The list shows only prefixes afterwards.
    listing = client.get("/admin/slots/machinekey/").content.decode()
    assert key not in listing
    assert credential.prefix in listing


def test_admin_revokes_keys(floor_manager, client: Client) -> None:
    credential, key = machine_key_issue(SlotMachineFactory())
    client.force_login(floor_manager)
    response = _action(client, "/admin/slots/machinekey/", "revoke", [credential.pk])

    assert response.status_code == 302
    assert credential_find(MachineKey, key) is None
    credential.refresh_from_db()
    assert credential.revoked_at is not None


def test_auditor_cannot_revoke_keys(auditor, client: Client) -> None:
    credential, key = machine_key_issue(SlotMachineFactory())
    client.force_login(auditor)
    _action(client, "/admin/slots/machinekey/", "revoke", [credential.pk])
    assert credential_find(MachineKey, key) == credential


def test_admin_issues_a_gateway_key(floor_manager, client: Client) -> None:
    venue = VenueFactory(code="VEN", name="Ca' Vendramin Calergi")
    client.force_login(floor_manager)
    response = _action(client, "/admin/floor/venue/", "issue_gateway_key", [venue.pk])

    key = response.content.decode().split('<code class="issued-key">')[1].split("</code>")[0]
    assert credential_find(GatewayKey, key).venue == venue


def test_admin_issues_a_screen_token(floor_manager, client: Client) -> None:
    screen = SignageScreenFactory(slug="ven-2")
    client.force_login(floor_manager)
    response = _action(client, "/admin/floor/signagescreen/", "issue_token", [screen.pk])

    token = response.content.decode().split('<code class="issued-key">')[1].split("</code>")[0]
    screen.refresh_from_db()
    assert screen_token_matches(screen, token)
    assert screen.token_prefix == token[:16]
