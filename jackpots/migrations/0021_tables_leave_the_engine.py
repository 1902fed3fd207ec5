"""The table games leave the engine for their own app (tables): their models leave the jackpots app's
state only. Their rows stay where they are (each moved model keeps its ``jackpots_*`` table); the hit's
table payer columns now point at the tables app's models until tables 0002 moves them to its own record."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('jackpots', '0020_merge_lifecycle'),
        ('tables', '0001_initial'),
        # A workspace slip names a prize part: it points at the tables app's model before this one goes.
        ('workspace', '0005_hitslip_part_in_tables'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='hit',
                    name='paid_by_table',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='tables.table', verbose_name='paid at the table'),
                ),
                migrations.AlterField(
                    model_name='hit',
                    name='paid_by_key',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='tables.tablekey', verbose_name='paid with the table key'),
                ),
                        migrations.RemoveField(
                    model_name='paytable',
                    name='level',
                ),
                        migrations.RemoveField(
                    model_name='paytable',
                    name='progressive',
                ),
                        migrations.RemoveField(
                    model_name='paytablechange',
                    name='pay_table',
                ),
                        migrations.RemoveField(
                    model_name='paytablechange',
                    name='user',
                ),
                        migrations.RemoveField(
                    model_name='prizepart',
                    name='key',
                ),
                        migrations.RemoveField(
                    model_name='prizepart',
                    name='paid_by',
                ),
                        migrations.RemoveField(
                    model_name='prizepart',
                    name='paid_by_key',
                ),
                        migrations.RemoveField(
                    model_name='prizepart',
                    name='paid_by_table',
                ),
                        migrations.RemoveField(
                    model_name='prizepart',
                    name='seat',
                ),
                        migrations.RemoveField(
                    model_name='prizepart',
                    name='second_verified_by',
                ),
                        migrations.RemoveField(
                    model_name='prizepart',
                    name='share',
                ),
                        migrations.RemoveField(
                    model_name='prizepart',
                    name='verified_by',
                ),
                        migrations.RemoveField(
                    model_name='prizepart',
                    name='void_requested_by',
                ),
                        migrations.RemoveField(
                    model_name='prizeshare',
                    name='hit',
                ),
                        migrations.RemoveField(
                    model_name='prizeshare',
                    name='level',
                ),
                        migrations.RemoveField(
                    model_name='tableseat',
                    name='share',
                ),
                        migrations.RemoveField(
                    model_name='tabledeclaration',
                    name='share',
                ),
                        migrations.RemoveField(
                    model_name='table',
                    name='progressive',
                ),
                        migrations.RemoveField(
                    model_name='table',
                    name='room',
                ),
                        migrations.RemoveField(
                    model_name='table',
                    name='venue',
                ),
                        migrations.RemoveField(
                    model_name='tableround',
                    name='table',
                ),
                        migrations.RemoveField(
                    model_name='tabledeclaration',
                    name='table',
                ),
                        migrations.RemoveField(
                    model_name='tablekey',
                    name='table',
                ),
                        migrations.RemoveField(
                    model_name='tabledeclaration',
                    name='level',
                ),
                        migrations.RemoveField(
                    model_name='tabledeclaration',
                    name='progressive',
                ),
                        migrations.RemoveField(
                    model_name='tabledeclaration',
                    name='released_by',
                ),
                        migrations.RemoveField(
                    model_name='tabledeclaration',
                    name='round',
                ),
                        migrations.RemoveField(
                    model_name='tablekey',
                    name='created_by',
                ),
                        migrations.RemoveField(
                    model_name='tableround',
                    name='exchange_rate',
                ),
                        migrations.RemoveField(
                    model_name='tableround',
                    name='level',
                ),
                        migrations.RemoveField(
                    model_name='tableround',
                    name='voided_by',
                ),
                        migrations.RemoveField(
                    model_name='tableseat',
                    name='round',
                ),
                        migrations.RemoveField(
                    model_name='tableseat',
                    name='fixed_hit',
                ),
                        migrations.DeleteModel(
                    name='PayLine',
                ),
                        migrations.DeleteModel(
                    name='PayTable',
                ),
                        migrations.DeleteModel(
                    name='PayTableChange',
                ),
                        migrations.DeleteModel(
                    name='PrizePart',
                ),
                        migrations.DeleteModel(
                    name='PrizeShare',
                ),
                        migrations.DeleteModel(
                    name='Table',
                ),
                        migrations.DeleteModel(
                    name='TableDeclaration',
                ),
                        migrations.DeleteModel(
                    name='TableKey',
                ),
                        migrations.DeleteModel(
                    name='TableRound',
                ),
                        migrations.DeleteModel(
                    name='TableSeat',
                ),
                    ],
        ),
    ]
