"""Reads for the table games: exchange rates, pay tables, what a table's display shows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_FLOOR, Decimal

from common.money import cents_eur, mc_to_cents
from jackpots.models import Level
from jackpots.tables.models import ExchangeRate, PayLine, PayTable, Table
from jackpots.tables.round_input import RoundError
from jackpots.tables.rules import convert_cents


@dataclass(frozen=True, slots=True)
class Rate:
    """1 progressive unit = ``rate`` venue units; ``row`` is the ExchangeRate used (None: one currency)."""

    rate: Decimal
    row: ExchangeRate | None


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
    raise RoundError(
        "no_exchange_rate",
        f"No {pool_currency}/{venue_currency} exchange rate is in force at {at.isoformat()}: "
        "a floor manager must enter one.",
        status=409,
    )


def pay_lines(pay_table: PayTable) -> dict[str, PayLine]:
    return {line.hand: line for line in pay_table.lines.all()}


def lines_as_data(pay_table: PayTable) -> list[dict]:
    """The pay table as the change log stores it (strings for exact Decimals)."""
    return [
        {
            "hand": line.hand,
            "kind": line.kind,
            "percent": None if line.percent is None else str(line.percent),
            "fixed_cents": line.fixed_cents,
        }
        for line in pay_table.lines.order_by("id")
    ]


def level_amount_in(level: Level, pool_currency: str, currency: str, at: datetime) -> tuple[int, Rate]:
    """A level's amount as a screen in ``currency`` shows it: whole cents of the pool, converted at the
    rate in force, rounded down (a sign never shows money the pool does not hold)."""
    rate = rate_find(pool_currency, currency, at)
    return convert_cents(mc_to_cents(level.current_mc), rate.rate), rate


def table_display(table: Table, at: datetime) -> dict:
    """What the table's display shows, in the venue's currency: the progressive (rounded down, never
    more than the pool holds) and the pay table with fixed prizes converted at the rate in force."""
    level = table.progressive.pay_table.level
    amount, rate = level_amount_in(level, table.progressive.currency, table.venue.currency, at)
    pool_cents = mc_to_cents(level.current_mc)
    lines = []
    for line in table.progressive.pay_table.lines.order_by("id"):
        item = {"hand": line.hand, "kind": line.kind}
        if line.kind == PayLine.Kind.PERCENT:
            item["percent"] = str(line.percent)
        else:
            item["amount"] = convert_cents(line.fixed_cents, rate.rate)
        lines.append(item)
    return {
        "table": table.code,
        "game": table.game,
        "venue": table.venue.code,
        "currency": table.venue.currency,
        "amount": amount,
        "pool_currency": table.progressive.currency,
        "pool_amount": pool_cents,
        "amount_eur": cents_eur(pool_cents) if table.progressive.currency == "EUR" else None,
        "rate": str(rate.rate),
        "level_seq": level.seq,
        "pay_table": lines,
    }
