"""POST /api/v1/events: thin. Size limit, key, decoding, then one service call.

The response is written with orjson straight into an HttpResponse: the per-event work is in
slots.services, and a DRF serializer per event would cost more than storing it.
"""

from __future__ import annotations

import orjson
from django.http import HttpResponse
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework.authentication import BaseAuthentication
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.views import APIView

from common.request_body import body_length_check, body_read, refusal_response
from slots.apis_schema import (
    EVENTS_DESCRIPTION,
    EventsRequestSerializer,
    EventsResultSerializer,
    RequestErrorSerializer,
    request_error_examples,
)
from slots.services.auth import principal_authenticate, principal_confirm
from slots.services.errors import RequestRefused
from slots.services.ingest import event_batch_ingest
from slots.services.parsing import events_decode

REALM = "events"


class EventKeyAuthentication(BaseAuthentication):
    """Authorization: Bearer <machine or gateway key>; the principal is the request's ``auth``."""

    def authenticate(self, request: Request) -> tuple[None, object]:
        return None, principal_authenticate(request.META.get("HTTP_AUTHORIZATION"))

    def authenticate_header(self, request: Request) -> str:
        return f'Bearer realm="{REALM}"'


def _json(status: int, content: dict) -> HttpResponse:
    return HttpResponse(orjson.dumps(content), status=status, content_type="application/json")


class EventsApi(APIView):
    authentication_classes = [EventKeyAuthentication]
    permission_classes: list = []
    # Declared for the schema only: the view reads the raw body itself (orjson, size limit).
    parser_classes = [JSONParser]

    @extend_schema(
        operation_id="events_create",
        summary="Post machine events",
        description=EVENTS_DESCRIPTION,
        request=EventsRequestSerializer,
        responses={
            200: OpenApiResponse(
                EventsResultSerializer,
                description="Every event's fate: accepted, duplicate or rejected with a code.",
            ),
            400: OpenApiResponse(
                RequestErrorSerializer,
                description="The request is refused whole: invalid_json, invalid_body or too_many_events.",
                examples=request_error_examples("invalid_json", "invalid_body", "too_many_events"),
            ),
            401: OpenApiResponse(
                RequestErrorSerializer,
                description="No key (missing_key), or an unknown or revoked key (invalid_key).",
                examples=request_error_examples("missing_key", "invalid_key"),
            ),
            413: OpenApiResponse(
                RequestErrorSerializer,
                description="The body is larger than 1 MiB (body_too_large).",
                examples=request_error_examples("body_too_large"),
            ),
            503: OpenApiResponse(
                RequestErrorSerializer,
                description="The database is unreachable (database_unavailable); retry after Retry-After.",
                examples=request_error_examples("database_unavailable"),
            ),
        },
        examples=[
            OpenApiExample(
                "A game and a status",
                request_only=True,
                value={
                    "events": [
                        {
                            "machine": "NOG-0101",
                            "seq": 1042,
                            "at": "2026-11-21T18:03:05.120Z",
                            "type": "game",
                            "wager": 450,
                            "win": 0,
                        },
                        {
                            "machine": "NOG-0101",
                            "seq": 1045,
                            "at": "2026-11-21T18:03:10.000Z",
                            "type": "status",
                            "status": "door_open",
                        },
                    ]
                },
            ),
            OpenApiExample(
                "One rejected",
                response_only=True,
                status_codes=["200"],
                value={
                    "accepted": 3,
                    "duplicates": 1,
                    "rejected": [
                        {"index": 2, "error": "unknown_meter", "detail": "'coins' is not a known meter."}
                    ],
                },
            ),
        ],
    )
    def post(self, request: Request) -> HttpResponse:
        try:
            events = events_decode(self.body)
        except RequestRefused:
            # A key revoked since it was cached is told so, not its body's fault.
            principal_confirm(request.auth)
            raise
        result = event_batch_ingest(events, principal=request.auth)
        return _json(200, result.as_dict())

    @staticmethod
    def body_key_refusal(authorization: str | None) -> HttpResponse | None:
        """config.http asks before it reads a body that arrives in several parts."""
        try:
            principal_authenticate(authorization)
        except RequestRefused as refusal:
            return refusal_response(refusal, REALM)
        return None

    def initial(self, request: Request, *args, **kwargs) -> None:
        # A body declared too large is refused first, unread; then the key (DRF's authentication), and
        # only then is the body read: a refused key costs no body read.
        if request.method == "POST":
            body_length_check(request._request)
        super().initial(request, *args, **kwargs)
        if request.method == "POST":
            self.body = body_read(request._request)
