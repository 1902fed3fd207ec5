from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SlotsConfig(AppConfig):
    name = "slots"
    verbose_name = _("Slot machines")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from slots.models import GatewayKey, MachineKey

        # A key revoked or deleted by this process stops working here at once; other processes forget
        # it within KEY_CACHE_SECONDS.
        for model in (MachineKey, GatewayKey):
            post_save.connect(
                principal_cache_clear_receiver, sender=model, dispatch_uid=f"keys-{model.__name__}"
            )
            post_delete.connect(
                principal_cache_clear_receiver, sender=model, dispatch_uid=f"keys-del-{model.__name__}"
            )


def principal_cache_clear_receiver(sender: type, **kwargs: object) -> None:
    from slots.services.auth import principal_cache_clear

    principal_cache_clear()
