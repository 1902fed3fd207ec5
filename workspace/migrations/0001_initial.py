"""The hour summaries, moved here from the floor app with their tables (floor_machinehourstat,
floor_reportrefreshstate): only Django's state is created. Their content types are renamed rather than
created anew, so permissions granted on them keep working."""

import django.db.models.deletion
from django.db import migrations, models


MOVED = ("machinehourstat", "reportrefreshstate")


def _content_types_relabel(apps, old: str, new: str) -> None:
    ContentType = apps.get_model("contenttypes", "ContentType")
    taken = set(ContentType.objects.filter(app_label=new, model__in=MOVED).values_list("model", flat=True))
    ContentType.objects.filter(app_label=old, model__in=set(MOVED) - taken).update(app_label=new)


def content_types_move(apps, schema_editor) -> None:
    _content_types_relabel(apps, "floor", "workspace")


def content_types_move_back(apps, schema_editor) -> None:
    _content_types_relabel(apps, "workspace", "floor")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("floor", "0005_hourstat_contributions"),
        ("slots", "0006_event_queue_play_order"),
    ]

    state_operations = [
        migrations.CreateModel(
            name='ReportRefreshState',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('checkpoints', models.JSONField(default=list)),
                ('close_hour', models.PositiveSmallIntegerField(null=True)),
                ('refreshed_at', models.DateTimeField(null=True)),
            ],
            options={
                'verbose_name': 'report refresh state',
                'db_table': 'floor_reportrefreshstate',
            },
        ),
        migrations.CreateModel(
            name='MachineHourStat',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('hour', models.DateTimeField(verbose_name='hour')),
                ('business_date', models.DateField(verbose_name='business day')),
                ('games', models.PositiveIntegerField(default=0, verbose_name='games played')),
                ('coin_in_cents', models.BigIntegerField(default=0, verbose_name='coin in (cents)')),
                ('coin_out_cents', models.BigIntegerField(default=0, verbose_name='coin out (cents)')),
                ('contributed_mc', models.BigIntegerField(default=0, verbose_name='contributions (millicents)')),
                ('machine', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='hour_stats', to='slots.slotmachine', verbose_name='machine')),
            ],
            options={
                'verbose_name': 'machine hour',
                'verbose_name_plural': 'machine hours',
                'db_table': 'floor_machinehourstat',
                'indexes': [models.Index(fields=['business_date', 'machine'], name='hourstat_day_machine')],
                'constraints': [models.UniqueConstraint(fields=('machine', 'hour'), name='hourstat_unique_machine_hour')],
            },
        ),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=state_operations, database_operations=[]),
        migrations.RunPython(content_types_move, content_types_move_back),
    ]
