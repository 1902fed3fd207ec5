"""The OpenAPI description of the link's API (docs/wide-area.md "The wire")."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import serializers

ErrorSerializer = inline_serializer(
    "LinkError",
    {
        "error": serializers.CharField(help_text="A stable error code."),
        "detail": serializers.CharField(),
        "field": serializers.CharField(required=False, help_text="invalid_body: the field at fault."),
        "expected": serializers.IntegerField(required=False, help_text="entry_gap: the seq expected."),
    },
)
EntriesRequest = inline_serializer(
    "LinkEntriesRequest",
    {
        "pool": serializers.CharField(max_length=32),
        "through": serializers.DateTimeField(help_text="Every round played before it is sent."),
        "entries": inline_serializer(
            "LinkEntryRequest",
            {
                "seq": serializers.IntegerField(min_value=1),
                "kind": serializers.ChoiceField(choices=["contribution", "claim"]),
                "round": serializers.CharField(max_length=64),
                "played_at": serializers.DateTimeField(),
                "currency": serializers.CharField(help_text="The site's currency."),
                "rate": serializers.CharField(help_text="1 pool unit = rate site units; at most 8 decimals."),
                "wagered_cents": serializers.IntegerField(min_value=0, required=False),
                "bets": serializers.IntegerField(min_value=1, required=False),
                "seats": inline_serializer(
                    "LinkClaimSeat",
                    {
                        "seat": serializers.IntegerField(min_value=1, max_value=99),
                        "bet_cents": serializers.IntegerField(
                            min_value=1,
                            max_value=10**12,
                            help_text="The seat's Jumbo 7 bet, in the site's cents.",
                        ),
                    },
                    many=True,
                    required=False,
                    help_text="A claim: each bet's seat and bet (as many as bets, each seat once); the "
                    "prize is divided by the bets converted to the pool's cents.",
                ),
            },
            many=True,
        ),
    },
)
PoolSerializer = inline_serializer(
    "LinkPool",
    {
        "amount_mc": serializers.IntegerField(),
        "currency": serializers.CharField(),
        "value_seq": serializers.IntegerField(),
    },
)
EntriesAnswer = inline_serializer(
    "LinkEntriesAnswer", {"acked": serializers.IntegerField(), "pool": PoolSerializer}
)
AwardsAnswer = inline_serializer(
    "LinkAwardsAnswer",
    {
        "pool": serializers.CharField(),
        "currency": serializers.CharField(help_text="The pool's currency."),
        "site_currency": serializers.CharField(),
        "more": serializers.BooleanField(help_text="More awards after the last one: ask again after it."),
        "awards": inline_serializer(
            "LinkAwardAnswer",
            {
                "id": serializers.IntegerField(),
                "played_at": serializers.DateTimeField(),
                "decided_at": serializers.DateTimeField(),
                "amount_mc": serializers.IntegerField(help_text="The whole prize, pool's millicents."),
                "parts": inline_serializer(
                    "LinkAwardPartAnswer",
                    {
                        "number": serializers.IntegerField(),
                        "seq": serializers.IntegerField(help_text="The site's claim entry."),
                        "round": serializers.CharField(),
                        "seat": serializers.IntegerField(allow_null=True),
                        "amount_mc": serializers.IntegerField(),
                        "site_cents": serializers.IntegerField(),
                        "rate": serializers.CharField(),
                    },
                    many=True,
                ),
            },
            many=True,
        ),
    },
)
AWARDS_PARAMETERS = [
    OpenApiParameter("pool", str, required=True, description="The pool's code."),
    OpenApiParameter("after", int, required=False, description="The last award id already recorded."),
]
