"""OpenAPI description of the events API. These serializers only document: requests are checked by the
lean parser in slots.services.parsing, which reports the codes tabulated here."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiExample, PolymorphicProxySerializer
from rest_framework import serializers

from slots.services.errors import EVENT_ERRORS, REQUEST_ERRORS
from slots.services.vocabulary import BIGINT_MAX, MAX_EVENTS_PER_REQUEST, STATUS_FLAGS


def _codes_table(codes: dict[str, str]) -> str:
    return "\n".join(["| code | meaning |", "|---|---|"] + [f"| `{c}` | {d} |" for c, d in codes.items()])


EVENTS_DESCRIPTION = f"""
Machines and venue gateways post their games, meters, jackpots and status here, up to
{MAX_EVENTS_PER_REQUEST} events per request, with `Authorization: Bearer <key>`. A machine key may post
only for its own machine; a gateway key for any machine of its venue.

Every event is stored once per (machine, seq). Each event of the request ends up in exactly one of:
`accepted` (stored now), `duplicates` (the same event was stored before: nothing changes) or `rejected`
(listed with its index in the request, a stable code and a sentence; it changes nothing, but a
`seq_conflict` is recorded for the floor). Accepted events of a request are kept even if others are
rejected.

A key stops working as soon as its revocation is committed, on every server process.

