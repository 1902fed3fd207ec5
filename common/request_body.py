"""The API's request bodies: the size limit and the refusals every API answers the same way.

config.http enforces the limit while the body arrives (the server never holds more than the limit of a
request) and checks the caller's key before it reads a body that arrives in several parts; ``body_read``
is what the views read it with, so the same 413 holds for any way a request reaches them.

``body_budget`` bounds what all of a process's requests hold together: a body that arrives in several
parts reserves its length (the limit when it declares none) before it is read past its first part, and
waits its turn when the process holds API_BODY_BUDGET bytes already. Without it 200 connections posting
chunked bodies of a valid key held 200 MiB at once (bench/flood.py); a body that waits holds only what the
server's socket buffers, and one that waits longer than API_BODY_WAIT_SECONDS is refused with 503.
"""

from __future__ import annotations

import asyncio
from collections import deque

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


class BodyBudget:
    """Bytes of request bodies the process holds at once, reserved whole, first come first served: a
    reservation never waits for another to grow, so those granted always finish and nobody is stuck."""

    def __init__(self) -> None:
        self.held = 0
        self._waiting: deque[tuple[int, asyncio.Future[None]]] = deque()

    @property
    def total(self) -> int:
        return settings.API_BODY_BUDGET

    async def reserve(self, amount: int, wait: float) -> int | None:
        """Reserves ``amount`` bytes (at most the budget), waiting at most ``wait`` seconds for them: the
        bytes reserved, to ``release`` once the request is answered, or None when the time ran out."""
        amount = min(amount, self.total)
        if not self._waiting and self.held + amount <= self.total:
            self.held += amount
            return amount
        entry = (amount, asyncio.get_running_loop().create_future())
        self._waiting.append(entry)
        try:
            async with asyncio.timeout(wait):
                # Shielded: the timeout must not cancel the grant itself, which tells granted from not.
                await asyncio.shield(entry[1])
        except TimeoutError:
            return amount if self._withdraw(entry) else None
        except BaseException:
            if self._withdraw(entry):
                self.release(amount)
            raise
        return amount

    def release(self, amount: int) -> None:
        self.held -= amount
        self._grant()

    def _withdraw(self, entry: tuple[int, asyncio.Future[None]]) -> bool:
        """Takes a waiting reservation back; True when it was granted meanwhile (it is then held)."""
        if entry[1].done():
            return True
        self._waiting.remove(entry)
        self._grant()  # the next ones may fit where this one did not
        return False

    def _grant(self) -> None:
        while self._waiting and self.held + self._waiting[0][0] <= self.total:
            amount, future = self._waiting.popleft()
            try:
                future.set_result(None)
            except RuntimeError:  # a waiter whose event loop was closed under it (a test's) holds nothing
                continue
            self.held += amount


body_budget = BodyBudget()
# When a body refused for want of the budget may come again: the bodies ahead of it take a second or so.
BODY_RETRY_AFTER_SECONDS = 1


def refusal_response(refusal: ApiError, realm: str | None = None) -> HttpResponse:
    """The JSON answer to a request refused before its view runs (config.http), in the API's one error
    shape; a 401 asks for a Bearer key of ``realm`` (docs/api.md)."""
    response = error_response(refusal.status, refusal.code, refusal.detail)
    if refusal.status == 401:
        response["WWW-Authenticate"] = bearer_challenge(realm)
    return response


def busy_response() -> HttpResponse:
    """The answer to a body that waited past API_BODY_WAIT_SECONDS for its share of the budget."""
    response = refusal_response(ApiError(503, "server_busy"))
    response["Retry-After"] = str(BODY_RETRY_AFTER_SECONDS)
    return response
