"""Migrating the test database back and forth inside a test (the upgrade tests).

A test that migrates back must leave the database at the latest migrations: the tests after it on the
same worker use the current models (a test that went forward only to its own target once left the
tables' payer table missing for every test after it).
"""

from __future__ import annotations

from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.state import ProjectState


def migrate(targets: list[tuple[str, str | None]]) -> MigrationExecutor:
    """Migrates to ``targets``; a fresh executor, whose loader sees what is applied now."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    plan = executor.migration_plan(targets)
    if plan and all(backwards for _migration, backwards in plan):
        _unapply(executor, plan)
    else:
        executor.migrate(targets, plan=plan)
    return MigrationExecutor(connection)


def _unapply(executor: MigrationExecutor, plan) -> None:
    """``plan``'s migrations unapplied as ``MigrationExecutor.migrate`` does, each from the same state (every
    migration before it in the full plan that is applied), the same operations run backwards on the database
    and recorded unapplied; only the states are rendered afresh when an operation needs their models, rather
    than rendered once and re-rendered in part after every operation of every migration on the way (Django's
    way, which re-renders most of the project's models after a change to any relational field: it was two
    thirds of these tests' time, for a state that costs a tenth of a second to render whole)."""
    graph = executor.loader.graph
    full_plan = executor.migration_plan(graph.leaf_nodes(), clean_start=True)
    applied = {graph.nodes[key] for key in executor.loader.applied_migrations if key in graph.nodes}
    to_run = {migration for migration, _backwards in plan}
    states = {}
    state = ProjectState(real_apps=executor.loader.unmigrated_apps)
    for migration, _backwards in full_plan:
        if not to_run:
            break
        if migration in to_run:
            states[migration] = state
            state = migration.mutate_state(state, preserve=True)
            to_run.remove(migration)
        elif migration in applied:
            migration.mutate_state(state, preserve=False)
    executor.recorder.ensure_schema()
    for migration, _backwards in plan:
        executor.unapply_migration(states[migration], migration)
    executor.check_replacements()


def migrate_latest() -> None:
    """Every app to its leaf migrations, as a real ``migrate`` leaves an installation."""
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
