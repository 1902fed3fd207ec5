"""The table games left the engine for their own app without moving a row: an installation migrates in
place. A hit a table paid keeps its payer (the table and the key), and the permissions people and groups
hold on the table models stay the same rows under the new app label. Migrating back gives both back."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection

from jackpots.models import Hit
from jackpots.services.hit_payment import hit_payer
from tables.models import HitTablePayment, TableKey
from tests.migrations import migrate, migrate_latest
from tests.tables.factories import body, seat, tables_ready

# The leaves before the move: the engine still held the table models and the hit its table payer.
BEFORE = [
    ("jackpots", "0020_merge_lifecycle"),
    ("workspace", "0004_dayclose_progressive_register"),
    ("tables", None),
]


def _hit_columns(hit_id: int) -> tuple[int | None, int | None]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT paid_by_table_id, paid_by_key_id FROM jackpots_hit WHERE id = %s", [hit_id])
        return cursor.fetchone()


def _app_label(permission_id: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.app_label FROM auth_permission p JOIN django_content_type c ON c.id = p.content_type_id"
            " WHERE p.id = %s",
            [permission_id],
        )
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_the_table_payer_and_the_permissions_survive_the_move_both_ways():
    t = tables_ready()
    assert t.post("NOG-CSP-1", body("R-1", [seat(1, "9H 8H 7H 6H 5H")])).status_code == 201
    hit = Hit.objects.get()
    key = TableKey.objects.get(table__code="NOG-CSP-1")
    payment = HitTablePayment.objects.get(hit=hit)
    assert (payment.table_id, payment.key_id) == (key.table_id, key.pk)
    release = Permission.objects.get(content_type__app_label="tables", codename="release_tabledeclaration")
    supervisors = Group.objects.create(name="Supervisors")
    supervisors.permissions.add(release)
    user = get_user_model().objects.create_user(username="sara")
    user.groups.add(supervisors)

    migrate(BEFORE)
    try:
        # Back on the engine: the hit's own columns name the table and the key again.
        assert _hit_columns(hit.pk) == (key.table_id, key.pk)
        assert _app_label(release.pk) == "jackpots"
    finally:
        migrate_latest()
    ContentType.objects.clear_cache()

    payment = HitTablePayment.objects.select_related("table").get(hit=hit)
    assert (payment.table.code, payment.key_id) == ("NOG-CSP-1", key.pk)
    assert hit_payer(Hit.objects.get(pk=hit.pk)) == "table NOG-CSP-1"
    assert _app_label(release.pk) == "tables"
    assert list(supervisors.permissions.values_list("pk", flat=True)) == [release.pk]
    assert get_user_model().objects.get(pk=user.pk).has_perm("tables.release_tabledeclaration")
