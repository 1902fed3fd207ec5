"""Splits the contribution rows written before the machines' parts existed (the audit checks them)."""

from django.db import migrations


def backfill(apps, schema_editor) -> None:
    from jackpots.services.machine_split import machine_parts_backfill

    machine_parts_backfill(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [("jackpots", "0005_machine_contributions")]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
