"""The SAS gateways' award answers, moved here from the engine with their table (jackpots_sasaward): only
Django's state is created (jackpots 0021 removes the engine's). The content type is renamed rather than
created anew, so permissions granted on it keep working."""

import django.db.models.deletion
from django.db import migrations, models


MOVED = ("sasaward",)


def _content_types_relabel(apps, old: str, new: str) -> None:
    ContentType = apps.get_model("contenttypes", "ContentType")
    taken = set(ContentType.objects.filter(app_label=new, model__in=MOVED).values_list("model", flat=True))
    ContentType.objects.filter(app_label=old, model__in=set(MOVED) - taken).update(app_label=new)


def content_types_move(apps, schema_editor) -> None:
    _content_types_relabel(apps, "jackpots", "gatewaylink")


def content_types_move_back(apps, schema_editor) -> None:
    _content_types_relabel(apps, "gatewaylink", "jackpots")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("jackpots", "0020_merge_lifecycle"),
        ("slots", "0010_paymachine_offline_periods"),
    ]

    state_operations = [
        migrations.CreateModel(
            name='SasAward',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(choices=[('paid', 'Credited by the machine'), ('handpay', 'Handpay by an attendant')], max_length=8, verbose_name='outcome')),
                ('asked_cents', models.BigIntegerField(verbose_name='amount asked (cents)')),
                ('paid_cents', models.BigIntegerField(default=0, verbose_name='amount credited (cents)')),
                ('difference_cents', models.BigIntegerField(default=0, help_text='Nonzero: the machine credited another amount.', verbose_name='credited minus asked (cents)')),
                ('at', models.DateTimeField(verbose_name='answered at')),
                ('hit', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='sas_award', to='jackpots.hit', verbose_name='hit')),
                ('machine', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='slots.slotmachine', verbose_name='slot machine')),
            ],
            options={
                'verbose_name': 'SAS award',
                'verbose_name_plural': 'SAS awards',
                'db_table': 'jackpots_sasaward',
                'ordering': ['-at', '-id'],
            },
        ),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=state_operations, database_operations=[]),
        migrations.RunPython(content_types_move, content_types_move_back),
    ]
