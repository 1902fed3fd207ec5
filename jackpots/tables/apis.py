"""The table rounds API (API.md "Table rounds"): thin views over the round services."""

from __future__ import annotations

import orjson
from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from config.request_body import body_read, refusal_response
from floor.credentials import credential_find
from jackpots.tables.models import Table, TableKey
from jackpots.tables.round_input import RoundError
from jackpots.tables.schemas import (
    ROUND_EXAMPLE,
    TABLE_CODE,
    DisplayAnswer,
    ErrorSerializer,
    RoundAnswer,
    RoundRequest,
    VoidAnswer,
    VoidRequest,
)
from jackpots.tables.selectors import table_display
from jackpots.tables.services import round_record, round_void
from slots.services.errors import RequestRefused

REALM = "tables"


def _json(status: int, content: dict) -> HttpResponse:
    return HttpResponse(orjson.dumps(content), status=status, content_type="application/json")


def _error(status: int, code: str, detail: str) -> HttpResponse:
    return _json(status, {"error": code, "detail": detail})


def _table_key(authorization: str | None) -> TableKey | None:
    scheme, _, key = (authorization or "").partition(" ")
    return credential_find(TableKey, key.strip()) if scheme.lower() == "bearer" else None


def _key_refusal(authorization: str | None) -> HttpResponse | None:
    """The 401 of a request without a valid table key; config.http asks before it reads a body that
    arrives in several parts."""
    if _table_key(authorization) is not None:
        return None
    detail = "A table key is required: Authorization: Bearer <key>."
    return refusal_response(RequestRefused(401, "unauthorized", detail), REALM)


def _body(request: Request) -> bytes | HttpResponse:
    """The body, or the 413 of one over the limit (config.request_body)."""
    try:
        return body_read(request._request)
    except RequestRefused as refusal:
        return refusal_response(refusal, REALM)


def _authorized_table(request: Request, code: str) -> Table | HttpResponse:
    """The table named in the path, if the request carries one of its keys."""
    credential = _table_key(request.META.get("HTTP_AUTHORIZATION"))
    if credential is None:
        return _key_refusal(None)
    table = Table.objects.select_related("venue", "progressive__pay_table__level").filter(code=code).first()
    if table is None:
        return _error(404, "unknown_table", f"There is no table {code}.")
    if credential.table_id != table.id:
        return _error(403, "forbidden_table", f"This key belongs to another table, not {code}.")
    return table


class TableRoundsApi(APIView):
    authentication_classes: list = []
    permission_classes: list = []
    body_key_refusal = staticmethod(_key_refusal)

    @extend_schema(
        operation_id="table_rounds_create",
        summary="Post a table round",
        description=(
            "The server evaluates every hand against the progressive's pay table. A retry of a round id "
            "returns the first answer (200); a new round answers 201. Bad cards (unknown_card, "
            "duplicate_card, wrong_card_count) and bad bets are refused with 400 and change nothing."
        ),
        request=RoundRequest,
        parameters=[TABLE_CODE],
        examples=[ROUND_EXAMPLE],
        responses={
            200: RoundAnswer,
            201: RoundAnswer,
            400: OpenApiResponse(ErrorSerializer),
            401: OpenApiResponse(ErrorSerializer),
            403: OpenApiResponse(ErrorSerializer),
            404: OpenApiResponse(ErrorSerializer),
            409: OpenApiResponse(
                ErrorSerializer,
                description="round_conflict, no_exchange_rate, progressive_stopped, table_inactive.",
            ),
            413: OpenApiResponse(
                ErrorSerializer, description="The body is larger than 1 MiB (body_too_large)."
            ),
        },
    )
    def post(self, request: Request, code: str) -> HttpResponse:
        table = _authorized_table(request, code)
        if isinstance(table, HttpResponse):
            return table
        body = _body(request)
        if isinstance(body, HttpResponse):
            return body
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError:
            return _error(400, "invalid_json", "The body is not valid JSON.")
        try:
            answer, created = round_record(table, data)
        except RoundError as error:
            return _error(error.status, error.code, error.detail)
        return _json(201 if created else 200, answer)


class TableRoundVoidApi(APIView):
    authentication_classes: list = []
    permission_classes: list = []
    body_key_refusal = staticmethod(_key_refusal)

    @extend_schema(
        operation_id="table_round_void",
        summary="Void a table round",
        description=(
            "Refunds the round's jackpot bets, reverses its contributions and voids its awards with "
            "compensating ledger entries. Voiding a voided round answers the same again."
        ),
        request=VoidRequest,
        parameters=[TABLE_CODE],
        responses={
            200: OpenApiResponse(VoidAnswer, description="The round, voided, and its refunds."),
            400: OpenApiResponse(ErrorSerializer),
            401: OpenApiResponse(ErrorSerializer),
            403: OpenApiResponse(ErrorSerializer),
            404: OpenApiResponse(ErrorSerializer, description="unknown_table, round_not_found."),
            409: OpenApiResponse(
                ErrorSerializer,
                description="later_hit, shared_award, carry_restarted, hit_not_voidable: void in order.",
            ),
        },
    )
    def post(self, request: Request, code: str, round_id: str) -> HttpResponse:
        table = _authorized_table(request, code)
        if isinstance(table, HttpResponse):
            return table
        body = _body(request)
        if isinstance(body, HttpResponse):
            return body
        reason = ""
        if body:
            try:
                document = orjson.loads(body)
            except orjson.JSONDecodeError:
                return _error(400, "invalid_json", "The body is not valid JSON.")
            reason = document.get("reason", "") if isinstance(document, dict) else ""
            if not isinstance(reason, str):
                return _error(400, "invalid_reason", "reason must be a string.")
        try:
            answer = round_void(table, round_id, reason=reason)
        except RoundError as error:
            return _error(error.status, error.code, error.detail)
        return _json(200, answer)


class TableDisplayApi(APIView):
    """What a table's jackpot display shows, in the venue's currency (public, like the jackpots)."""

    authentication_classes: list = []
    permission_classes: list = []

    @extend_schema(
        operation_id="table_display",
        summary="A table's jackpot display",
        parameters=[TABLE_CODE],
        responses={
            200: DisplayAnswer,
            404: OpenApiResponse(ErrorSerializer, description="unknown_table."),
            409: OpenApiResponse(ErrorSerializer, description="no_exchange_rate."),
        },
    )
    def get(self, request: Request, code: str) -> HttpResponse:
        table = (
            Table.objects.select_related("venue", "progressive__pay_table__level").filter(code=code).first()
        )
        if table is None:
            return _error(404, "unknown_table", f"There is no table {code}.")
        try:
            return _json(200, table_display(table, timezone.now()))
        except RoundError as error:
            return _error(error.status, error.code, error.detail)
