"""The product's URLs with the link's API (config/urls.py includes linkcentral.urls once the lead wires
it; until then the link's tests use this)."""

from __future__ import annotations

from django.urls import include, path

from config.urls import handler400, handler403, handler404, handler500
from config.urls import urlpatterns as product_urlpatterns

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]

urlpatterns = [path("api/v1/", include("linkcentral.urls")), *product_urlpatterns]
