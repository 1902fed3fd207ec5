"""The API's request bodies: the size limit and the refusals every API answers the same way.

config.http enforces the limit while the body arrives (the server never holds more than the limit of a
request) and checks the caller's key before it reads a body that arrives in several parts; ``body_read``
is what the views read it with, so the same 413 holds for any way a request reaches them.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from common.api_errors import ApiError, bearer_challenge, error_response


def body_limit() -> int:
    """Largest body in bytes (docs/api.md: 1 MiB, over it 413)."""
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def body_declared_length(value: str | None) -> int:
    """The Content-Length header's value, 0 when missing or not a number (the body is then measured)."""
    try:
        return max(int(value or 0), 0)
    except ValueError:
        return 0


def body_length_check(request: HttpRequest) -> None:
    """Refuses (413) a body whose declared length is over the limit, before anything else is done."""
    if body_declared_length(request.META.get("CONTENT_LENGTH")) > body_limit():
        raise ApiError(413, "body_too_large")


def body_read(request: HttpRequest) -> bytes:
    """The body, refused with 413 past the limit by its declared length or, when the declared length is
    missing or wrong, by what actually arrives (at most one byte more than the limit is read)."""
    body_length_check(request)
    limit = body_limit()
    body = request.read(limit + 1)
    if len(body) > limit:
        raise ApiError(413, "body_too_large")
    return body


def refusal_response(refusal: ApiError, realm: str | None = None) -> HttpResponse:
    """The JSON answer to a request refused before its view runs (config.http), in the API's one error
    shape; a 401 asks for a Bearer key of ``realm`` (docs/api.md)."""
    response = error_response(refusal.status, refusal.code, refusal.detail)
    if refusal.status == 401:
        response["WWW-Authenticate"] = bearer_challenge(realm)
    return response
