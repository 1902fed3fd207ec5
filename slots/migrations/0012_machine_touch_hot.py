"""A machine's touch (last seen, last game: every stored batch) becomes a HOT update: the index on (status,
last_seen) goes, so the touch changes no indexed column, and the table keeps half of each page free so the
row's new version fits beside the old one (tests/slots/test_machine_touch.py). Before, every touch wrote an
entry in each of the table's six indexes."""

from django.db import migrations

FILLFACTOR = 50


def fillfactor_set(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE slots_slotmachine SET (fillfactor = {FILLFACTOR})")


def fillfactor_reset(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE slots_slotmachine RESET (fillfactor)")


class Migration(migrations.Migration):
    dependencies = [
        ("slots", "0011_foreign_keys_served_by_wider_indexes"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="slotmachine", name="machine_status_seen"),
        migrations.RunPython(fillfactor_set, fillfactor_reset),
    ]
