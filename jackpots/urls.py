from __future__ import annotations

from django.urls import path

from jackpots.apis import JackpotDetailApi, JackpotListApi

urlpatterns = [
    path("jackpots", JackpotListApi.as_view(), name="jackpots-list"),
    path("jackpots/<str:progressive_id>", JackpotDetailApi.as_view(), name="jackpots-detail"),
]
