"""Workspace pages (staff only)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from workspace.inventory import views as inventory
from workspace.live import views as live
from workspace.reports import views as reports

app_name = "workspace"

urlpatterns: list[URLPattern | URLResolver] = [
    path("floor/reports/", reports.reports_index, name="reports"),
    path("floor/reports/games/", reports.game_report_view, name="report-games"),
    path("floor/reports/room-hours/", reports.room_hours_view, name="report-room-hours"),
    path("floor/reports/liability/", reports.liability_view, name="report-liability"),
    path("floor/reports/level-history/", reports.level_history_view, name="report-level-history"),
    path("floor/inventory/", inventory.inventory_view, name="inventory"),
    path("floor/machines/<str:asset>/", live.machine_panel_view, name="machine-panel"),
    path("floor/<str:venue>/", live.venue_overview_view, name="venue"),
    path("floor/<str:venue>/<int:room>/", live.floor_map_view, name="map"),
]
