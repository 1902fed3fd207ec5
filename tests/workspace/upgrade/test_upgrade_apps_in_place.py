"""An installation upgrades in place when the table games, the signs and the gateway's server side leave
the engine for apps of their own: the database of the code before the move (``main_before_apps.json``,
made by ``make_fixture_apps.py`` on commit 81f7281) migrates with every row, id and value kept, the staff's
permissions on the moved models still resolve, the engine's audit is clean and the tables take a new round.

The test migrates a database back to that code's leaf migrations, makes its content types and permissions
those of that code (as an installation of it has them), loads the rows through the historical models,
runs ``migrate`` as an upgrade does, and reads everything back through the current models, wherever they
live now (``MOVED``).
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps as current_apps
from django.contrib.auth.management import create_permissions
from django.contrib.contenttypes.models import ContentType
from django.core import serializers
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from tests.migrations import migrate

# Where each model that moved lives after the move ("app.model" before -> after); exchange rates stayed in
# the engine (the pool's currency). Models not listed stay where they are.
# To pass, the move must also carry the content types (a migration renaming them, so that permissions
# already granted follow the models) and the staff roles' rules (floor/roles.py) to the new app labels.
MOVED: dict[str, str] = {
    "jackpots.exchangerate": "jackpots.exchangerate",  # stays: the engine's currency
    "jackpots.paytable": "tables.paytable",  # tables
    "jackpots.payline": "tables.payline",  # tables
    "jackpots.paytablechange": "tables.paytablechange",  # tables
    "jackpots.table": "tables.table",  # tables
    "jackpots.tablekey": "tables.tablekey",  # tables
    "jackpots.prizeshare": "tables.prizeshare",  # tables
    "jackpots.tableround": "tables.tableround",  # tables
    "jackpots.tableseat": "tables.tableseat",  # tables
    "jackpots.prizepart": "tables.prizepart",  # tables
    "jackpots.tabledeclaration": "tables.tabledeclaration",  # tables
    "jackpots.signtheme": "signage.signtheme",  # signage
    "jackpots.screenpresence": "signage.screenpresence",  # signage
    "jackpots.sasaward": "gatewaylink.sasaward",  # gatewaylink
}

# A hit's table payer left the engine's Hit for the tables app's record of it (tables.HitTablePayment):
# compared there, hit by hit, below.
HIT_TABLE_PAYER = ("paid_by_table", "paid_by_key")

FIXTURE = Path(__file__).with_name("main_before_apps.json")
# The leaf migrations of the code that made the fixture.
BEFORE_APPS = [
    ("floor", "0011_significant_events"),
    ("slots", "0010_paymachine_offline_periods"),
    ("jackpots", "0020_merge_lifecycle"),
    ("workspace", "0004_dayclose_progressive_register"),
]
# Rows of these are rewritten by every migrate (the role groups' permissions): compared on their own.
REAPPLIED = {"auth.group"}
FLUSH = ["2H", "5H", "8H", "JH", "KH"]


def model_now(label: str):
    """The current model of a fixture's ``app.model`` label."""
    return current_apps.get_model(MOVED.get(label, label))


def _targets(executor: MigrationExecutor) -> list[tuple[str, str | None]]:
    """The old leaves, and nothing yet of the apps the move created."""
    new_apps = {label.split(".")[0] for label in MOVED.values()} - {app for app, _name in BEFORE_APPS}
    return BEFORE_APPS + [(app, None) for app in sorted(new_apps) if app in executor.loader.migrated_apps]


def _applied_state_apps():
    """The models of the migrations applied now, every app's (not only the project's and what they need)."""
    loader = MigrationExecutor(connection).loader
    applied = set(loader.applied_migrations) & set(loader.graph.nodes)
    leaves = [
        node
        for node in applied
        if not any(child.key in applied for child in loader.graph.node_map[node].children)
    ]
    return loader.project_state(leaves).apps


