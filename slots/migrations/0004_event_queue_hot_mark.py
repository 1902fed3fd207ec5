"""The engine's queue of pending event ids, filled by a statement trigger; the `pending` index goes.

Clearing ``pending`` then changes no indexed column, so PostgreSQL can update the event in place (HOT)
instead of writing a new entry into each of the events table's indexes. An in-place update needs room
on the row's page: pages are filled to half (fillfactor 50), so every game on a page can be marked in place
in the batch that applies it (the old versions are pruned afterwards).
"""

from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

_TRIGGER_CREATE = """
CREATE FUNCTION slots_machineevent_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO slots_pendingevent (event_id) SELECT id FROM inserted WHERE pending;
    RETURN NULL;
END
$$;
CREATE TRIGGER slots_machineevent_enqueue AFTER INSERT ON slots_machineevent
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION slots_machineevent_enqueue();
INSERT INTO slots_pendingevent (event_id) SELECT id FROM slots_machineevent WHERE pending;
ALTER TABLE slots_machineevent SET (fillfactor = 50);
"""
_TRIGGER_DROP = """
ALTER TABLE slots_machineevent RESET (fillfactor);
DROP TRIGGER slots_machineevent_enqueue ON slots_machineevent;
DROP FUNCTION slots_machineevent_enqueue();
"""


def _trigger_create(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_TRIGGER_CREATE)


def _trigger_drop(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_TRIGGER_DROP)


class Migration(migrations.Migration):
    dependencies = [
        ("slots", "0003_merge_0002_engine_0002_meters_alerts"),
    ]

    operations = [
        migrations.CreateModel(
            name="PendingEvent",
            fields=[
                ("event_id", models.BigIntegerField(primary_key=True, serialize=False)),
            ],
            options={"default_permissions": ()},
        ),
        migrations.RunPython(_trigger_create, _trigger_drop),
        migrations.RemoveIndex(
            model_name="machineevent",
            name="event_pending",
        ),
    ]
