"""The top of the house: the demo. May import every app below it; none imports it."""

from __future__ import annotations

from django.apps import AppConfig
from django.conf import settings


class DemoConfig(AppConfig):
    name = "demo"
    verbose_name = "Demo"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The server starts what common.lifespan holds (config/lifespan.py cannot import the demo): on the
        # embedded default, the floor ticker, inside the server, where the signs' channel layer lives.
        if settings.FLOOR_TICKER_IN_SERVER:
            from common.lifespan import server_task_register
            from demo.services.ticker import beat_jobs_serve

            server_task_register(beat_jobs_serve)
