from django.apps import AppConfig


class FloorConfig(AppConfig):
    name = "floor"
    default_auto_field = "django.db.models.BigAutoField"