def _content_types_as_then(state_apps) -> None:
    """An installation of the old code has content types and permissions for its own models only."""
    Then = state_apps.get_model("contenttypes", "ContentType")
    models = {(model._meta.app_label, model._meta.model_name) for model in state_apps.get_models()}
    for content_type in Then.objects.all():
        if (content_type.app_label, content_type.model) not in models:
            content_type.delete()
    for app_config in current_apps.get_app_configs():
        create_permissions(app_config, verbosity=0, apps=state_apps)
    state_apps.get_model("auth", "Group").objects.all().delete()  # the fixture's groups are the ones
    ContentType.objects.clear_cache()


def _permission(state_apps, codename: str, app_label: str, model: str):
    return state_apps.get_model("auth", "Permission").objects.get(
        codename=codename, content_type__app_label=app_label, content_type__model=model
    )


def _rows_create(state_apps, rows: list[dict]) -> set:
    models, later = set(), []
    for row in rows:
        model = state_apps.get_model(row["model"])
        values, stamped = {}, {}
        for name, value in row["fields"].items():
            field = model._meta.get_field(name)
            if field.many_to_many:
                later.append((model, row["pk"], field.name, value))
                continue
            stored = value
            if field.get_internal_type() == "BinaryField" and value is not None:
                stored = base64.b64decode(value)
            values[field.attname] = stored
            if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
                stamped[field.attname] = stored  # create() would stamp the loading time over them
        model.objects.create(pk=row["pk"], **values)
        if stamped:
            model.objects.filter(pk=row["pk"]).update(**stamped)
        models.add(model)
    for model, pk, name, value in later:
        # Permissions by natural key: their ids differ between databases.
        related = [_permission(state_apps, *natural) for natural in value] if name == "permissions" else value
        getattr(model.objects.get(pk=pk), name).set(related)
    return models


def _rows_load(rows: list[dict]) -> None:
    migrate(_targets(MigrationExecutor(connection)))
    state_apps = _applied_state_apps()
    _content_types_as_then(state_apps)
    with transaction.atomic():  # foreign keys are checked at the commit, whatever the rows' order
        models = _rows_create(state_apps, rows)
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(sql)


def _as_now(rows: list[dict]) -> dict[str, dict[int, dict]]:
    """Every row of the fixture's models as the current code serialises it, by fixture label and id."""
    now: dict[str, dict[int, dict]] = {}
    for label in {row["model"] for row in rows} - REAPPLIED:
        objects = model_now(label)._default_manager.order_by("pk")
        now[label] = {row["pk"]: row["fields"] for row in json.loads(serializers.serialize("json", objects))}
    return now


def _value(value):
    """A serialised value as compared: a time by its instant (whole milliseconds are written without them)."""
    moment = parse_datetime(value) if isinstance(value, str) and "T" in value else None
    return moment or value


def _user(username: str):
    return model_now("auth.user").objects.get(username=username)


def _perm(label: str, codename: str) -> str:
    """``app.codename`` of a permission on a fixture's model, under the model's current app."""
    return f"{MOVED.get(label, label).split('.')[0]}.{codename}"


