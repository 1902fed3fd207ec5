from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SlotsConfig(AppConfig):
    name = "slots"
    verbose_name = _("Slot machines")
    default_auto_field = "django.db.models.BigAutoField"
