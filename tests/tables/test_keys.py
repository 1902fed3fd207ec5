"""Table keys are listed and revoked like machine and gateway keys: from the admin's keys list and with
``manage.py revoke_key``; a revoked key is refused on the table's next request."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from common.credentials import credential_issue, screen_token_issue
from floor.roles import AUDITOR, FLOOR_MANAGER
from slots.models import MachineKey
from tables.models import TableKey
from tests.factories import SignageScreenFactory, SlotMachineFactory
from tests.jackpots.helpers import logged_in
from tests.tables.factories import body, seat, tables_ready

pytestmark = pytest.mark.django_db


def _round(t, key: str, round_id: str, code: str = "NOG-CSP-1") -> int:
    return t.post(code, body(round_id, [seat(1, "2C 5D 7H 9S JC")]), key=key).status_code


def test_a_floor_manager_revokes_a_table_key_from_the_keys_list_and_it_stops_at_once() -> None:
    t = tables_ready()
    key = t.keys["NOG-CSP-1"]
    credential = TableKey.objects.get(table__code="NOG-CSP-1")
    assert _round(t, key, "K-1") == 201
    client, _manager = logged_in(FLOOR_MANAGER)
    listing = client.get("/admin/tables/tablekey/")
    assert listing.status_code == 200
    assert credential.prefix in listing.content.decode()
    response = client.post(
        "/admin/tables/tablekey/", {"action": "revoke", "_selected_action": [credential.pk]}, follow=True
    )
    assert response.status_code == 200
    assert "1 key revoked." in response.content.decode()
    credential.refresh_from_db()
    assert credential.revoked_at is not None
    answer = t.post("NOG-CSP-1", body("K-2", [seat(1, "2C 5D 7H 9S JC")]), key=key)
    assert answer.status_code == 401
    assert answer.json() == {
        "error": "unauthorized",
        "detail": "A table key is required: Authorization: Bearer <key>.",
    }


def test_an_auditor_sees_table_keys_but_cannot_revoke_them() -> None:
    tables_ready()
    client, _auditor = logged_in(AUDITOR)
    credential = TableKey.objects.get(table__code="NOG-CSP-1")
    assert client.get("/admin/tables/tablekey/").status_code == 200
    client.post("/admin/tables/tablekey/", {"action": "revoke", "_selected_action": [credential.pk]})
    credential.refresh_from_db()
    assert credential.revoked_at is None


def test_revoke_key_by_the_listed_prefix_stops_the_table_key() -> None:
    t = tables_ready()
    key = t.keys["NOG-CSP-1"]
    credential = TableKey.objects.get(table__code="NOG-CSP-1")
    out = StringIO()
    call_command("revoke_key", credential.prefix, stdout=out)
    assert out.getvalue() == f"Revoked: table key {credential.prefix}… (NOG-CSP-1).\n"
    assert _round(t, key, "K-3") == 401
    assert _round(t, t.keys["NOG-CSP-2"], "K-4", "NOG-CSP-2") == 201  # the other tables' keys still work


def test_revoke_key_takes_a_whole_machine_key_and_a_screen_token() -> None:
    machine = SlotMachineFactory(asset_number="NOG-0101")
    credential, key = credential_issue(MachineKey, kind="mach", machine=machine)
    call_command("revoke_key", key, stdout=StringIO())
    credential.refresh_from_db()
    assert credential.revoked_at is not None
    screen = SignageScreenFactory()
    token = screen_token_issue(screen)
    out = StringIO()
    call_command("revoke_key", token, stdout=out)
    screen.refresh_from_db()
    assert (screen.token_digest, out.getvalue()) == ("", f"Revoked: screen token of {screen.slug}.\n")


def test_revoke_key_refuses_what_names_no_active_key() -> None:
    tables_ready()
    credential = TableKey.objects.get(table__code="NOG-CSP-1")
    call_command("revoke_key", credential.prefix, stdout=StringIO())
    with pytest.raises(CommandError, match="No active key or screen token is"):
        call_command("revoke_key", credential.prefix, stdout=StringIO())
    with pytest.raises(CommandError, match="No active key or screen token is 'pv_nothing'"):
        call_command("revoke_key", "pv_nothing", stdout=StringIO())
    assert TableKey.objects.filter(revoked_at__isnull=False).count() == 1


def test_issue_key_names_a_table_through_the_option_tables_registers() -> None:
    """``issue_key`` is the engine's command; its ``--table`` comes from the tables app's provider."""
    t = tables_ready()
    keys = TableKey.objects.filter(table__code="NOG-CSP-1").count()
    out = StringIO()
    call_command("issue_key", "--table", "nog-csp-1", stdout=out)
    key = out.getvalue().strip()
    assert key.startswith("pv_tbl_")
    assert TableKey.objects.filter(table__code="NOG-CSP-1").count() == keys + 1
    assert _round(t, key, "K-9") == 201
    with pytest.raises(CommandError, match=r"^No table has the code 'XX-1'\.$"):
        call_command("issue_key", "--table", "XX-1", stdout=StringIO())
