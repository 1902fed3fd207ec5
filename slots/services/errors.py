"""The stable error codes of the events API, each with the sentence that explains it.

Clients branch on the code; the sentence is for people. Codes are never renamed, only added. The OpenAPI
schema lists these tables, so documentation and behaviour cannot drift apart.
"""

from __future__ import annotations

from common.api_errors import API_ERRORS, ApiError
from common.times import TIME_ERRORS

# Whole-request errors: the request is refused and nothing is stored.
REQUEST_ERRORS: dict[str, str] = {
    "missing_key": "No Authorization: Bearer <key> header was sent.",
    "invalid_key": "The key is unknown or has been revoked.",
    "invalid_json": API_ERRORS["invalid_json"],
    "invalid_body": "The body must be a JSON object with an `events` list.",
    "too_many_events": "A request carries at most 1000 events.",
    "body_too_large": API_ERRORS["body_too_large"],
    "method_not_allowed": "Only POST is allowed on this path.",
    "database_unavailable": API_ERRORS["database_unavailable"],
}

# Per-event errors: the event is listed in `rejected` and changes nothing; the others are kept.
EVENT_ERRORS: dict[str, str] = {
    "invalid_event": "The event is not a JSON object, or its text contains a NUL character.",
    "unknown_machine": "`machine` is not the asset number of a known machine.",
    "forbidden_machine": "The key may not post events for this machine.",
    "machine_not_in_service": "The machine is out of service; its events are not accepted.",
    "invalid_seq": "`seq` must be a positive integer below 2^63.",
    "unknown_type": "`type` must be one of game, meters, jackpot, status.",
    **TIME_ERRORS,
    "invalid_wager": "`wager` must be a positive integer number of cents.",
    "wager_out_of_range": "`wager` is outside the machine's minimum and maximum bet.",
    "invalid_win": "`win` must be an integer number of cents, zero or more.",
    "win_out_of_range": "`win` is more than GAME_WIN_MAX_MULTIPLE times the wager (by default 100,000) "
    "or more than GAME_WIN_MAX_CENTS (by default 1,000,000,000 cents, EUR 10,000,000).",
    "invalid_meters": "`meters` must be a non-empty object of meter names to values.",
    "unknown_meter": "A meter name is not one of the known meters.",
    "invalid_meter": "A meter value must be an integer, zero or more, below 10^(the machine's meter digits).",
    "unknown_status": "`status` is not one of the known statuses.",
    "invalid_level": "`level` must be the positive integer id of a level.",
    "level_not_played": "The machine is not an enabled member of the progressive that owns this level.",
    "invalid_amount": "`amount` must be a positive integer number of cents.",
    "invalid_paid": '`paid` must be "machine" (with `paid_amount`, the positive cents the machine '
    'credited) or "attendant" (without `paid_amount`).',
    "amount_out_of_range": "`amount` is more than JACKPOT_MAX_CENTS (by default 10,000,000,000 cents, "
    "EUR 100,000,000).",
    "seq_conflict": "This seq was already stored for the machine with different content.",
}


class RequestRefused(ApiError):
    """The whole request is refused with ``status`` and one of REQUEST_ERRORS (answered, like every API
    error, by common.api_errors)."""

    errors = REQUEST_ERRORS
