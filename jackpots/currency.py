"""A progressive's pool is kept in its own currency; a venue that plays or shows it in another converts at
the exchange rate in force (``ExchangeRate``: appended, never edited). One rounding rule for every
conversion: down to the cent, on the rate's exact fraction, so neither a bet nor a prize nor a sign ever
carries more money across than was there."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_FLOOR, Decimal

from common.api_errors import ApiError
from jackpots.models import ExchangeRate


@dataclass(frozen=True, slots=True)
class Rate:
    """1 progressive unit = ``rate`` venue units; ``row`` is the ExchangeRate used (None: one currency)."""

    rate: Decimal
    row: ExchangeRate | None


class RateMissing(ApiError):
    """No rate is in force between two currencies: the API answers 409 ``no_exchange_rate``."""

    def __init__(self, detail: str) -> None:
        super().__init__(409, "no_exchange_rate", detail)


def rate_find(pool_currency: str, venue_currency: str, at: datetime) -> Rate:
    """The rate in force at ``at``. A quote the other way round is inverted (8 decimal places, down)."""
    if pool_currency == venue_currency:
        return Rate(Decimal(1), None)
    row = (
        ExchangeRate.objects.filter(base=pool_currency, quote=venue_currency, valid_from__lte=at)
        .order_by("-valid_from", "-id")
        .first()
    )
    if row is not None:
        return Rate(Decimal(row.rate), row)
    row = (
        ExchangeRate.objects.filter(base=venue_currency, quote=pool_currency, valid_from__lte=at)
        .order_by("-valid_from", "-id")
        .first()
    )
    if row is not None:
        inverted = (Decimal(1) / Decimal(row.rate)).quantize(Decimal("0.00000001"), rounding=ROUND_FLOOR)
        return Rate(inverted, row)
    raise RateMissing(
        f"No {pool_currency}/{venue_currency} exchange rate is in force at {at.isoformat()}: "
        "a floor manager must enter one."
    )


def convert_cents(amount_cents: int, rate: Decimal) -> int:
    """``amount_cents * rate`` rounded down to the cent: the one rounding rule for every conversion.
    Integer arithmetic on the rate's exact fraction: no Decimal context rounding."""
    num, den = rate.as_integer_ratio()
    return amount_cents * num // den


def convert_cents_back(amount_cents: int, rate: Decimal) -> int:
    """``amount_cents / rate`` rounded down: a venue's bet in the progressive's currency."""
    num, den = rate.as_integer_ratio()
    return amount_cents * den // num
