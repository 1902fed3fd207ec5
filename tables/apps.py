from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TablesConfig(AppConfig):
    name = "tables"
    label = "tables"
    verbose_name = _("Table games")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from tables.providers import providers_register

        providers_register()
