from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from signage.views import progressive_rules_view
from workspace.views import healthz

# JSON errors on /api/... paths, Django's pages elsewhere (common.api_errors).
handler400 = "common.api_errors.bad_request"
handler403 = "common.api_errors.permission_denied"
handler404 = "common.api_errors.page_not_found"
handler500 = "common.api_errors.server_error"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/v1/", include("slots.urls")),
    path("api/v1/", include("gatewaylink.urls")),
    path("api/v1/", include("linkcentral.urls")),
    path("api/v1/", include("jackpots.urls")),
    path("api/v1/", include("tables.urls")),
    path("signage/", include("signage.urls")),
    # Public: the rules a player is told, per progressive (no login).
    path("rules/<int:progressive>/", progressive_rules_view, name="progressive-rules"),
    path("", include("workspace.urls")),
]
