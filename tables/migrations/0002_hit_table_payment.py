"""Who paid a hit at a table becomes the tables app's record (``HitTablePayment``): the engine's hit names
only a person or a machine as its payer. Every hit a table paid gets its record, with the same table and
key, before jackpots 0022 drops the hit's columns; the reverse puts them back."""

import django.db.models.deletion
from django.db import migrations, models


def payments_copy(apps, schema_editor) -> None:
    Hit = apps.get_model("jackpots", "Hit")
    HitTablePayment = apps.get_model("tables", "HitTablePayment")
    db = schema_editor.connection.alias
    paid = Hit.objects.using(db).filter(paid_by_table__isnull=False).order_by("id")
    HitTablePayment.objects.using(db).bulk_create(
        HitTablePayment(hit_id=hit_id, table_id=table_id, key_id=key_id)
        for hit_id, table_id, key_id in paid.values_list("id", "paid_by_table_id", "paid_by_key_id")
    )


def payments_restore(apps, schema_editor) -> None:
    Hit = apps.get_model("jackpots", "Hit")
    HitTablePayment = apps.get_model("tables", "HitTablePayment")
    db = schema_editor.connection.alias
    for payment in HitTablePayment.objects.using(db).order_by("hit_id"):
        Hit.objects.using(db).filter(pk=payment.hit_id).update(
            paid_by_table_id=payment.table_id, paid_by_key_id=payment.key_id
        )


class Migration(migrations.Migration):

    dependencies = [
        ('jackpots', '0021_tables_leave_the_engine'),
        ('tables', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='HitTablePayment',
            fields=[
                ('hit', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, primary_key=True, related_name='table_payment', serialize=False, to='jackpots.hit', verbose_name='hit')),
                ('table', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='tables.table', verbose_name='paid at the table')),
                ('key', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='tables.tablekey', verbose_name='paid with the table key')),
            ],
            options={
                'verbose_name': 'payment at a table',
                'verbose_name_plural': 'payments at tables',
            },
        ),
        migrations.RunPython(payments_copy, payments_restore),
    ]
