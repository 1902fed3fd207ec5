from __future__ import annotations

from django.urls import path  # noqa: F401 - routes are added by the features of this app

urlpatterns: list = []
