"""Public, read-only jackpot amounts (docs/api.md "Jackpots (read)")."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from jackpots.selectors import progressive_public, progressives_list, progressives_public


class LastHitSerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    amount_eur = serializers.CharField(help_text="Euros, 2 decimals.")
    machine = serializers.CharField(allow_null=True)
    hit_number = serializers.CharField(
        allow_null=True, help_text="The hit's number per venue and business year, e.g. NOG-2026-00123."
    )


class LevelPublicSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    amount_eur = serializers.CharField(help_text="Current amount in euros, rounded down to the cent.")
    reset_eur = serializers.CharField()
    seq = serializers.IntegerField(help_text="Value sequence: +1 on every change of the level.")
    state = serializers.ChoiceField(
        choices=["active", "suspended"],
        help_text="suspended: out of play for now (no contribution, no hit); a retired level is not listed.",
    )
    last_hit = LastHitSerializer(allow_null=True)


class ProgressivePublicSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=["standalone", "linked", "wide_area"])
    currency = serializers.CharField()
    venues = serializers.ListField(child=serializers.CharField())
    link = serializers.ChoiceField(choices=["up", "down"])
    levels = LevelPublicSerializer(many=True)


class ErrorSerializer(serializers.Serializer):
    error = serializers.CharField(help_text="A stable error code.")
    detail = serializers.CharField()


class JackpotListApi(APIView):
    @extend_schema(responses=ProgressivePublicSerializer(many=True), operation_id="jackpots_list")
    def get(self, request: Request) -> Response:
        data = progressives_public(progressives_list())
        return Response(ProgressivePublicSerializer(data, many=True).data)


class JackpotDetailApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("progressive_id", int, OpenApiParameter.PATH)],
        responses={200: ProgressivePublicSerializer, 404: ErrorSerializer},
        operation_id="jackpots_detail",
    )
    def get(self, request: Request, progressive_id: str) -> Response:
        # Any text reaches the view (not an <int:> route) so that a malformed id gets the API's JSON 404;
        # more than 18 digits cannot be a key and would overflow the database's integer.
        well_formed = progressive_id.isascii() and progressive_id.isdigit() and len(progressive_id) <= 18
        progressive = progressives_list().filter(pk=int(progressive_id)).first() if well_formed else None
        if progressive is None:
            return Response(
                {"error": "not_found", "detail": f"There is no jackpot {progressive_id}."}, status=404
            )
        return Response(ProgressivePublicSerializer(progressive_public(progressive)).data)
