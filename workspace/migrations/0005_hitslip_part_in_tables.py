"""A slip's prize part is the tables app's model now, on the same table: the state only."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0001_initial'),
        ('workspace', '0004_dayclose_progressive_register'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='hitslip',
                    name='part',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='slips', to='tables.prizepart', verbose_name='prize part'),
                ),
            ],
        ),
    ]
