from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SignageConfig(AppConfig):
    name = "signage"
    verbose_name = _("Signs")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The engine cannot import the signs: they hear of its changes through what they register here.
        from signage.publish import listeners_register

        listeners_register()
