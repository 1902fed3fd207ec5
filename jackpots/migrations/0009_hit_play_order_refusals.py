"""Hits record their place in the order of play (the triggering event's seq; ``late``); refused jackpot
reports get their own record. Existing machine hits take the seq of their jackpot event."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps


def _play_seq_backfill(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    Hit = apps.get_model("jackpots", "Hit")
    MachineEvent = apps.get_model("slots", "MachineEvent")
    seqs = dict(
        MachineEvent.objects.filter(
            id__in=Hit.objects.filter(event_id__isnull=False).values("event_id")
        ).values_list("id", "seq")
    )
    for hit in Hit.objects.filter(event_id__in=list(seqs)):
        hit.play_seq = seqs[hit.event_id]
        hit.save(update_fields=["play_seq"])


class Migration(migrations.Migration):
    dependencies = [
        ("jackpots", "0008_table_seat_fixed_hit"),
        ("slots", "0006_event_queue_play_order"),
    ]

    operations = [
        migrations.AddField(
            model_name="hit",
            name="late",
            field=models.BooleanField(
                default=False,
                help_text="Its event reached the engine after a hit played later on this level: numbered after it.",
                verbose_name="late",
            ),
        ),
        migrations.AddField(
            model_name="hit",
            name="play_seq",
            field=models.BigIntegerField(
                blank=True,
                help_text="With the time and the machine, the hit's place in the order of play.",
                null=True,
                verbose_name="seq of the triggering event",
            ),
        ),
        migrations.CreateModel(
            name="HitRefusal",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("event_id", models.BigIntegerField(unique=True, verbose_name="jackpot event")),
                (
                    "game_event_id",
                    models.BigIntegerField(blank=True, null=True, verbose_name="triggering game event"),
                ),
                (
                    "code",
                    models.CharField(
                        choices=[
                            ("not_a_member", "Not a member of the progressive"),
                            ("machine_not_live", "Member disabled or machine not in service"),
                            ("level_stopped", "Level stopped"),
                            ("mystery_level", "Mystery level (won by the system, not reported)"),
                            ("no_triggering_game", "No game before the report"),
                            ("wager_below_minimum", "Wager below the level's minimum"),
                            ("not_max_bet", "Not a max bet on a max-bet-only level"),
                        ],
                        max_length=24,
                        verbose_name="code",
                    ),
                ),
                ("detail", models.TextField(verbose_name="detail")),
                (
                    "at",
                    models.DateTimeField(
                        help_text="The jackpot event's time (the machine's clock).",
                        verbose_name="reported at",
                    ),
                ),
                (
                    "batch",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="jackpots.contributionbatch",
                    ),
                ),
                (
                    "level",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="refusals",
                        to="jackpots.level",
                        verbose_name="level",
                    ),
                ),
                (
                    "machine",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="slots.slotmachine",
                        verbose_name="machine",
                    ),
                ),
            ],
            options={
                "verbose_name": "refused jackpot report",
                "verbose_name_plural": "refused jackpot reports",
                "ordering": ["-at", "-id"],
            },
        ),
        migrations.RunPython(_play_seq_backfill, migrations.RunPython.noop),
    ]
