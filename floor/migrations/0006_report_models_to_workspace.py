"""The hour summaries move to the workspace app (the one-way house: they refer to slots' machines, and floor
is below slots). Only Django's state changes: the tables stay where they are, with their rows."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("floor", "0005_hourstat_contributions"),
        ("workspace", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(model_name="machinehourstat", name="machine"),
                migrations.DeleteModel(name="ReportRefreshState"),
                migrations.DeleteModel(name="MachineHourStat"),
            ],
            database_operations=[],
        ),
    ]
