from django.apps import AppConfig


class JackpotsConfig(AppConfig):
    name = "jackpots"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        hooks_register()


def hooks_register() -> None:
    """The engine hears of stored events from slots through slots.hooks (slots cannot import it)."""
    from jackpots.selectors import levels_played
    from jackpots.tasks import contributions_apply_task
    from slots.hooks import hooks

    hooks.engine_wake = contributions_apply_task.delay
    hooks.levels_played = levels_played
