from __future__ import annotations

from django.urls import path

from slots.apis import EventsApi

urlpatterns = [
    path("events", EventsApi.as_view(), name="events"),
]
