"""Workspace pages (staff only)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver

app_name = "workspace"

urlpatterns: list[URLPattern | URLResolver] = []
