"""The stable error codes of the events API, each with the sentence that explains it.

Clients branch on the code; the sentence is for people. Codes are never renamed, only added. The OpenAPI
schema lists these tables, so documentation and behaviour cannot drift apart.
"""

from __future__ import annotations

# Whole-request errors: the request is refused and nothing is stored.
REQUEST_ERRORS: dict[str, str] = {
    "missing_key": "No Authorization: Bearer <key> header was sent.",
    "invalid_key": "The key is unknown or has been revoked.",
    "invalid_json": "The body is not valid UTF-8 JSON.",
    "invalid_body": "The body must be a JSON object with an `events` list.",
    "too_many_events": "A request carries at most 1000 events.",
    "body_too_large": "The body is larger than 1 MiB.",
    "method_not_allowed": "Only POST is allowed on this path.",
    "database_unavailable": (
        "The server could not reach its database; retry after Retry-After seconds "
        "(events stored before the fault come back as duplicates)."
    ),
}

# Per-event errors: the event is listed in `rejected` and changes nothing; the others are kept.
EVENT_ERRORS: dict[str, str] = {
    "invalid_event": "The event is not a JSON object, or its text contains a NUL character.",
    "unknown_machine": "`machine` is not the asset number of a known machine.",
    "forbidden_machine": "The key may not post events for this machine.",
    "machine_not_in_service": "The machine is out of service; its events are not accepted.",
    "invalid_seq": "`seq` must be a positive integer below 2^63.",
    "unknown_type": "`type` must be one of game, meters, jackpot, status.",
    "invalid_at": "`at` must be an RFC 3339 date-time with a time zone.",
    "at_in_future": "`at` is more than 5 minutes in the future.",
    "invalid_wager": "`wager` must be a positive integer number of cents.",
    "wager_out_of_range": "`wager` is outside the machine's minimum and maximum bet.",
    "invalid_win": "`win` must be an integer number of cents, zero or more.",
    "invalid_meters": "`meters` must be a non-empty object of meter names to values.",
    "unknown_meter": "A meter name is not one of the known meters.",
    "invalid_meter": "A meter value must be an integer, zero or more, below 10^(the machine's meter digits).",
    "unknown_status": "`status` is not one of the known statuses.",
    "invalid_level": "`level` must be the positive integer id of a level.",
    "level_not_played": "The machine is not an enabled member of the progressive that owns this level.",
    "invalid_amount": "`amount` must be a positive integer number of cents.",
    "seq_conflict": "This seq was already stored for the machine with different content.",
}


class RequestRefused(Exception):
    """The whole request is refused with ``status`` and one of REQUEST_ERRORS."""

    def __init__(self, status: int, code: str, detail: str | None = None) -> None:
        super().__init__(code)
        self.status = status
        self.code = code
        self.detail = detail or REQUEST_ERRORS[code]

    def as_dict(self) -> dict[str, str]:
        return {"error": self.code, "detail": self.detail}
