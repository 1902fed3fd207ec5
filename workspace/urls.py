"""Workspace pages (staff only)."""

from __future__ import annotations

from django.templatetags.static import static
from django.urls import URLPattern, URLResolver, path
from django.views.generic import RedirectView

from workspace.dayclose import views as dayclose
from workspace.desk import views as desk
from workspace.progressives import views as progressives
from workspace.signs import views as signs

app_name = "workspace"

urlpatterns: list[URLPattern | URLResolver] = [
    path("", RedirectView.as_view(pattern_name="workspace:hits"), name="home"),
    # Browsers ask for /favicon.ico on every page without an icon link (the admin's among them).
    path("favicon.ico", RedirectView.as_view(url=static("workspace/favicon.svg")), name="favicon"),
    path("hits/", desk.hits_desk_view, name="hits"),
    path("hits/<int:pk>/slip/<str:variant>.pdf", desk.hit_slip_view, name="hit-slip"),
    path("hits/<int:pk>/<str:action>/", desk.hit_action_view, name="hit-action"),
    path("progressives/", progressives.progressives_view, name="progressives"),
    path("progressives/levels/<int:pk>/", progressives.level_view, name="level"),
    path("dayclose/", dayclose.dayclose_view, name="dayclose"),
    path("dayclose/<str:venue>/<str:day>.csv", dayclose.dayclose_csv_view, name="dayclose-csv"),
    path("dayclose/<str:venue>/<str:day>.pdf", dayclose.dayclose_pdf_view, name="dayclose-pdf"),
    path("signs/", signs.signs_view, name="signs"),
    path("signs/<slug:screen>/preview/", signs.sign_preview_view, name="sign-preview"),
]
