"""A hit's table payer lives in the tables app now (tables 0002 copied every one): the engine's hit
points at no table model."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('jackpots', '0021_tables_leave_the_engine'),
        ('tables', '0002_hit_table_payment'),
    ]

    operations = [
        migrations.RemoveField(
            model_name='hit',
            name='paid_by_table',
        ),
        migrations.RemoveField(
            model_name='hit',
            name='paid_by_key',
        ),
    ]
