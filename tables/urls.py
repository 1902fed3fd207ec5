from __future__ import annotations

from django.urls import path

from tables.apis import TableDisplayApi, TableRoundsApi, TableRoundVoidApi

urlpatterns = [
    path("tables/<str:code>", TableDisplayApi.as_view(), name="table-display"),
    path("tables/<str:code>/rounds", TableRoundsApi.as_view(), name="table-rounds"),
    path(
        "tables/<str:code>/rounds/<str:round_id>/void", TableRoundVoidApi.as_view(), name="table-round-void"
    ),
]
