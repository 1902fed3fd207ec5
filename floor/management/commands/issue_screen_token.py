"""``manage.py issue_screen_token <screen slug>``: prints a new token for a signage screen, nothing else."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from common.credentials import screen_token_issue
from floor.models import SignageScreen


class Command(BaseCommand):
    help = "Issues a new token for a signage screen and prints it; the screen's previous token stops working."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="The screen's slug, e.g. nog-1.")

    def handle(self, *args, slug: str, **options) -> None:
        screen = SignageScreen.objects.filter(slug=slug).first()
        if screen is None:
            raise CommandError(f"No signage screen has the slug {slug!r}.")
        self.stdout.write(screen_token_issue(screen))
