"""Workspace pages (staff only)."""

from __future__ import annotations

from django.templatetags.static import static
from django.urls import URLPattern, URLResolver, path
from django.views.generic import RedirectView

from workspace.access import workspace_page
from workspace.approvals import views as approvals
from workspace.dayclose import views as dayclose
from workspace.declarations import views as declarations
from workspace.desk import views as desk
from workspace.events import views as events
from workspace.inventory import views as inventory
from workspace.live import views as live
from workspace.progressives import views as progressives
from workspace.reports import views as reports
from workspace.shell import venue_switch_view
from workspace.signs import views as signs

app_name = "workspace"

urlpatterns: list[URLPattern | URLResolver] = [
    path("", RedirectView.as_view(pattern_name="workspace:hits"), name="home"),
    # Browsers ask for /favicon.ico on every page without an icon link (the admin's among them).
    path("favicon.ico", RedirectView.as_view(url=static("workspace/favicon.svg")), name="favicon"),
    path("venue/", workspace_page()(venue_switch_view), name="venue-switch"),
    path("hits/", desk.hits_desk_view, name="hits"),
    path("hits/<int:pk>/slip/<str:variant>.pdf", desk.hit_slip_view, name="hit-slip"),
    path("hits/<int:pk>/<str:action>/", desk.hit_action_view, name="hit-action"),
    path("hits/parts/<int:pk>/slip/<str:variant>.pdf", desk.part_slip_view, name="part-slip"),
    path("hits/parts/<int:pk>/<str:action>/", desk.part_action_view, name="part-action"),
    path("tables/declarations/", declarations.declarations_view, name="declarations"),
    path(
        "tables/declarations/<int:pk>/release/",
        declarations.declaration_release_view,
        name="declaration-release",
    ),
    path("progressives/", progressives.progressives_view, name="progressives"),
    path("progressives/levels/<int:pk>/", progressives.level_view, name="level"),
    path(
        "progressives/levels/<int:pk>/propose/<str:kind>/", approvals.level_propose_view, name="level-propose"
    ),
    path("approvals/", approvals.approvals_view, name="approvals"),
    path("approvals/<int:pk>/<str:action>/", approvals.proposal_decide_view, name="proposal-decide"),
    path("dayclose/", dayclose.dayclose_view, name="dayclose"),
    path("dayclose/<str:venue>/<str:day>.csv", dayclose.dayclose_csv_view, name="dayclose-csv"),
    path("dayclose/<str:venue>/<str:day>.pdf", dayclose.dayclose_pdf_view, name="dayclose-pdf"),
    path(
        "dayclose/<str:venue>/<str:day>/register.csv",
        dayclose.register_csv_view,
        name="dayclose-register-csv",
    ),
    path(
        "dayclose/<str:venue>/<str:day>/register.pdf",
        dayclose.register_pdf_view,
        name="dayclose-register-pdf",
    ),
    path("events/", events.events_home_view, name="events"),
    path("events/<str:venue>/<str:day>/", events.events_day_view, name="events-day"),
    path("events/<str:venue>/<str:day>/events.csv", events.events_csv_view, name="events-csv"),
    path("signs/", signs.signs_view, name="signs"),
    path("signs/<slug:screen>/preview/", signs.sign_preview_view, name="sign-preview"),
    path("floor/reports/", reports.reports_index, name="reports"),
    path("floor/reports/games/", reports.game_report_view, name="report-games"),
    path("floor/reports/room-hours/", reports.room_hours_view, name="report-room-hours"),
    path("floor/reports/liability/", reports.liability_view, name="report-liability"),
    path("floor/reports/level-history/", reports.level_history_view, name="report-level-history"),
    path("floor/inventory/", inventory.inventory_view, name="inventory"),
    path("floor/machines/<str:asset>/", live.machine_panel_view, name="machine-panel"),
    path("floor/<str:venue>/", live.venue_overview_view, name="venue"),
    path("floor/<str:venue>/<int:room>/", live.floor_map_view, name="map"),
    path("floor/<str:venue>/<int:room>/alerts/", live.floor_alerts_view, name="map-alerts"),
]
