"""The signs' theme and presence, moved here from the jackpots app with their tables (jackpots_signtheme,
jackpots_screenpresence, made by jackpots 0010): only Django's state is created, so a fresh install and
an upgraded one have the same schema. Their content types are renamed rather than created anew, so
permissions granted on them (the floor managers' role) keep working."""

import django.core.validators
import django.db.models.deletion
from django.db import migrations, models


MOVED = ("signtheme", "screenpresence")


def _content_types_relabel(apps, old: str, new: str) -> None:
    ContentType = apps.get_model("contenttypes", "ContentType")
    taken = set(ContentType.objects.filter(app_label=new, model__in=MOVED).values_list("model", flat=True))
    ContentType.objects.filter(app_label=old, model__in=set(MOVED) - taken).update(app_label=new)


def content_types_move(apps, schema_editor) -> None:
    _content_types_relabel(apps, "jackpots", "signage")


def content_types_move_back(apps, schema_editor) -> None:
    _content_types_relabel(apps, "signage", "jackpots")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("floor", "0007_signage_screen_language"),
        ("jackpots", "0021_signs_leave_for_signage"),
    ]

    state_operations = [
        migrations.CreateModel(
            name='ScreenPresence',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('connections', models.PositiveIntegerField(default=0, verbose_name='open connections')),
                ('connected_at', models.DateTimeField(blank=True, null=True, verbose_name='connected at')),
                ('disconnected_at', models.DateTimeField(blank=True, null=True, verbose_name='disconnected at')),
                ('last_frame_at', models.DateTimeField(blank=True, null=True, verbose_name='last frame at')),
                ('screen', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='presence', to='floor.signagescreen', verbose_name='screen')),
            ],
            options={
                'verbose_name': 'screen presence',
                'verbose_name_plural': 'screen presences',
                'db_table': 'jackpots_screenpresence',
            },
        ),
        migrations.CreateModel(
            name='SignTheme',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('preset', models.CharField(choices=[('classic', 'Red and gold (classic)'), ('ice', 'Blue and silver'), ('emerald', 'Emerald and gold')], default='classic', max_length=16, verbose_name='preset')),
                ('title', models.CharField(blank=True, help_text='Shown on the signs instead of the name.', max_length=60, verbose_name='title')),
                ('background', models.CharField(blank=True, help_text='#rrggbb', max_length=7, validators=[django.core.validators.RegexValidator('^#[0-9a-fA-F]{6}$', 'A colour as #rrggbb, e.g. #d9b45a.')], verbose_name='background colour')),
                ('accent', models.CharField(blank=True, help_text='#rrggbb', max_length=7, validators=[django.core.validators.RegexValidator('^#[0-9a-fA-F]{6}$', 'A colour as #rrggbb, e.g. #d9b45a.')], verbose_name='accent colour')),
                ('logo', models.TextField(blank=True, editable=False, verbose_name='logo')),
                ('updated_at', models.DateTimeField(auto_now=True, verbose_name='updated at')),
                ('progressive', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='theme', to='jackpots.progressive', verbose_name='progressive')),
            ],
            options={
                'verbose_name': 'sign theme',
                'verbose_name_plural': 'sign themes',
                'ordering': ['progressive__name', 'id'],
                'db_table': 'jackpots_signtheme',
            },
        ),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=state_operations, database_operations=[]),
        migrations.RunPython(content_types_move, content_types_move_back),
    ]
