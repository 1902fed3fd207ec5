from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SlotsConfig(AppConfig):
    name = "slots"
    verbose_name = _("Slot machines")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created
        from django.db.models.signals import post_delete, post_save

        from slots.models import GatewayKey, MachineKey
        from slots.services.storage import stage_on_connect

        connection_created.connect(stage_on_connect, dispatch_uid="slots-event-stage")

        # A key revoked or deleted is forgotten here at once; every process's next write checks its row
        # (slots.services.auth).
        for model in (MachineKey, GatewayKey):
            post_save.connect(
                principal_cache_clear_receiver, sender=model, dispatch_uid=f"keys-{model.__name__}"
            )
            post_delete.connect(
                principal_cache_clear_receiver, sender=model, dispatch_uid=f"keys-del-{model.__name__}"
            )


def principal_cache_clear_receiver(sender: type, **kwargs: object) -> None:
    from slots.services.auth import keys_revocation_publish

    if kwargs.get("created"):
        return  # a new key revokes nothing
    keys_revocation_publish()
