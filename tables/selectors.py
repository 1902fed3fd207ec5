"""Reads for the table games: pay tables, what a table's display shows."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from common.money import cents_eur, mc_to_cents
from jackpots.currency import Rate, convert_cents, rate_find
from jackpots.models import Level
from jackpots.selectors import levels_show_elsewhere
from tables.models import PayLine, PayTable, Table, TableDeclaration


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
    # A wide-area pool's level shows the link's amount, as the signs do (this instance only, never saved).
    levels_show_elsewhere([level])
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
        **declaration_fields(level.id, at),
    }


def declaration_shown(declaration: TableDeclaration, now: datetime) -> dict:
    """A declaration as the tables' answers and the signs' ``declaration`` frame show it: ``state``
    ``pending`` until it ends, then ``released`` (``outcome`` says how: released, paid, lapsed)."""
    pending = declaration.state == TableDeclaration.State.PENDING and now <= declaration.expires_at
    # Pending past its window: lapsed, whether or not the lapse is recorded yet.
    ended = (
        TableDeclaration.State.LAPSED
        if declaration.state == TableDeclaration.State.PENDING
        else declaration.state
    )
    return {
        "id": declaration.id,
        "jackpot": declaration.progressive_id,
        "level": declaration.level_id,
        "state": "pending" if pending else "released",
        "outcome": None if pending else str(ended),
        "table": declaration.table.code,
        "seat": declaration.seat,
        "hand": declaration.hand,
        "opened_at": declaration.opened_at.isoformat(),
        "expires_at": declaration.expires_at.isoformat(),
        "released_at": declaration.released_at.isoformat() if declaration.released_at else None,
    }


def declarations_pending(progressive_ids: list[int], now: datetime) -> list[TableDeclaration]:
    """The declarations pending at ``now`` on these progressives (one whose window has passed has lapsed,
    recorded or not)."""
    return list(
        TableDeclaration.objects.filter(
            progressive_id__in=progressive_ids, state=TableDeclaration.State.PENDING, expires_at__gte=now
        )
        .select_related("table")
        .order_by("id")
    )


def declaration_message(declaration_id: int) -> tuple[int, dict] | None:
    """The progressive a declaration suspends and the channel-layer message carrying its ``declaration``
    frame (the signs and the gateways of the progressive hear it: ``jackpots.hooks.progressive_news``)."""
    declaration = TableDeclaration.objects.filter(id=declaration_id).select_related("table").first()
    if declaration is None:
        return None
    frame = {"type": "declaration", **declaration_shown(declaration, timezone.now())}
    return declaration.progressive_id, {"type": "declaration.changed", "frame": frame}


def declaration_frames(progressive_ids: list[int]) -> list[dict]:
    """The ``declaration`` frames a sign connecting now gets after its snapshot: the pending ones."""
    now = timezone.now()
    return [
        {"type": "declaration", **declaration_shown(declaration, now)}
        for declaration in declarations_pending(progressive_ids, now)
    ]


def declaration_fields(level_id: int, now: datetime) -> dict:
    """What a table's answers add: ``pending`` (its progressive's tables are suspended by a declaration)
    and the ``declaration`` itself, or null."""
    declaration = (
        TableDeclaration.objects.filter(
            level_id=level_id, state=TableDeclaration.State.PENDING, expires_at__gte=now
        )
        .select_related("table")
        .first()
    )
    return {
        "pending": declaration is not None,
        "declaration": declaration_shown(declaration, now) if declaration is not None else None,
    }


def declarations_desk(
    now: datetime, recent: int = 20
) -> tuple[list[TableDeclaration], list[TableDeclaration]]:
    """The workspace's declarations page: those pending now (every venue: a link spans them) and the
    latest that ended (a pending one past its window counts as ended: it has lapsed)."""
    related = ("table__venue", "progressive", "share", "released_by")
    rows = TableDeclaration.objects.select_related(*related)
    pending = rows.filter(state=TableDeclaration.State.PENDING, expires_at__gte=now).order_by(
        "opened_at", "id"
    )
    ended = rows.exclude(pk__in=[d.pk for d in pending]).order_by("-opened_at", "-id")[:recent]
    return list(pending), list(ended)
