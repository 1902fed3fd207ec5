from django.apps import AppConfig


class JackpotsConfig(AppConfig):
    name = "jackpots"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The table games' admin lives with them; registering it here keeps it out of the app's admin.
        from jackpots.tables import admin  # noqa: F401
