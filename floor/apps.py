from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class FloorConfig(AppConfig):
    name = "floor"
    verbose_name = _("Casino floor")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from common.credentials import credential_listeners
        from floor.roles import roles_post_migrate
        from floor.services.significant import credential_listener

        if credential_listener not in credential_listeners:
            credential_listeners.append(credential_listener)

        post_migrate.connect(roles_post_migrate, dispatch_uid="floor.roles_post_migrate")
