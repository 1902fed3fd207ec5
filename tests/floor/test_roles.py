"""Each role's access to the admin: 200 where allowed, 403 (or the login page) where not."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib.auth.models import Group, Permission
from django.core.management.sql import emit_post_migrate_signal
from django.test import Client

from floor.roles import AUDITOR, FLOOR_MANAGER, ROLES, SLOT_ATTENDANT, roles_apply, roles_post_migrate
from slots.models import MachineKey
from tests.factories import SlotMachineFactory
from tests.staff_fixtures import staff_member

pytestmark = pytest.mark.django_db

ALL = {FLOOR_MANAGER: 200, SLOT_ATTENDANT: 200, AUDITOR: 200}
MANAGER_ONLY = {FLOOR_MANAGER: 200, SLOT_ATTENDANT: 403, AUDITOR: 403}
AUDITOR_ONLY = {FLOOR_MANAGER: 403, SLOT_ATTENDANT: 403, AUDITOR: 200}

PAGES = [
    ("/admin/", ALL),
    ("/admin/floor/venue/", ALL),
    ("/admin/floor/venue/add/", MANAGER_ONLY),
    ("/admin/floor/room/", ALL),
    ("/admin/floor/room/add/", MANAGER_ONLY),
    ("/admin/floor/bank/", ALL),
    ("/admin/floor/bank/add/", MANAGER_ONLY),
    ("/admin/floor/signagescreen/", ALL),
    ("/admin/floor/signagescreen/add/", MANAGER_ONLY),
    ("/admin/slots/slotmachine/", ALL),
    ("/admin/slots/slotmachine/?room__venue__id__exact=1&status__exact=in_service&q=Diamond", ALL),
    ("/admin/slots/slotmachine/add/", MANAGER_ONLY),
    ("/admin/slots/slotmachine/{machine}/change/", ALL),
    ("/admin/slots/slotmachine/{machine}/delete/", MANAGER_ONLY),
    ("/admin/slots/machinekey/", ALL),
    ("/admin/slots/gatewaykey/", ALL),
    ("/admin/auth/user/", AUDITOR_ONLY),
    ("/admin/auth/group/", AUDITOR_ONLY),
]


@pytest.mark.parametrize(("path", "expected"), PAGES, ids=[page[0] for page in PAGES])
def test_each_role_reaches_what_it_may(role_users, client: Client, path: str, expected: dict) -> None:
    machine = SlotMachineFactory()
    url = path.format(machine=machine.pk)
    for role, user in role_users.items():
        client.force_login(user)
        assert client.get(url).status_code == expected[role], role


def test_view_only_roles_cannot_save_a_machine(role_users, client: Client) -> None:
    machine = SlotMachineFactory(game_title="Diamond Vault")
    url = f"/admin/slots/slotmachine/{machine.pk}/change/"
    for role in (SLOT_ATTENDANT, AUDITOR):
        client.force_login(role_users[role])
        response = client.post(url, {"game_title": "Changed"})
        assert response.status_code == 403, role
    machine.refresh_from_db()
    assert machine.game_title == "Diamond Vault"


def test_view_only_pages_have_no_save_button(role_users, client: Client) -> None:
    machine = SlotMachineFactory()
    url = f"/admin/slots/slotmachine/{machine.pk}/change/"
    client.force_login(role_users[AUDITOR])
    assert 'name="_save"' not in client.get(url).content.decode()
    client.force_login(role_users[FLOOR_MANAGER])
    assert 'name="_save"' in client.get(url).content.decode()


def test_anonymous_and_non_staff_are_sent_to_the_login_page(client: Client) -> None:
    response = client.get("/admin/floor/venue/")
    assert response.status_code == 302
    assert response["Location"] == "/admin/login/?next=/admin/floor/venue/"
    client.force_login(staff_member("player", FLOOR_MANAGER, is_staff=False))
    response = client.get("/admin/floor/venue/")
    assert response.status_code == 302
    assert response["Location"] == "/admin/login/?next=/admin/floor/venue/"


def test_staff_without_a_role_sees_nothing(client: Client) -> None:
    client.force_login(staff_member("newcomer", None))
    assert client.get("/admin/floor/venue/").status_code == 403
    assert client.get("/admin/slots/slotmachine/").status_code == 403


def test_only_the_floor_manager_may_issue_keys(role_users, client: Client) -> None:
    machine = SlotMachineFactory()
    for role in (SLOT_ATTENDANT, AUDITOR):
        client.force_login(role_users[role])
        client.post(
            "/admin/slots/slotmachine/", {"action": "issue_machine_key", "_selected_action": [machine.pk]}
        )
    assert MachineKey.objects.count() == 0
    client.force_login(role_users[FLOOR_MANAGER])
    response = client.post(
        "/admin/slots/slotmachine/", {"action": "issue_machine_key", "_selected_action": [machine.pk]}
    )
    assert response.status_code == 200
    assert MachineKey.objects.filter(machine=machine, created_by=role_users[FLOOR_MANAGER]).count() == 1


def _codenames(role: str) -> set[str]:
    return {
        f"{app}.{codename}"
        for app, codename in Group.objects.get(name=role).permissions.values_list(
            "content_type__app_label", "codename"
        )
    }


def test_role_permissions_follow_the_mapping() -> None:
    manager = _codenames(FLOOR_MANAGER)
    attendant = _codenames(SLOT_ATTENDANT)
    auditor = _codenames(AUDITOR)

    assert {
        "floor.change_venue",
        "floor.add_room",
        "slots.change_slotmachine",
        "slots.add_machinekey",
    } <= manager
    assert {"slots.change_machineevent", "slots.delete_machineevent", "auth.change_user"}.isdisjoint(manager)
    assert {
        "floor.add_significantevent",
        "floor.change_significantevent",
        "floor.delete_significantevent",
    }.isdisjoint(manager)
    assert "floor.view_significantevent" in manager
    # The SAS gateways' award answers moved to gatewaylink: the managers still read them, nothing more.
    assert {codename for codename in manager if codename.endswith("_sasaward")} == {
        "gatewaylink.view_sasaward"
    }
    # The signs' themes (the signage app): floor managers edit them and see the screens' presence.
    assert {code for code in manager if code.startswith("signage.")} == {
        "signage.view_signtheme",
        "signage.add_signtheme",
        "signage.change_signtheme",
        "signage.delete_signtheme",
        "signage.view_screenpresence",
    }
    assert attendant == {
        "floor.view_venue",
        "floor.view_room",
        "floor.view_bank",
        "floor.view_signagescreen",
        "floor.view_significantevent",
        "slots.view_slotmachine",
        "slots.view_machinekey",
        "slots.view_gatewaykey",
        "slots.view_machineevent",
        "slots.view_machinemeter",
        "slots.view_meterdelta",
        "slots.view_machinealert",
        "slots.view_offlineperiod",
        # The workspace: the live map, the hits queue and verifying (floor managers pay and void).
        "floor.view_floor_map",
        "floor.verify_hit",
        "jackpots.view_progressive",
        "jackpots.view_level",
        "jackpots.view_hit",
    }
    every_view = {
        f"{app}.{codename}"
        for app, codename in Permission.objects.filter(codename__startswith="view_").values_list(
            "content_type__app_label", "codename"
        )
    }
    # Auditors alone see mystery triggers (rule 9).
    assert auditor == every_view | {"floor.see_mystery_trigger", "floor.see_winner_identity"}
    assert "floor.see_mystery_trigger" not in manager | attendant
    assert "floor.see_winner_identity" not in manager | attendant


def test_roles_apply_is_idempotent_and_restores_the_mapping() -> None:
    group = Group.objects.get(name=SLOT_ATTENDANT)
    expected = set(group.permissions.all())
    group.permissions.add(Permission.objects.get(codename="delete_venue"))
    group.permissions.remove(Permission.objects.get(codename="view_bank"))

    roles_apply()
    roles_apply()

    assert set(group.permissions.all()) == expected
    assert sorted(Group.objects.filter(name__in=ROLES).values_list("name", flat=True)) == sorted(ROLES)


def test_the_roles_are_applied_once_a_migrate_at_the_last_apps_signal(django_assert_max_num_queries) -> None:
    """post_migrate is sent for each app: the roles wait for the last one, when every permission exists."""
    configs = [config for config in apps.get_app_configs() if config.models_module is not None]
    group = Group.objects.get(name=SLOT_ATTENDANT)
    expected = set(group.permissions.all())
    group.permissions.clear()
    with django_assert_max_num_queries(0):
        for config in configs[:-1]:
            roles_post_migrate(config)
    assert set(group.permissions.all()) == set()
    roles_post_migrate(configs[-1])
    assert set(group.permissions.all()) == expected


def test_a_flush_leaves_every_role_with_its_permissions() -> None:
    """The flush of a transactional test sends post_migrate again: the groups come back whole."""
    expected = {name: set(Group.objects.get(name=name).permissions.all()) for name in ROLES}
    Group.objects.filter(name=FLOOR_MANAGER).delete()
    for group in Group.objects.filter(name__in=ROLES):
        group.permissions.clear()
    emit_post_migrate_signal(verbosity=0, interactive=False, db="default")
    assert {name: set(Group.objects.get(name=name).permissions.all()) for name in ROLES} == expected
