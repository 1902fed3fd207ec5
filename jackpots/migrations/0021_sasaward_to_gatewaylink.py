"""The SAS gateways' award answers move to the gatewaylink app (the one-way house: the gateway's server side
is above the engine). Only Django's state changes: the table stays where it is, with its rows."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("jackpots", "0020_merge_lifecycle"),
        ("gatewaylink", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="SasAward")],
            database_operations=[],
        ),
    ]
