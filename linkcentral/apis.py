"""The link's API for its sites (docs/wide-area.md "The wire"): thin views over the entries service and
the awards selector. Every call carries the site's key (``Authorization: Bearer``), looked up on every
request, so a revoked key is refused at once. Errors have the product's shape (common.api_errors)."""

from __future__ import annotations

from typing import Any

import orjson
from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from common.request_body import body_read, refusal_response
from linkcentral.errors import LinkRefused
from linkcentral.models import LinkSite
from linkcentral.schemas import (
    AWARDS_PARAMETERS,
    AwardsAnswer,
    EntriesAnswer,
    EntriesRequest,
    ErrorSerializer,
)
from linkcentral.selectors import awards_for_site
from linkcentral.services.entries import entries_receive
from linkcentral.services.keys import site_key_bearer

REALM = "link"


def _json(status: int, content: dict[str, Any]) -> HttpResponse:
    return HttpResponse(orjson.dumps(content), status=status, content_type="application/json")


def _unauthorized() -> LinkRefused:
    return LinkRefused(401, "key_invalid")


def _key_refusal(authorization: str | None) -> HttpResponse | None:
    """The 401 of a request without a valid site key; config.http asks before it reads a body that
    arrives in several parts."""
    if site_key_bearer(authorization) is not None:
        return None
    return refusal_response(_unauthorized(), REALM)


def _site(request: Request) -> LinkSite:
    key = site_key_bearer(request.META.get("HTTP_AUTHORIZATION"))
    if key is None:
        raise _unauthorized()
    return key.site


def _refused(refusal: LinkRefused) -> HttpResponse:
    """A refusal with its extra fields (the field at fault, the seq expected)."""
    return _json(refusal.status, refusal.answer())


def _after(value: str | None) -> int:
    if value is None or value == "":
        return 0
    if not value.isascii() or not value.isdigit() or len(value) > 18:
        raise LinkRefused(400, "invalid_query", "after must be an award id (a whole number).", field="after")
    return int(value)


class LinkEntriesApi(APIView):
    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []
    body_key_refusal = staticmethod(_key_refusal)
    auth_realm = REALM

    @extend_schema(
        operation_id="link_entries_create",
        summary="Send a site's entries to the link",
        description=(
            "A batch of the site's entries in seq order (at most 500). An entry already received is "
            "acknowledged again and changes nothing; a batch with a different entry under a received seq "
            "(entry_conflict) or starting after a gap (entry_gap, with the seq expected) is refused whole."
        ),
        request=EntriesRequest,
        responses={
            200: EntriesAnswer,
            400: OpenApiResponse(ErrorSerializer, description="invalid_json; invalid_body naming the field."),
            401: OpenApiResponse(ErrorSerializer, description="key_invalid."),
            403: OpenApiResponse(ErrorSerializer, description="not_a_member."),
            409: OpenApiResponse(ErrorSerializer, description="entry_gap (with expected), entry_conflict."),
            413: OpenApiResponse(ErrorSerializer, description="body_too_large."),
        },
    )
    def post(self, request: Request) -> HttpResponse:
        site = _site(request)
        body = body_read(request._request)
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError:
            raise LinkRefused(400, "invalid_json") from None
        try:
            return _json(200, entries_receive(site, data, timezone.now()))
        except LinkRefused as refusal:
            return _refused(refusal)


class LinkAwardsApi(APIView):
    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []
    auth_realm = REALM

    @extend_schema(
        operation_id="link_awards_list",
        summary="The awards that concern the calling site",
        description="Oldest first, after the award id ``after``; a page at most (``more``: there are more).",
        parameters=AWARDS_PARAMETERS,
        responses={
            200: AwardsAnswer,
            400: OpenApiResponse(ErrorSerializer, description="invalid_query naming the field."),
            401: OpenApiResponse(ErrorSerializer, description="key_invalid."),
            403: OpenApiResponse(ErrorSerializer, description="not_a_member."),
        },
    )
    def get(self, request: Request) -> HttpResponse:
        site = _site(request)
        try:
            pool = request.GET.get("pool") or ""
            if not pool or len(pool) > 32:
                raise LinkRefused(400, "invalid_query", "pool must name the pool's code.", field="pool")
            return _json(200, awards_for_site(site, pool, _after(request.GET.get("after"))))
        except LinkRefused as refusal:
            return _refused(refusal)
