"""What staff use.

The hits desk, the live floor map, progressives, reports, day close, inventory, sign previews, health.
May import every app below it; only the demo (demo/) imports it.
"""

from __future__ import annotations

from django.apps import AppConfig


class WorkspaceConfig(AppConfig):
    name = "workspace"
    verbose_name = "Workspace"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The floor maps hear of machine changes from slots through slots.hooks (slots cannot import them).
        from slots.hooks import hooks
        from workspace.live.publish import machines_changed, machines_played

        if machines_changed not in hooks.machines_changed:
            hooks.machines_changed.append(machines_changed)
        if machines_played not in hooks.machines_played:
            hooks.machines_played.append(machines_played)

        from django.contrib import admin
        from django.utils.translation import gettext_lazy

        # The admin is the configuration side of Progressivo: its header names the product and its
        # "View site" leads back to the workspace.
        admin.site.site_header = "Progressivo"
        admin.site.site_title = "Progressivo"
        admin.site.index_title = gettext_lazy("Configuration")
        admin.site.site_url = "/"
        # The application list beside every page left a list 791 px of a 1440 px window: the index and
        # the breadcrumbs lead between the models.
        admin.site.enable_nav_sidebar = False
