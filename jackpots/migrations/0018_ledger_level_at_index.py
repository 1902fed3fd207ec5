"""An index of each level's ledger rows by time, carrying the meter deltas: the daily register reads a
level's day by range and its sum before the day from the index alone. Built concurrently: the ledger
takes a row every batch, and a plain CREATE INDEX would hold the engine's writes for the whole build."""

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class AddIndexConcurrentlyOnPostgres(AddIndexConcurrently):
    """Concurrently on PostgreSQL; a plain CREATE INDEX on the embedded default's SQLite (which has no
    concurrent build, and no engine writing beside a migration)."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        return migrations.AddIndex.database_forwards(self, app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            return super().database_backwards(app_label, schema_editor, from_state, to_state)
        return migrations.AddIndex.database_backwards(self, app_label, schema_editor, from_state, to_state)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("jackpots", "0017_level_state_ledger_kinds"),
    ]

    operations = [
        AddIndexConcurrentlyOnPostgres(
            model_name="ledgerentry",
            index=models.Index(
                fields=["level", "at"],
                include=("current_delta_mc", "reserve_delta_mc", "overflow_delta_mc"),
                name="ledger_level_at",
            ),
        ),
    ]
