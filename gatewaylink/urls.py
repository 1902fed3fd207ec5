from __future__ import annotations

from django.urls import path

from gatewaylink.apis import GatewayConfigApi

urlpatterns = [
    path("gateway/config", GatewayConfigApi.as_view(), name="gateway-config"),
]
