"""The signs' theme and presence move to the signage app (the one-way house: the signs are above the
engine). Only Django's state changes: the tables stay where they are, with their rows, and signage 0001
takes them over under the same names."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("jackpots", "0020_merge_lifecycle"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="ScreenPresence"),
                migrations.DeleteModel(name="SignTheme"),
            ],
            database_operations=[],
        ),
    ]
