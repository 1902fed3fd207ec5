"""The jackpots' side of the significant-events register: a hit's void and a table round's void, every key
and screen token issued or revoked (machine, gateway, table, screen; by the admin, by the revoke command),
each one row with its venue, subject, person and detail, in the transaction of what it records."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction

from common.credentials import credentials_revoke, screen_token_issue, screen_token_revoke
from floor.models import SignificantEvent
from jackpots.services import contributions_apply, hit_void
from jackpots.services.errors import EngineError
from jackpots.services.keys import key_revoke
from jackpots.services.levels import level_create
from slots.models import GatewayKey, MachineKey
from slots.services.keys import gateway_key_issue, machine_key_issue
from tables.models import TableKey
from tables.services import table_key_issue
from tests.factories import SignageScreenFactory, SlotMachineFactory
from tests.jackpots.factories import GameEventFactory, JackpotEventFactory
from tests.jackpots.helpers import GRAND, progressive_with_machines
from tests.tables.factories import body, seat, tables_ready

pytestmark = pytest.mark.django_db

FIELDS = ("kind", "venue_id", "subject", "machine_id", "level_id", "user_id", "detail", "reference")


def rows(*kinds: str) -> list[tuple]:
    return list(SignificantEvent.objects.filter(kind__in=kinds).order_by("id").values_list(*FIELDS))


@pytest.fixture
def manager(db):
    return get_user_model().objects.create_user("giulia", first_name="Giulia", last_name="Rossi")


def test_a_hit_void_writes_one_row(manager):
    progressive, machines = progressive_with_machines(2)
    level = level_create(progressive, name="Grand", position=1, params=GRAND)
    GameEventFactory(machine=machines[1], wager_cents=10_000)
    JackpotEventFactory(machine=machines[1], level_id=level.id, amount_cents=152_347)
    contributions_apply()
    hit = level.hit_records.get()
    with pytest.raises(EngineError):
        hit_void(hit, manager, " ")  # refused: no row
    assert rows("void") == []
    hit_void(hit, manager, "reel malfunction")
    hit.refresh_from_db()
    assert rows("void") == [
        (
            "void",
            machines[1].room.venue_id,
            machines[1].asset_number,
            machines[1].pk,
            level.pk,
            manager.pk,
            f"Hit {hit.ref} of EUR 1001.00 voided: reel malfunction",
            hit.ref,
        )
    ]
    assert SignificantEvent.objects.get(kind="void").at == hit.voided_at


def test_a_round_void_writes_one_row(manager):
    t = tables_ready()
    t.post("VEN-CHE-1", body("C-1", [seat(1, "KC KD", 500)], community="2C 5S 7D TH 3S"))
    table = t.table("VEN-CHE-1")
    t.void("VEN-CHE-1", "C-1", "shuffler jammed")
    user = get_user_model().objects.get(username="floor-manager")
    assert rows("void") == [
        (
            "void",
            table.venue_id,
            "VEN-CHE-1",
            None,
            table.progressive.pay_table.level_id,
            user.pk,
            "Round C-1 voided: shuffler jammed",
            "table VEN-CHE-1 round C-1",
        )
    ]
    t.void("VEN-CHE-1", "C-1", "again")  # a voided round answers the same again: no second row
    assert len(rows("void")) == 1


def test_machine_and_gateway_keys_issued_and_revoked(manager):
    machine = SlotMachineFactory(asset_number="NOG-0107")
    venue = machine.room.venue
    machine_key, _ = machine_key_issue(machine, created_by=manager)
    gateway_key, _ = gateway_key_issue(venue)
    assert rows("key_issued") == [
        (
            "key_issued",
            venue.pk,
            "NOG-0107",
            machine.pk,
            None,
            manager.pk,
            f"machine key {machine_key.prefix}… issued",
            machine_key.prefix,
        ),
        (
            "key_issued",
            venue.pk,
            f"Gateway {venue.code}",
            None,
            None,
            None,
            f"gateway key {gateway_key.prefix}… issued",
            gateway_key.prefix,
        ),
    ]
    assert credentials_revoke(MachineKey.objects.all(), by=manager) == 1
    assert credentials_revoke(MachineKey.objects.all(), by=manager) == 0  # already revoked: no row
    assert key_revoke(gateway_key.prefix) == f"gateway key {gateway_key}"
    assert rows("key_revoked") == [
        (
            "key_revoked",
            venue.pk,
            "NOG-0107",
            machine.pk,
            None,
            manager.pk,
            f"machine key {machine_key.prefix}… revoked",
            machine_key.prefix,
        ),
        (
            "key_revoked",
            venue.pk,
            f"Gateway {venue.code}",
            None,
            None,
            None,
            f"gateway key {gateway_key.prefix}… revoked",
            gateway_key.prefix,
        ),
    ]


def test_a_table_key_and_a_screen_token(manager):
    t = tables_ready()
    assert SignificantEvent.objects.filter(kind="key_issued").count() == len(t.keys)  # one per table
    table = t.table("NOG-CSP-1")
    key, _ = table_key_issue(table, created_by=manager)
    assert rows("key_issued")[-1] == (
        "key_issued",
        table.venue_id,
        "NOG-CSP-1",
        None,
        None,
        manager.pk,
        f"table key {key.prefix}… issued",
        key.prefix,
    )
    screen = SignageScreenFactory(slug="noghera-sala-1")
    screen_token_issue(screen, by=manager)
    screen.refresh_from_db()
    screen_token_revoke(screen, by=manager)
    screen_token_revoke(screen, by=manager)  # no token left: nothing revoked, no row
    assert rows("key_issued", "key_revoked")[-2:] == [
        (
            "key_issued",
            screen.venue_id,
            "Screen noghera-sala-1",
            None,
            None,
            manager.pk,
            f"signage screen {screen.token_prefix}… issued",
            screen.token_prefix,
        ),
        (
            "key_revoked",
            screen.venue_id,
            "Screen noghera-sala-1",
            None,
            None,
            manager.pk,
            f"signage screen {screen.token_prefix}… revoked",
            screen.token_prefix,
        ),
    ]
    assert TableKey.objects.filter(pk=key.pk).exists()


def test_a_key_and_its_row_land_together_or_not_at_all(manager):
    machine = SlotMachineFactory()
    with pytest.raises(RuntimeError), transaction.atomic():
        machine_key_issue(machine, created_by=manager)
        raise RuntimeError("the caller's transaction fails")
    assert (MachineKey.objects.count(), rows("key_issued")) == (0, [])
    assert GatewayKey.objects.count() == 0


def test_the_stored_detail_is_in_english_whatever_the_issuers_language(manager):
    from django.utils import translation

    machine = SlotMachineFactory(asset_number="NOG-0108")
    with translation.override("it"):
        key, _ = machine_key_issue(machine, created_by=manager)
    assert SignificantEvent.objects.get(kind="key_issued").detail == f"machine key {key.prefix}… issued"
