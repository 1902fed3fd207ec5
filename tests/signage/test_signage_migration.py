"""The signs' models left the jackpots app for this one (jackpots 0021, signage 0001): an installation keeps
its themes and presences in the same tables, and a permission granted on them keeps working, because their
content types are renamed rather than created anew."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType

from signage.models import ScreenPresence, SignTheme
from tests.factories import ProgressiveFactory, SignageScreenFactory
from tests.migrations import migrate, migrate_latest

BEFORE = [("jackpots", "0020_merge_lifecycle"), ("signage", None)]
AFTER = [("signage", "0001_initial")]
MOVED = ("screenpresence", "signtheme")


def _labels() -> list[tuple[str, str]]:
    return sorted(ContentType.objects.filter(model__in=MOVED).values_list("app_label", "model"))


@pytest.mark.django_db(transaction=True)
def test_themes_presences_and_the_permissions_on_them_move_to_signage():
    progressive = ProgressiveFactory(name="Diamond Vault")
    screen = SignageScreenFactory(slug="nog-1")
    executor = migrate(BEFORE)
    try:
        old = executor.loader.project_state([BEFORE[0]]).apps
        assert _labels() == [("jackpots", "screenpresence"), ("jackpots", "signtheme")]
        old.get_model("jackpots", "SignTheme").objects.create(
            progressive_id=progressive.pk, preset="ice", title="Diamante", accent="#00aaff"
        )
        old.get_model("jackpots", "ScreenPresence").objects.create(screen_id=screen.pk, connections=2)
        group = old.get_model("auth", "Group").objects.create(name="Sign editors")
        change_theme = old.get_model("auth", "Permission").objects.get(
            content_type__app_label="jackpots", codename="change_signtheme"
        )
        group.permissions.add(change_theme)
    finally:
        migrate(AFTER)
        migrate_latest()
    ContentType.objects.clear_cache()

    assert _labels() == [("signage", "screenpresence"), ("signage", "signtheme")]
    assert list(SignTheme.objects.values_list("progressive__name", "preset", "title", "accent")) == [
        ("Diamond Vault", "ice", "Diamante", "#00aaff")
    ]
    assert list(ScreenPresence.objects.values_list("screen__slug", "connections")) == [("nog-1", 2)]
    assert Permission.objects.get(content_type__app_label="signage", codename="change_signtheme").pk == (
        change_theme.pk
    )
    editor = get_user_model().objects.create_user("editor", is_staff=True)
    editor.groups.add(group.pk)
    assert editor.has_perm("signage.change_signtheme") is True
    assert editor.has_perm("signage.delete_signtheme") is False
