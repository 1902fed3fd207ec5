"""SasAward moved from the engine to gatewaylink with its table (jackpots_sasaward) and its content type:
an installation that granted permissions on it keeps them (migration gatewaylink 0001)."""

from __future__ import annotations

import importlib

from django.apps import apps
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection

from gatewaylink.models import SasAward

moved = importlib.import_module("gatewaylink.migrations.0001_initial")


def test_the_award_answers_keep_the_engines_table(db):
    assert SasAward._meta.db_table == "jackpots_sasaward"
    assert "jackpots_sasaward" in connection.introspection.table_names()


def test_the_content_type_is_renamed_with_its_permissions(db, manager):
    content_type = ContentType.objects.get(app_label="gatewaylink", model="sasaward")
    permissions = sorted(Permission.objects.filter(content_type=content_type).values_list("id", "codename"))
    # An installation before the move: the content type (and the permissions on it) named the engine.
    ContentType.objects.filter(pk=content_type.pk).update(app_label="jackpots")
    ContentType.objects.clear_cache()

    moved.content_types_move(apps, None)

    ContentType.objects.clear_cache()
    renamed = ContentType.objects.get(pk=content_type.pk)
    assert (renamed.app_label, renamed.model) == ("gatewaylink", "sasaward")
    assert (
        sorted(Permission.objects.filter(content_type=renamed).values_list("id", "codename")) == permissions
    )
    assert [codename for _id, codename in permissions] == [
        "add_sasaward",
        "change_sasaward",
        "delete_sasaward",
        "view_sasaward",
    ]
    assert manager.has_perm("gatewaylink.view_sasaward")
    assert not manager.has_perm("gatewaylink.change_sasaward")


def test_the_move_back_names_the_engine_again(db):
    content_type = ContentType.objects.get(app_label="gatewaylink", model="sasaward")

    moved.content_types_move_back(apps, None)

    assert (
        ContentType.objects.filter(pk=content_type.pk).values_list("app_label", flat=True).get() == "jackpots"
    )
