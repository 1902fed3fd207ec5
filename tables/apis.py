"""The table rounds API (docs/api.md "Table rounds"): thin views over the round services. Refusals are raised
(ApiError, RoundError) and answered in the API's error shape by common.api_errors."""

from __future__ import annotations

import orjson
from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from common.api_errors import ApiError
from common.credentials import credential_find
from common.request_body import body_read, refusal_response
from tables.models import Table, TableKey
from tables.round_input import void_reason_parse
from tables.schemas import (
    ROUND_EXAMPLE,
    TABLE_CODE,
    DisplayAnswer,
    ErrorSerializer,
    RoundAnswer,
    RoundRequest,
    VoidAnswer,
    VoidRequest,
)
from tables.selectors import table_display
from tables.services import round_record, round_void

REALM = "tables"


def _json(status: int, content: dict) -> HttpResponse:
    return HttpResponse(orjson.dumps(content), status=status, content_type="application/json")


def _table(code: str) -> Table:
    table = Table.objects.select_related("venue", "progressive__pay_table__level").filter(code=code).first()
    if table is None:
        raise ApiError(404, "unknown_table", f"There is no table {code}.")
    return table


def _table_key(authorization: str | None) -> TableKey | None:
    scheme, _, key = (authorization or "").partition(" ")
    return credential_find(TableKey, key.strip()) if scheme.lower() == "bearer" else None


def _key_refusal(authorization: str | None) -> HttpResponse | None:
    """The 401 of a request without a valid table key; config.http asks before it reads a body that
    arrives in several parts."""
    if _table_key(authorization) is not None:
        return None
    return refusal_response(_unauthorized(), REALM)


def _unauthorized() -> ApiError:
    return ApiError(401, "unauthorized", "A table key is required: Authorization: Bearer <key>.")


def _authorized_table(request: Request, code: str) -> tuple[Table, TableKey]:
    """The table named in the path and the key the request carries, if it is one of the table's (a revoked
    key is refused on its next request: keys are looked up in the database every time, never cached)."""
    credential = _table_key(request.META.get("HTTP_AUTHORIZATION"))
    if credential is None:
        raise _unauthorized()
    table = _table(code)
    if credential.table_id != table.id:
        raise ApiError(403, "forbidden_table", f"This key belongs to another table, not {code}.")
    return table, credential


class TableRoundsApi(APIView):
    authentication_classes: list = []
    permission_classes: list = []
    body_key_refusal = staticmethod(_key_refusal)
    auth_realm = REALM

    @extend_schema(
        operation_id="table_rounds_create",
        summary="Post a table round",
        description=(
            "The server evaluates every hand against the progressive's pay table. A retry of a round id "
            "returns the first answer (200); a new round answers 201. Bad cards (unknown_card, "
            "duplicate_card, wrong_card_count) and bad bets are refused with 400 and change nothing. "
            "While a Caribbean Stud declaration is pending (the answer's pending and declaration), a round "
            "played after it is refused level_pending (409); one played before it shares its prize."
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
                description=(
                    "round_conflict, no_exchange_rate, level_suspended (the progressive's level is "
                    "suspended: no jackpot bets until resumed), level_retired, table_inactive; "
                    "level_pending: a Royal or Straight Flush is declared at a table of this progressive and "
                    "the round was played after it: post it again once the declaration is released."
                ),
            ),
            413: OpenApiResponse(
                ErrorSerializer, description="The body is larger than 1 MiB (body_too_large)."
            ),
        },
    )
    def post(self, request: Request, code: str) -> HttpResponse:
        table, key = _authorized_table(request, code)
        body = body_read(request._request)
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError:
            raise ApiError(400, "invalid_json") from None
        answer, created = round_record(table, data, key=key)
        return _json(201 if created else 200, answer)


class TableRoundVoidApi(APIView):
    authentication_classes: list = []
    permission_classes: list = []
    body_key_refusal = staticmethod(_key_refusal)
    auth_realm = REALM

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
        table, _key = _authorized_table(request, code)
        return _json(200, round_void(table, round_id, reason=void_reason_parse(body_read(request._request))))


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
        return _json(200, table_display(_table(code), timezone.now()))