**Bounds.** `at` is an RFC 3339 date-time with an offset within ±14:00, at most
{settings.EVENT_MAX_AGE_SECONDS} seconds old and {settings.EVENT_MAX_FUTURE_SECONDS} seconds ahead of the
server's clock (`invalid_at`, `at_too_old`, `at_in_future`). A game's `win` is at most
{settings.GAME_WIN_MAX_MULTIPLE} times its wager and at most {settings.GAME_WIN_MAX_CENTS} cents
(`win_out_of_range`); a jackpot's `amount` at most {settings.JACKPOT_MAX_CENTS} cents
(`amount_out_of_range`); a meter below 10^(the machine's meter digits) (`invalid_meter`). An event beyond
a bound is rejected alone; the others of its request are kept.

**Per-event codes** (in `rejected`):

{_codes_table(EVENT_ERRORS)}

**Whole-request codes** (status 400, 401, 413; the body is `{{"error": <code>, "detail": <sentence>}}`):

{_codes_table(REQUEST_ERRORS)}
"""


class _EventBase(serializers.Serializer):
    machine = serializers.CharField(max_length=16, help_text="Asset number of the machine, e.g. NOG-0101.")
    seq = serializers.IntegerField(
        min_value=1,
        max_value=BIGINT_MAX,
        help_text="Positive, unique per machine; a retry of an event reuses its seq.",
    )
    at = serializers.DateTimeField(
        help_text="RFC 3339 date-time with an offset within ±14:00, when it happened on the machine; "
        f"at most {settings.EVENT_MAX_AGE_SECONDS} s old and {settings.EVENT_MAX_FUTURE_SECONDS} s ahead."
    )


class GameEventSerializer(_EventBase):
    type = serializers.ChoiceField(choices=["game"], help_text="One game played.")
    wager = serializers.IntegerField(
        min_value=1, help_text="Cents wagered, within the machine's minimum and maximum bet."
    )
    win = serializers.IntegerField(
        min_value=0,
        max_value=settings.GAME_WIN_MAX_CENTS,
        help_text=f"Cents won, 0 or more, at most {settings.GAME_WIN_MAX_MULTIPLE} times the wager.",
    )


class MetersSerializer(serializers.Serializer):
    """SAS cumulative meters: each an integer from 0 to 10^(machine's meter digits) - 1."""

    coin_in = serializers.IntegerField(min_value=0, required=False, help_text="Cents wagered.")
    coin_out = serializers.IntegerField(min_value=0, required=False, help_text="Cents paid to credits.")
    jackpot = serializers.IntegerField(min_value=0, required=False, help_text="Cents of jackpots won.")
    games_played = serializers.IntegerField(min_value=0, required=False, help_text="Games, a count.")
    bills_in = serializers.IntegerField(min_value=0, required=False, help_text="Cents of bills inserted.")
    ticket_in = serializers.IntegerField(min_value=0, required=False, help_text="Cents of tickets in.")
    ticket_out = serializers.IntegerField(min_value=0, required=False, help_text="Cents of tickets out.")
    handpay = serializers.IntegerField(
        min_value=0, required=False, help_text="Cents of handpaid cancelled credits."
    )
    progressive_machine_paid = serializers.IntegerField(
        min_value=0, required=False, help_text="Cents of progressives paid by the machine."
    )
    progressive_attendant_paid = serializers.IntegerField(
        min_value=0, required=False, help_text="Cents of progressives paid by an attendant."
    )


class MetersEventSerializer(_EventBase):
    type = serializers.ChoiceField(
        choices=["meters"],
        help_text="Cumulative meters. The server keeps the deltas; a decrease is a rollover (the meter "
        "wraps at 10^digits) or a memory reset (flagged to the floor, the baseline restarts), never a "
        "negative delta. The first snapshot of a machine is its baseline.",
    )
    meters = MetersSerializer(help_text="At least one meter; unknown names are rejected.")


class JackpotEventSerializer(_EventBase):
    type = serializers.ChoiceField(
        choices=["jackpot"],
        help_text=(
            "The machine hit a level it plays. Stored and judged by the engine: a report on a suspended "
            "level is refused level_suspended (level_retired on a retired one) and pays nothing."
        ),
    )
    level = serializers.IntegerField(
        min_value=1, max_value=BIGINT_MAX, help_text="Id of the level (GET /api/v1/jackpots)."
    )
    amount = serializers.IntegerField(
        min_value=1, max_value=settings.JACKPOT_MAX_CENTS, help_text="Cents the machine shows as won."
    )
    paid = serializers.ChoiceField(
        choices=["machine", "attendant"],
        required=False,
        help_text='Who paid: "machine" (the machine credited the win itself, SAS exception 54 or a win '
        'read with a credit-meter pay method; send `paid_amount`) or "attendant" (the machine locked up '
        "in a handpay). Without it attendants pay. A machine-paid win is recorded paid by the machine at "
        "`paid_amount`, never shown on the hits desk, and no handpay reset is sent; whatever the level "
        "held above it stays in the pool.",
    )
    paid_amount = serializers.IntegerField(
        min_value=1,
        max_value=settings.JACKPOT_MAX_CENTS,
        required=False,
        help_text='With `"paid": "machine"` only: the cents the machine credited itself.',
    )


class StatusEventSerializer(_EventBase):
    type = serializers.ChoiceField(choices=["status"], help_text="A change of the machine's condition.")
    status = serializers.ChoiceField(
        choices=list(STATUS_FLAGS),
        help_text="door_open/door_closed, power_off/power_on (power_on also clears a tilt), tilt, "
        "handpay_lockup/handpay_reset.",
    )


class EventsRequestSerializer(serializers.Serializer):
    events = serializers.ListField(
        child=PolymorphicProxySerializer(
            component_name="Event",
            serializers={
                "game": GameEventSerializer,
                "meters": MetersEventSerializer,
                "jackpot": JackpotEventSerializer,
                "status": StatusEventSerializer,
            },
            resource_type_field_name="type",
        ),
        max_length=MAX_EVENTS_PER_REQUEST,
        help_text=f"Up to {MAX_EVENTS_PER_REQUEST} events, in any order, of machines the key may post for.",
    )


class RejectedEventSerializer(serializers.Serializer):
    index = serializers.IntegerField(min_value=0, help_text="Position of the event in the request's list.")
    error = serializers.ChoiceField(
        choices=list(EVENT_ERRORS.items()), help_text="Stable code; see the table."
    )
    detail = serializers.CharField(help_text="A sentence for people.")


class EventsResultSerializer(serializers.Serializer):
    accepted = serializers.IntegerField(min_value=0, help_text="Events stored by this request.")
    duplicates = serializers.IntegerField(
        min_value=0, help_text="Events already stored with the same content (retries): nothing changed."
    )
    rejected = RejectedEventSerializer(many=True, help_text="Events refused, in request order.")


class RequestErrorSerializer(serializers.Serializer):
    error = serializers.ChoiceField(
        choices=list(REQUEST_ERRORS.items()), help_text="Stable code; see the table."
    )
    detail = serializers.CharField(help_text="A sentence for people.")


def request_error_examples(*codes: str) -> list[OpenApiExample]:
    return [
        OpenApiExample(code, value={"error": code, "detail": REQUEST_ERRORS[code]}, response_only=True)
        for code in codes
    ]


class EventKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "slots.apis.EventKeyAuthentication"
    name = "eventKey"

    def get_security_definition(self, auto_schema: object) -> dict:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A machine key (its own machine) or a venue's gateway key (any machine of it).",
        }
