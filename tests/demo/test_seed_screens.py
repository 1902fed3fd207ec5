from __future__ import annotations

import pytest
from django.core.management import call_command

from common.credentials import screen_token_issue, screen_token_matches
from floor.models import SignageScreen

pytestmark = pytest.mark.django_db

# The table-game progressives link tables of both venues, so they are wide-area and shown everywhere.
WIDE_AREA = ["Caribbean Stud Progressive", "Jumbo 7 Jackpot", "Super Spin"]
AINSWORTH = ["Ainsworth VEN-0001", "Ainsworth VEN-0002", "Ainsworth VEN-0003"]


def shown(*in_room: str) -> list[str]:
    return sorted([*in_room, *WIDE_AREA])


def screens() -> dict[str, tuple[str, str, list[str]]]:
    return {
        screen.slug: (
            screen.room.venue.code,
            screen.name,
            sorted(screen.progressives.values_list("name", flat=True)),
        )
        for screen in SignageScreen.objects.select_related("room__venue")
    }


def test_one_screen_per_room_with_its_progressives_and_the_wide_area_ones() -> None:
    call_command("seed_venezia", "--machines-per-room", "12")
    assert screens() == {
        "nog-1": ("NOG", "Ca' Noghera · Sala Uno", shown("Diamond Vault", "Grease", "Venezia Mystery")),
        "nog-2": ("NOG", "Ca' Noghera · Sala Due", shown("Venezia Mystery")),
        "nog-3": ("NOG", "Ca' Noghera · Sala Tre", shown("Venezia Mystery")),
        "nog-4": ("NOG", "Ca' Noghera · Sala Quattro", shown("Venezia Mystery")),
        "nog-5": ("NOG", "Ca' Noghera · Sala Cinque", shown("Venezia Mystery")),
        "ven-1": ("VEN", "Ca' Vendramin Calergi · Sala Uno", shown(*AINSWORTH)),
        "ven-2": ("VEN", "Ca' Vendramin Calergi · Sala Due", shown()),
        "ven-3": ("VEN", "Ca' Vendramin Calergi · Sala Tre", shown()),
        "ven-4": ("VEN", "Ca' Vendramin Calergi · Sala Quattro", shown()),
    }


def test_seeding_again_keeps_screens_and_their_tokens() -> None:
    call_command("seed_venezia", "--machines-per-room", "12")
    token = screen_token_issue(SignageScreen.objects.get(slug="nog-1"))
    first = screens()
    call_command("seed_venezia", "--machines-per-room", "12")
    assert screens() == first
    assert SignageScreen.objects.count() == 9
    assert screen_token_matches(SignageScreen.objects.get(slug="nog-1"), token)
