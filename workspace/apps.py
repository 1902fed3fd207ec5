from __future__ import annotations

from django.apps import AppConfig


class WorkspaceConfig(AppConfig):
    name = "workspace"
    verbose_name = "Workspace"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The floor maps hear of machine changes from slots through slots.hooks (slots cannot import them).
        from slots.hooks import hooks
        from workspace.live.publish import machines_changed

        if machines_changed not in hooks.machines_changed:
            hooks.machines_changed.append(machines_changed)