@pytest.mark.django_db(transaction=True)
def test_the_database_before_the_apps_moved_upgrades_in_place():
    """One test: migrating back and forth is what costs."""
    rows = json.loads(FIXTURE.read_text())
    try:
        _rows_load(rows)
    finally:
        call_command("migrate", verbosity=0, interactive=False)  # the upgrade, post_migrate included

    # Every row of every model, moved or not, with the same id and every value it had.
    now = _as_now(rows)
    for row in rows:
        if row["model"] in REAPPLIED:
            continue
        kept = now[row["model"]].get(row["pk"])
        assert kept is not None, f"{row['model']} {row['pk']} lost"
        then = {name: _value(value) for name, value in row["fields"].items() if name not in HIT_TABLE_PAYER}
        assert {name: _value(kept.get(name)) for name in then} == then, (row["model"], row["pk"])
    counts = Counter(row["model"] for row in rows)
    assert (
        {label: len(now[label]) for label in MOVED}
        == {label: counts[label] for label in MOVED}
        == {
            "jackpots.exchangerate": 1,
            "jackpots.paytable": 2,
            "jackpots.payline": 12,
            "jackpots.paytablechange": 1,
            "jackpots.table": 6,
            "jackpots.tablekey": 6,
            "jackpots.prizeshare": 2,
            "jackpots.tableround": 9,
            "jackpots.tableseat": 14,
            "jackpots.prizepart": 3,
            "jackpots.tabledeclaration": 1,
            "jackpots.signtheme": 1,
            "jackpots.screenpresence": 2,
            "jackpots.sasaward": 2,
        }
    )

    # Through the current models' relations: who paid each hit, and each prize part.
    Hit, PrizePart = model_now("jackpots.hit"), model_now("jackpots.prizepart")
    payers = {
        hit.ref: (
            hit.state,
            hit.paid_by.username if hit.paid_by_id else None,
            hit.table_payment.table.code if hasattr(hit, "table_payment") else None,
            hit.table_payment.key.prefix[:7] if hasattr(hit, "table_payment") else None,
            hit.paid_by_machine.asset_number if hit.paid_by_machine_id else None,
        )
        for hit in Hit.objects.order_by("id")
    }
    table_payers = {
        row["pk"]: tuple(row["fields"][name] for name in HIT_TABLE_PAYER)
        for row in rows
        if row["model"] == "jackpots.hit" and row["fields"]["paid_by_table"] is not None
    }
    assert table_payers == {
        payment.hit_id: (payment.table_id, payment.key_id)
        for payment in current_apps.get_model("tables.HitTablePayment").objects.all()
    }
    assert payers == {
        "NOG-2026-00001": ("paid", None, "NOG-CHE-1", "pv_tbl_", None),
        "NOG-2026-00002": ("paid", "second", None, None, None),
        "NOG-2026-00003": ("paid", None, None, None, None),  # paid part by part: the payers are on them
        "NOG-2026-00004": ("paid", None, None, None, "NOG-091"),
        "NOG-2026-00005": ("paid", "second", None, None, None),
    }
    parts = [
        (
            part.seat.round.table.code,
            part.amount_cents,
            part.currency,
            part.paid_by_table.code if part.paid_by_table_id else None,
            (part.verified_by.username, part.second_verified_by.username, part.paid_by.username)
            if part.paid_by_id
            else None,
        )
        for part in PrizePart.objects.order_by("id")
    ]
    assert parts == [
        ("NOG-CHE-1", 931, "EUR", "NOG-CHE-1", None),
        ("LUG-CHE-1", 1_862, "CHF", "LUG-CHE-1", None),
        ("NOG-CSP-1", 1_000_210, "EUR", None, ("first", "second", "second")),
    ]
    declaration = model_now("jackpots.tabledeclaration").objects.get()
    assert (declaration.round.round_id, declaration.share.hit.ref, declaration.state) == (
        "C-4",
        "NOG-2026-00003",
        "paid",
    )
    six = model_now("jackpots.tableseat").objects.get(round__round_id="J-SIX")
    assert (six.fixed_cents, six.fixed_hit.ref, six.fixed_hit.verified_by.username) == (
        500_000,
        "NOG-2026-00002",
        "first",
    )
    awards = model_now("jackpots.sasaward").objects.order_by("id")
    assert [(a.hit.ref, a.status, a.paid_cents, a.machine.asset_number) for a in awards] == [
        ("NOG-2026-00004", "paid", 10_225, "NOG-091"),
        ("NOG-2026-00005", "handpay", 0, "NOG-091"),
    ]
    lugano = model_now("jackpots.tableround").objects.get(round_id="L-WIN")
    assert (lugano.exchange_rate.quote, str(lugano.exchange_rate.rate)) == ("CHF", "0.93710000")
    assert model_now("jackpots.signtheme").objects.get().progressive.name == "Caribbean Stud Progressive"
    assert sorted(
        model_now("jackpots.screenpresence").objects.values_list("screen__slug", "connections")
    ) == [
        ("nog-sign-1", 1),
        ("nog-sign-2", 0),
    ]
    slip = model_now("workspace.hitslip").objects.get(variant="a5")
    assert (slip.part.seat.round.round_id, slip.reprints.count()) == ("C-4", 2)

    # Each level's meters as they were, its state kept, and its ledger summing to them.
    Level, LedgerEntry = model_now("jackpots.level"), model_now("jackpots.ledgerentry")
    levels = {row["pk"]: row["fields"] for row in rows if row["model"] == "jackpots.level"}
    for level in Level.objects.all():
        before = levels[level.pk]
        ledger = LedgerEntry.objects.filter(level=level)
        assert (level.current_mc, level.reserve_mc, level.state) == (
            before["current_mc"],
            before["reserve_mc"],
            before["state"],
        )
        assert sum(ledger.values_list("current_delta_mc", flat=True)) == level.current_mc
        assert sum(ledger.values_list("reserve_delta_mc", flat=True)) == level.reserve_mc
    assert dict(Level.objects.values_list("id", "state")) == {1: "active", 2: "active", 3: "suspended"}

    # A group given permissions on moved models keeps them, on the models' content types as they are now.
    group = model_now("auth.group").objects.get(name="Table supervisors")
    granted = {(p.content_type.model_class(), p.codename) for p in group.permissions.all()}
    assert granted == {
        (model_now("jackpots.table"), "view_table"),
        (model_now("jackpots.table"), "change_table"),
        (model_now("jackpots.prizepart"), "view_prizepart"),
        (model_now("jackpots.signtheme"), "change_signtheme"),
        (model_now("jackpots.sasaward"), "view_sasaward"),
    }
    supervisor = _user("supervisor")
    assert supervisor.has_perms(
        [
            _perm("jackpots.table", "change_table"),
            _perm("jackpots.prizepart", "view_prizepart"),
            _perm("jackpots.signtheme", "change_signtheme"),
            _perm("jackpots.sasaward", "view_sasaward"),
        ]
    )
    assert not supervisor.has_perm(_perm("jackpots.tablekey", "add_tablekey"))
    # The roles are applied again by the upgrade's migrate: a floor manager still edits tables and themes.
    manager = model_now("auth.group").objects.get(name="Floor manager")
    codenames = {(p.content_type.app_label, p.codename) for p in manager.permissions.all()}
    for label, codename in [
        ("jackpots.table", "change_table"),
        ("jackpots.signtheme", "change_signtheme"),
        ("jackpots.tablekey", "add_tablekey"),
        ("jackpots.sasaward", "view_sasaward"),
        ("jackpots.tabledeclaration", "release_tabledeclaration"),
        ("jackpots.paytable", "stage_paytable"),
    ]:
        assert tuple(_perm(label, codename).split(".")) in codenames, codename

    out = StringIO()
    call_command("jackpots_audit", stdout=out)
    assert out.getvalue().strip().endswith("Audit clean: 3 levels.")

    _new_round_posts()


