"""GET /api/v1/gateway/config: a venue's SAS machines and progressive groups, for its gateway (thin)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api_errors import ApiError
from gatewaylink.selectors import GroupConflict, gateway_config
from slots.apis import EventKeyAuthentication

CONFIG_ERRORS: dict[str, str] = {
    "missing_key": "No Authorization: Bearer <key> header was sent.",
    "invalid_key": "The key is unknown or has been revoked.",
    "gateway_key_required": "Only a venue's gateway key may read its gateway configuration.",
    "sas_group_conflict": "Two progressives played by the venue's SAS machines use the same SAS group.",
}


class ConfigRefused(ApiError):
    errors = CONFIG_ERRORS


class GatewayMachineSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Asset number, as the events name the machine.")
    line = serializers.CharField(help_text="The gateway's serial line the machine is on.")
    address = serializers.IntegerField(min_value=1, max_value=127, help_text="SAS address on the line.")
    denomination = serializers.IntegerField(help_text="Cents per credit.")
    group = serializers.IntegerField(help_text="SAS progressive group the machine shows; 0: none.")
    min_bet = serializers.IntegerField(help_text="Cents: the smallest bet the machine takes.")
    max_bet = serializers.IntegerField(help_text="Cents.")
    handpay_limit = serializers.IntegerField(
        allow_null=True, help_text="Cents; awards above it go to an attendant. Null: not known."
    )
    last_seq = serializers.IntegerField(
        min_value=0,
        help_text="The highest event seq the server stored for the machine (0: none). A gateway that lost "
        "its store numbers the machine's next events from here.",
    )


class GatewayGroupSerializer(serializers.Serializer):
    group = serializers.IntegerField(min_value=1, max_value=255)
    progressive = serializers.IntegerField(help_text="The progressive broadcast under this group.")
    broadcast_lp = serializers.IntegerField(help_text="134 (0x86): all levels in one frame.")
    levels = serializers.DictField(
        child=serializers.IntegerField(), help_text="SAS level (1-32, as text) -> server level id."
    )
    reset_eur = serializers.DictField(
        child=serializers.CharField(), help_text="SAS level (as text) -> reset amount in euros."
    )
    min_wager = serializers.DictField(
        child=serializers.IntegerField(), help_text="SAS level (as text) -> minimum eligible wager in cents."
    )
    max_bet_only = serializers.DictField(
        child=serializers.BooleanField(),
        help_text="SAS level (as text) -> won only on the machine's max bet.",
    )
    mystery = serializers.DictField(
        child=serializers.BooleanField(),
        help_text="SAS level (as text) -> drawn by the server, never hit by the machine.",
    )


class GatewayConfigSerializer(serializers.Serializer):
    machines = GatewayMachineSerializer(many=True)
    groups = GatewayGroupSerializer(many=True)


class ConfigErrorSerializer(serializers.Serializer):
    error = serializers.ChoiceField(choices=list(CONFIG_ERRORS.items()))
    detail = serializers.CharField()


def _examples(*codes: str) -> list[OpenApiExample]:
    return [
        OpenApiExample(code, value={"error": code, "detail": CONFIG_ERRORS[code]}, response_only=True)
        for code in codes
    ]


class GatewayConfigApi(APIView):
    authentication_classes = [EventKeyAuthentication]
    permission_classes: list = []

    @extend_schema(
        operation_id="gateway_config",
        summary="The venue's SAS machines and progressive groups",
        responses={
            200: GatewayConfigSerializer,
            401: OpenApiResponse(ConfigErrorSerializer, examples=_examples("missing_key", "invalid_key")),
            403: OpenApiResponse(ConfigErrorSerializer, examples=_examples("gateway_key_required")),
            409: OpenApiResponse(ConfigErrorSerializer, examples=_examples("sas_group_conflict")),
        },
    )
    def get(self, request: Request) -> Response:
        venue_id = request.auth.venue_id
        if venue_id is None:
            raise ConfigRefused(403, "gateway_key_required")
        try:
            config = gateway_config(venue_id)
        except GroupConflict as conflict:
            raise ConfigRefused(
                409,
                "sas_group_conflict",
                f"SAS group {conflict.group} is used by both {conflict.names[0]} and {conflict.names[1]}; "
                "give each progressive its own group.",
            ) from None
        return Response(GatewayConfigSerializer(config).data)
