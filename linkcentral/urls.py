"""The link's API for its sites (config/urls.py includes it under ``api/v1/``)."""

from __future__ import annotations

from django.urls import path

from linkcentral.apis import LinkAwardsApi, LinkEntriesApi

urlpatterns = [
    path("link/entries", LinkEntriesApi.as_view(), name="link-entries"),
    path("link/awards", LinkAwardsApi.as_view(), name="link-awards"),
]
