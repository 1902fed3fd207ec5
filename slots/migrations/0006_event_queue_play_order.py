"""The engine's queue keeps each event's place in the order of play (``at``, machine, seq), so the engine
claims the earliest-played events first with one index scan; a new kind of alert for refused jackpots."""

from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

_TRIGGER_REPLACE = """
CREATE OR REPLACE FUNCTION slots_machineevent_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO slots_pendingevent (event_id, at, machine_id, seq)
    SELECT id, at, machine_id, seq FROM inserted WHERE pending;
    RETURN NULL;
END
$$;
UPDATE slots_pendingevent q SET at = e.at, machine_id = e.machine_id, seq = e.seq
FROM slots_machineevent e WHERE e.id = q.event_id;
DELETE FROM slots_pendingevent WHERE at IS NULL;
"""
_TRIGGER_RESTORE = """
CREATE OR REPLACE FUNCTION slots_machineevent_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO slots_pendingevent (event_id) SELECT id FROM inserted WHERE pending;
    RETURN NULL;
END
$$;
"""


def _trigger_replace(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_TRIGGER_REPLACE)


def _trigger_restore(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_TRIGGER_RESTORE)


class Migration(migrations.Migration):
    dependencies = [
        ("slots", "0005_meter_plausibility"),
    ]

    operations = [
        migrations.AddField(model_name="pendingevent", name="at", field=models.DateTimeField(null=True)),
        migrations.AddField(
            model_name="pendingevent", name="machine_id", field=models.BigIntegerField(null=True)
        ),
        migrations.AddField(model_name="pendingevent", name="seq", field=models.BigIntegerField(null=True)),
        migrations.RunPython(_trigger_replace, _trigger_restore),
        migrations.AlterField(model_name="pendingevent", name="at", field=models.DateTimeField()),
        migrations.AlterField(model_name="pendingevent", name="machine_id", field=models.BigIntegerField()),
        migrations.AlterField(model_name="pendingevent", name="seq", field=models.BigIntegerField()),
        migrations.AddIndex(
            model_name="pendingevent",
            index=models.Index(fields=["at", "machine_id", "seq"], name="pending_play_order"),
        ),
        migrations.AlterField(
            model_name="machinealert",
            name="kind",
            field=models.CharField(
                choices=[
                    ("memory_reset", "Memory reset"),
                    ("seq_conflict", "Sequence conflict"),
                    ("implausible_meters", "Implausible meters"),
                    ("jackpot_refused", "Jackpot report refused"),
                ],
                max_length=24,
                verbose_name="kind",
            ),
        ),
    ]
