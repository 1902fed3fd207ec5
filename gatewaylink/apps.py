from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GatewaylinkConfig(AppConfig):
    name = "gatewaylink"
    verbose_name = _("SAS gateways")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from gatewaylink.publish import listeners_register

        listeners_register()
