"""``manage.py demo_admin``: the superuser ``admin`` with a freshly generated password, printed."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from demo.services.start import admin_user_ensure


class Command(BaseCommand):
    help = "Creates or updates the superuser 'admin' with a new random password and prints it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="admin")

    def handle(self, *args, username: str, **options) -> None:
        password = admin_user_ensure(username)
        self.stdout.write(f"Admin user: {username}   password: {password}")