def _new_round_posts() -> None:
    """A round posted after the upgrade through the tables API, with a key issued now (the fixture's are
    digests): the flush pays the €60 the pay-table change set, and the ids follow the old ones."""
    from common.credentials import credential_issue

    table = model_now("jackpots.table").objects.get(code="VEN-CSP-1")
    level = model_now("jackpots.level").objects.get(pk=table.progressive.pay_table.level_id)
    key = credential_issue(model_now("jackpots.tablekey"), kind="tbl", table=table)[1]
    response = Client().post(
        "/api/v1/tables/VEN-CSP-1/rounds",
        {
            "round": "V-UPGRADED",
            "at": (timezone.now() - timedelta(seconds=1)).isoformat(),
            "community": [],
            "seats": [
                {
                    "seat": 2,
                    "jackpot_bet": 100,
                    "cards": ["2H", "5H", "8H", "JH", "KH"],
                    "changed_card": False,
                }
            ],
        },
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )
    assert response.status_code == 201, response.content[:300]
    answer = response.json()
    assert [(s["hand"], s["award"]["fixed"], s["contribution"]["amount"]) for s in answer["seats"]] == [
        ("flush", 6_000, 40)
    ]
    round_ = model_now("jackpots.tableround").objects.get(round_id="V-UPGRADED")
    assert (round_.pk, round_.added_mc, round_.reserved_mc) == (10, 35_000, 5_000)
    before = level.current_mc
    level.refresh_from_db()
    assert level.current_mc == before + 35_000
    out = StringIO()
    call_command("jackpots_audit", stdout=out)
    assert out.getvalue().strip().endswith("Audit clean: 3 levels.")
