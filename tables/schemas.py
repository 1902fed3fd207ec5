"""The OpenAPI description of the table APIs (docs/api.md "Table rounds"): every field of every answer."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, inline_serializer
from rest_framework import serializers

from tables.models import PayLine, TableRound
from tables.rules import Game, Hand

ErrorSerializer = inline_serializer(
    "TableError",
    {"error": serializers.CharField(help_text="A stable error code."), "detail": serializers.CharField()},
)
HandField = serializers.ChoiceField(choices=Hand.choices)
RoundRequest = inline_serializer(
    "TableRoundRequest",
    {
        "round": serializers.CharField(max_length=64, help_text="Unique per table; a retry reuses it."),
        "at": serializers.DateTimeField(
            help_text="RFC 3339 with an offset within ±14:00, within the server's window (by default at "
            "most 7 days old and 300 s ahead); otherwise 400 invalid_at, at_too_old or at_in_future."
        ),
        "community": serializers.ListField(
            child=serializers.CharField(max_length=2), required=False, help_text="Casino Hold'em: 5 cards."
        ),
        "dealer": serializers.ListField(
            child=serializers.CharField(max_length=2),
            required=False,
            help_text="Optional, checked for duplicates; jackpot hands pay whatever the dealer holds.",
        ),
        "seats": inline_serializer(
            "TableSeatRequest",
            {
                "seat": serializers.IntegerField(min_value=1),
                "jackpot_bet": serializers.IntegerField(
                    min_value=0,
                    help_text="Cents of the venue's currency: 0, or the table's fixed price (Caribbean Stud) "
                    "or within its minimum and maximum (Jumbo 7); otherwise 400 bad_jackpot_bet.",
                ),
                "cards": serializers.ListField(child=serializers.CharField(max_length=2)),
                "changed_card": serializers.BooleanField(required=False, default=False),
            },
            many=True,
        ),
    },
)
ContributionSerializer = inline_serializer(
    "TableContribution",
    {
        "amount": serializers.IntegerField(help_text="Whole cents of the progressive's currency (down)."),
        "amount_mc": serializers.IntegerField(help_text="Millicents of the progressive's currency."),
        "amount_eur": serializers.CharField(allow_null=True, help_text="Progressive in EUR: euros."),
        "currency": serializers.CharField(help_text="The progressive's currency."),
    },
)
AwardSerializer = inline_serializer(
    "TableAward",
    {
        "amount": serializers.IntegerField(help_text="Cents of the venue's currency."),
        "currency": serializers.CharField(),
        "amount_eur": serializers.CharField(
            allow_null=True, help_text="The award in euros where the progressive or the venue uses them."
        ),
        "pool_amount": serializers.IntegerField(help_text="Cents of the progressive's currency."),
        "share": serializers.IntegerField(help_text="Part of a percentage prize, progressive cents."),
        "fixed": serializers.IntegerField(help_text="Fixed prize, progressive cents."),
        "progressive": serializers.BooleanField(help_text="Takes part in a percentage prize."),
        "provisional": serializers.BooleanField(
            help_text="The share may still be divided with a later winner: pay it once final_at has passed "
            "(or its declaration has ended: final_at is then the release)."
        ),
        "final_at": serializers.DateTimeField(
            allow_null=True,
            help_text="When the prize is final: the release of its declaration (Caribbean Stud), else the "
            "end of the sharing window; null without a percentage prize.",
        ),
        "handpay": serializers.BooleanField(
            help_text="The prize is at or above the venue's two-person threshold: the floor pays it once "
            "two people have verified it, not the table."
        ),
    },
)


DeclarationSerializer = inline_serializer(
    "TableDeclaration",
    {
        "id": serializers.IntegerField(),
        "jackpot": serializers.IntegerField(help_text="The progressive whose tables wait."),
        "level": serializers.IntegerField(),
        "state": serializers.ChoiceField(
            choices=["pending", "released"],
            help_text="pending: a round played after opened_at is refused level_pending (409).",
        ),
        "outcome": serializers.ChoiceField(
            choices=["released", "paid", "lapsed"],
            allow_null=True,
            help_text="How it ended: released by a supervisor, its prize paid, or lapsed at expires_at; "
            "null while pending.",
        ),
        "table": serializers.CharField(help_text="The table that declared it."),
        "seat": serializers.IntegerField(),
        "hand": serializers.ChoiceField(choices=["royal_flush", "straight_flush"]),
        "opened_at": serializers.DateTimeField(help_text="The declared round's played-at time."),
        "expires_at": serializers.DateTimeField(
            help_text="The upper bound: the pay table's sharing window after opened_at, when it lapses."
        ),
        "released_at": serializers.DateTimeField(allow_null=True),
    },
    allow_null=True,
)


def _pending_fields() -> dict[str, serializers.Field]:
    """What a table's answers add: whether its progressive's tables wait for a declaration (now)."""
    return {
        "pending": serializers.BooleanField(
            help_text="A Caribbean Stud Royal or Straight Flush is declared on this progressive: rounds "
            "played after it are refused level_pending until it is released, paid or lapses."
        ),
        "declaration": DeclarationSerializer,
    }


def _round_head(currency_help: str) -> dict[str, serializers.Field]:
    """The fields a round's answer and its void's answer both start with."""
    return {
        "round": serializers.CharField(),
        "table": serializers.CharField(),
        "state": serializers.ChoiceField(choices=TableRound.State.choices),
        "currency": serializers.CharField(help_text=currency_help),
    }


RoundAnswer = inline_serializer(
    "TableRoundAnswer",
    {
        **_round_head("The venue's currency."),
        "pool_currency": serializers.CharField(help_text="The progressive's currency."),
        "rate": serializers.CharField(help_text="Venue units per progressive unit, 8 decimals."),
        "exchange_rate": serializers.IntegerField(
            allow_null=True, help_text="The exchange rate row used; null when the currencies are the same."
        ),
        "seats": inline_serializer(
            "TableSeatAnswer",
            {
                "seat": serializers.IntegerField(),
                "hand": HandField,
                "jackpot_bet": serializers.IntegerField(help_text="Cents of the venue's currency."),
                "eligible": serializers.BooleanField(help_text="A jackpot bet and no changed card."),
                "contribution": ContributionSerializer,
                "award": AwardSerializer,
            },
            many=True,
        ),
        **_pending_fields(),
    },
)
VoidRequest = inline_serializer("TableVoidRequest", {"reason": serializers.CharField(required=False)})
VoidAnswer = inline_serializer(
    "TableVoidAnswer",
    {
        **_round_head("The venue's currency, of the refunds."),
        "refunds": inline_serializer(
            "TableRefund",
            {
                "seat": serializers.IntegerField(),
                "jackpot_bet": serializers.IntegerField(help_text="Refunded, cents of the venue's currency."),
            },
            many=True,
        ),
        "reason": serializers.CharField(),
    },
)
DisplayAnswer = inline_serializer(
    "TableDisplay",
    {
        "table": serializers.CharField(),
        "game": serializers.ChoiceField(choices=Game.choices),
        "venue": serializers.CharField(help_text="The venue's code."),
        "currency": serializers.CharField(help_text="The venue's currency."),
        "amount": serializers.IntegerField(
            help_text="The progressive in cents of the venue's currency, at the rate in force, rounded down."
        ),
        "pool_currency": serializers.CharField(),
        "pool_amount": serializers.IntegerField(help_text="Whole cents of the progressive's currency."),
        "amount_eur": serializers.CharField(allow_null=True, help_text="Progressive in EUR: euros."),
        "rate": serializers.CharField(help_text="Venue units per progressive unit."),
        "level_seq": serializers.IntegerField(help_text="The level's value sequence."),
        "pay_table": inline_serializer(
            "TableDisplayLine",
            {
                "hand": HandField,
                "kind": serializers.ChoiceField(choices=PayLine.Kind.choices),
                "percent": serializers.CharField(required=False, help_text="Percent lines only."),
                "amount": serializers.IntegerField(
                    required=False, help_text="Fixed lines only: cents of the venue's currency."
                ),
            },
            many=True,
        ),
        **_pending_fields(),
    },
)
TABLE_CODE = OpenApiParameter(
    "code", str, OpenApiParameter.PATH, examples=[OpenApiExample("A Caribbean Stud table", value="NOG-CSP-1")]
)
ROUND_EXAMPLE = OpenApiExample(
    "A royal flush and a seat without a jackpot bet",
    request_only=True,
    value={
        "round": "NOG-CSP-1-000123",
        "at": "2026-11-21T18:03:05Z",
        "dealer": ["2S", "4D", "6C", "8S", "TD"],
        "seats": [
            {"seat": 1, "jackpot_bet": 100, "cards": ["AS", "KS", "QS", "JS", "TS"], "changed_card": False},
            {"seat": 2, "jackpot_bet": 0, "cards": ["2C", "5D", "7H", "9S", "JC"]},
        ],
    },
)
