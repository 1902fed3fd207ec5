"""Every error answer of ``/api/...`` in one shape: ``{"error": <code>, "detail": <sentence>}`` (docs/api.md
"Errors and bounds"), from one place.

- A view, or a service under it, refuses a request by raising ``ApiError`` (or a subclass naming its own
  codes, such as the events API's ``RequestRefused``).
- ``api_exception_handler`` (DRF's ``EXCEPTION_HANDLER``) answers those, DRF's own refusals (405, 406, 415,
  parse and authentication errors, 404) and a body over the limit in that shape; a 401 always carries
  ``WWW-Authenticate: Bearer``.
- ``bad_request``, ``permission_denied``, ``page_not_found`` and ``server_error`` (the urlconf's
  ``handler400``/``403``/``404``/``500``) do the same for what never reaches a DRF view: an unknown
  ``/api/`` URL, a request Django refuses before routing it, a crash. Other paths keep Django's pages.

It lives in ``floor``, the lowest app, so that every app can import it.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
import psycopg
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from django.views import defaults
from rest_framework import exceptions

API_PREFIX = "/api/"
logger = logging.getLogger(__name__)
# A lost or refused database connection, as Django wraps it and as the driver raises it where a service
# uses psycopg's cursor directly (the events insert, slots.services.storage).
CONNECTION_LOST = (OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError)
# How long a caller should wait before retrying a request refused because the database is unreachable.
RETRY_AFTER_SECONDS = 2

# Codes shared by every API, each with the sentence that explains it. Codes are never renamed.
API_ERRORS: dict[str, str] = {
    "not_found": "There is nothing at this URL.",
    "method_not_allowed": "This method is not allowed on this path.",
    "invalid_json": "The body is not valid UTF-8 JSON.",
    "body_too_large": "The body is larger than 1 MiB.",
    "bad_request": "The request is malformed.",
    "unauthorized": "A key is required: Authorization: Bearer <key>.",
    "forbidden": "This request is not allowed.",
    "not_acceptable": "This path answers only JSON.",
    "unsupported_media_type": "The body must be JSON (Content-Type: application/json).",
    "throttled": "Too many requests; try again later.",
    "server_error": "The server could not answer this request.",
    "server_busy": (
        "The server holds as many request bodies as it can take at once; retry after Retry-After seconds."
    ),
    "database_unavailable": (
        "The server could not reach its database; retry after Retry-After seconds "
        "(events stored before the fault come back as duplicates)."
    ),
}

# DRF's own exceptions by the code this API gives them (a DRF code that is not here keeps its own).
_DRF_CODES: dict[str, str] = {
    "parse_error": "invalid_json",
    "not_authenticated": "unauthorized",
    "authentication_failed": "unauthorized",
    "permission_denied": "forbidden",
    "invalid": "bad_request",
}


class ApiError(Exception):
    """A request refused with ``status``, a stable ``code`` and a sentence for people."""

    errors: dict[str, str] = API_ERRORS

    def __init__(self, status: int, code: str, detail: str | None = None) -> None:
        super().__init__(code)
        self.status = status
        self.code = code
        self.detail = detail or self.errors[code]

    def as_dict(self) -> dict[str, str]:
        return {"error": self.code, "detail": self.detail}


def error_response(status: int, code: str, detail: str | None = None) -> HttpResponse:
    content = {"error": code, "detail": detail or API_ERRORS[code]}
    return HttpResponse(orjson.dumps(content), status=status, content_type="application/json")


def methods_sentence(allowed: list[str]) -> str:
    """ "Only POST is allowed on this path.": the methods a caller can use for something, so not the
    OPTIONS and HEAD every view also answers."""
    useful = [method for method in allowed if method not in {"OPTIONS", "HEAD"}] or allowed
    verb = "is" if len(useful) == 1 else "are"
    return f"Only {' and '.join(useful)} {verb} allowed on this path."


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> HttpResponse | None:
    """DRF's EXCEPTION_HANDLER: every refusal of a DRF view in the API's shape; None (a 500, answered by
    ``server_error``) for anything else."""
    view = context.get("view")
    request = context.get("request")
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    if isinstance(exc, RequestDataTooBig):
        return error_response(413, "body_too_large")
    if isinstance(exc, CONNECTION_LOST):
        # PostgreSQL restarted or unreachable: nothing of the request was committed, and a retry of the
        # same events or round is safe (exactly-once), so the honest answer is "later", not a 500.
        logger.warning("%s refused with 503, database unreachable: %s", request.path if request else "", exc)
        response = error_response(503, "database_unavailable")
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    if isinstance(exc, ApiError):
        response = error_response(exc.status, exc.code, exc.detail)
    elif isinstance(exc, exceptions.MethodNotAllowed) and view is not None:
        response = error_response(405, "method_not_allowed", methods_sentence(view.allowed_methods))
        response["Allow"] = ", ".join(view.allowed_methods)
    elif isinstance(exc, exceptions.APIException):
        code = exc.default_code
        code = _DRF_CODES.get(code, code)
        response = error_response(exc.status_code, code, API_ERRORS.get(code) or _sentence(exc.detail))
        wait = getattr(exc, "wait", None)  # Throttled's seconds to wait
        if wait:
            response["Retry-After"] = str(int(wait))
    else:
        return None
    if response.status_code == 401:
        header = view.get_authenticate_header(request) if view is not None and request is not None else None
        response["WWW-Authenticate"] = header or bearer_challenge(getattr(view, "auth_realm", None))
    return response


def bearer_challenge(realm: str | None = None) -> str:
    """The WWW-Authenticate value of a 401 (docs/api.md: every 401 asks for a Bearer key)."""
    return f'Bearer realm="{realm}"' if realm else "Bearer"


def _sentence(detail: object) -> str:
    return detail if isinstance(detail, str) else API_ERRORS["bad_request"]


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler400: Django refused the request before (or outside) a view, e.g. a body over
    DATA_UPLOAD_MAX_MEMORY_SIZE, which is a 413 on the API."""
    if not _is_api(request):
        return defaults.bad_request(request, exception)
    if isinstance(exception, RequestDataTooBig):
        return error_response(413, "body_too_large")
    return error_response(400, "bad_request")


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not _is_api(request):
        return defaults.permission_denied(request, exception)
    return error_response(403, "forbidden")


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if not _is_api(request):
        return defaults.page_not_found(request, exception)
    return error_response(404, "not_found")


def server_error(request: HttpRequest) -> HttpResponse:
    if not _is_api(request):
        return defaults.server_error(request)
    return error_response(500, "server_error")
