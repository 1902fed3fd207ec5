"""A screen shows every progressive in its venue's currency (a Jumbo 7 pool in euros on a screen of a
casino that plays in francs, say).

Frames keep the fields of docs/api.md; when the venue's currency is not the pool's, a level or a hit also
carries ``amount`` (and ``reset``) in whole minor units of ``currency``, converted at the exchange rate in
force with the engine's one rounding rule (``jackpots.currency.convert_cents``: integer arithmetic, rounded
down, so a sign never shows more than the pool holds). With no rate in force the sign shows the pool's own
amount and names the pool's currency rather than guess a rate.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from channels.db import database_sync_to_async
from django.db.models import Q
from django.utils import timezone

from common.loops import loop_local
from jackpots.currency import RateMissing, convert_cents, rate_find
from jackpots.models import ExchangeRate

logger = logging.getLogger(__name__)

# How long a process trusts a rate it has read. A rate entered ahead of time (valid_from in the future)
# takes over exactly at its time; one entered with a past valid_from reaches the signs within this.
RATE_RECHECK_SECONDS = 30.0


@dataclass(frozen=True, slots=True)
class ScreenContent:
    """What a screen shows: its progressives, in its venue's currency. Signs with equal content share
    a hub and a snapshot read."""

    progressives: tuple[int, ...]
    currency: str


def display_rate(pool_currency: str, currency: str, at: datetime) -> Decimal | None:
    """Units of ``currency`` per unit of the pool at ``at``; None when no rate is in force."""
    try:
        return rate_find(pool_currency, currency, at).rate
    except RateMissing:
        logger.warning("No %s/%s rate in force: signs show the pool's own currency.", pool_currency, currency)
        return None


def amounts_in(currency: str, pool_currency: str, rate: Decimal | None, **pool_cents: int) -> dict:
    """The fields a level or hit adds for a screen in ``currency``: nothing when it is the pool's."""
    if currency == pool_currency:
        return {}
    if rate is None:
        return {**pool_cents, "currency": pool_currency}
    return {**{name: convert_cents(cents, rate) for name, cents in pool_cents.items()}, "currency": currency}


def _rate_with_expiry(pool_currency: str, currency: str) -> tuple[Decimal | None, float]:
    now = timezone.now()
    rate = display_rate(pool_currency, currency, now)
    scheduled = (
        ExchangeRate.objects.filter(
            Q(base=pool_currency, quote=currency) | Q(base=currency, quote=pool_currency), valid_from__gt=now
        )
        .order_by("valid_from")
        .values_list("valid_from", flat=True)
        .first()
    )
    if scheduled is None:
        return rate, RATE_RECHECK_SECONDS
    return rate, min(RATE_RECHECK_SECONDS, (scheduled - now).total_seconds())


class RateBook:
    """The rates one server process converts update and hit frames with: read once, not per frame."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str], tuple[Decimal | None, float]] = {}

    async def rate(self, pool_currency: str, currency: str) -> Decimal | None:
        loop = asyncio.get_running_loop()
        known = self.entries.get((pool_currency, currency))
        if known is not None and loop.time() < known[1]:
            return known[0]
        rate, valid_for = await database_sync_to_async(_rate_with_expiry)(pool_currency, currency)
        self.entries[(pool_currency, currency)] = (rate, loop.time() + valid_for)
        return rate


_books: dict[asyncio.AbstractEventLoop, RateBook] = {}


def rate_book() -> RateBook:
    return loop_local(_books, RateBook)
