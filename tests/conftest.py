"""Shared fixtures. Factories live in tests/factories.py; app-specific ones in tests/<app>/."""

from __future__ import annotations

import os
from collections.abc import Iterator
from unittest import mock

import pytest
from _pytest.nodeid import coerce_node_id
from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.test.utils import override_settings

# Staff in each role and raw events, for the floor, workspace and common tests alike.
pytest_plugins = ["tests.staff_fixtures"]


# tryfirst: pytest-xdist's worker reads the xdist_group marks in its own collection hook (it appends the
# group to each test's id, which is what --dist loadgroup schedules by), so they must be set before it.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that need the real services are skipped on the embedded default (CI fails on any skip).
    Under pytest-xdist, the tests that share a module- or package-scoped fixture go to one worker."""
    # In a worker --dist reads "no": xdist tells it loadgroup as option.loadgroup. Reading --dist alone, no
    # worker ever marked a group, and every shared stack was started once on each worker.
    if config.getoption("dist", "no") == "loadgroup" or getattr(config.option, "loadgroup", False):
        shared_fixture_groups(items)
    skip_pg = pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL")
    skip_redis = pytest.mark.skip(reason="needs Redis: set REDIS_URL")
    for item in items:
        if "postgres" in item.keywords and not settings.USING_POSTGRES:
            item.add_marker(skip_pg)
        if "redis" in item.keywords and not settings.USING_REDIS:
            item.add_marker(skip_redis)


# Append-only registers a PostgreSQL trigger guards against UPDATE and DELETE: TRUNCATE fires no row
# trigger, so these are emptied by it (nothing references them, so no cascade is needed).
TRUNCATED = {"floor_significantevent"}


def shared_fixture_groups(items: list[pytest.Item]) -> None:
    """An xdist_group for each module- or package-scoped fixture a test uses (make test's --dist
    loadgroup): the stack such a fixture starts (the gateway end-to-end floor, the fault tests' services,
    a browser) starts once, on one worker, instead of once on every worker that runs one of its tests.
    xdist hands the largest groups out first; the other tests go one by one to whichever worker is free."""
    for item in items:
        fixture_info = getattr(item, "_fixtureinfo", None)
        if fixture_info is None:
            continue
        scopes = {
            definitions[-1].scope: definitions[-1].baseid
            for definitions in fixture_info.name2fixturedefs.values()
            if definitions[-1].scope in ("module", "package")
        }
        # A package's fixture is shared by its modules; a module's, wherever defined, by the module's tests.
        if "package" in scopes:
            _group(item, f"package:{scopes['package']}")
        elif "module" in scopes:
            _group(item, f"module:{item.nodeid.split('::')[0]}")


def _group(item: pytest.Item, name: str) -> None:
    """Marks ``item`` with its xdist_group and gives it the id xdist's loadgroup schedules by
    ("<id>@<group>"). pytest-xdist 3.8 writes that id to ``item._nodeid``, which pytest 9 no longer reads
    (its id is ``item._id``): without this every group was scattered, and each shared stack started once
    on every worker (the fault tests' services, the gateway's end-to-end floor, the browsers' seeds)."""
    item.add_marker(pytest.mark.xdist_group(name))
    if hasattr(item, "_id") and "@" not in item.nodeid:
        item._id = coerce_node_id(f"{item.nodeid}@{name}")


def flush_by_delete_sql(original):
    """PostgreSQL's flush as a DELETE of each table instead of one TRUNCATE of them all: the same empty
    tables in a twentieth of the time when they hold a few rows (TRUNCATE makes new files for every table
    and index). Resetting sequences or cascading to tables outside the list stays with TRUNCATE."""

    def sql_flush(ops, style, tables, *, reset_sequences=False, allow_cascade=False) -> list[str]:
        if reset_sequences or allow_cascade or not tables:
            return original(ops, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        # Django's foreign keys are deferrable: checked at the flush's commit, when every row is gone.
        deferred = f"{style.SQL_KEYWORD('SET CONSTRAINTS ALL DEFERRED')};"
        return [deferred] + [
            f"{style.SQL_KEYWORD('TRUNCATE' if t in TRUNCATED else 'DELETE FROM')} {ops.quote_name(t)};"
            for t in tables
        ]

    return sql_flush


@pytest.fixture(scope="session", autouse=True)
def flush_by_delete() -> Iterator[None]:
    """Every transactional test ends with a flush of the test database."""
    if not settings.USING_POSTGRES:
        yield
        return
    from django.db.backends.postgresql.operations import DatabaseOperations as Ops

    with mock.patch.object(Ops, "sql_flush", flush_by_delete_sql(Ops.sql_flush)):
        yield


@pytest.fixture(scope="session")
def django_db_keepdb(request: pytest.FixtureRequest, django_db_modify_db_settings: None) -> bool:
    """pytest-django's choice (--reuse-db), except on PostgreSQL: there each worker's test database is a
    copy of one template migrated once for the run (tests/template_db.py), which Django then keeps as it is
    instead of creating and migrating its own."""
    if request.config.getvalue("reuse_db"):
        return True
    if not settings.USING_POSTGRES:
        return False
    from django.db import connection

    from tests.template_db import database_copy, template_build

    name = connection.creation._get_test_db_name()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    prefix = name.removesuffix(f"_{worker}") if worker else name
    database_copy(connection.settings_dict, template_build(connection.settings_dict, prefix), name)
    return True


class OneRoundPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """The deployment's PBKDF2 (same algorithm, same stored format) at one round instead of a million: a
    user with a password cost a third of a second to create and as much again to log in. Hashes of a
    million rounds (tests/workspace/upgrade) still verify: the stored string names its rounds."""

    iterations = 1


@pytest.fixture(scope="session", autouse=True)
def passwords_hashed_fast() -> Iterator[None]:
    with override_settings(PASSWORD_HASHERS=["tests.conftest.OneRoundPBKDF2PasswordHasher"]):
        yield


@pytest.fixture(autouse=True)
def _fresh_machine_map() -> None:
    """Each test starts with no machine remembered (slots.services.machine_map): a test's machines reuse
    the asset numbers of earlier tests."""
    from slots.services.machine_map import machine_map_clear

    machine_map_clear()


@pytest.fixture
def claim_renewals(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, tuple[str, float]]]:
    """Every batch of connection claims the process renewed (common.socket_limits), renewed for real."""
    from asgiref.sync import sync_to_async

    from common import socket_limits

    batches: list[dict[str, tuple[str, float]]] = []

    def recorded(claims: dict[str, tuple[str, float]]) -> int:
        batches.append(claims)
        return socket_limits.claims_renew(claims)

    monkeypatch.setattr(socket_limits, "_claims_renew", sync_to_async(recorded, thread_sensitive=False))
    return batches
