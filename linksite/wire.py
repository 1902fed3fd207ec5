"""The wire's small formats (``docs/wide-area.md``), one place for both directions."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

ROUND_REF_MAX = 64  # OutboxEntry.round_ref and the link's LinkEntry.round_ref


def instant_text(at: datetime) -> str:
    """An instant as the wire writes it: UTC with ``Z``, milliseconds (microseconds when it has them, so
    the order of play at the link sees what the table posted)."""
    spec = "milliseconds" if at.microsecond % 1000 == 0 else "microseconds"
    return at.astimezone(UTC).isoformat(timespec=spec).replace("+00:00", "Z")


def rate_text(rate: Decimal) -> str:
    return f"{Decimal(rate):.8f}"


def round_ref(table_code: str, round_id: str) -> str:
    """``<table>:<round>``: a label for people at both ends (the entry's identity is its seq), cut to the
    field's length for the longest round ids."""
    return f"{table_code}:{round_id}"[:ROUND_REF_MAX]


def link_http_url(link_url: str, path: str) -> str:
    return link_url.rstrip("/") + path


def link_ws_url(link_url: str) -> str:
    """The link's websocket for its sites: http -> ws, https -> wss, at ``/ws/link/``."""
    base = link_url.rstrip("/")
    if base.startswith("https://"):
        base = "wss://" + base.removeprefix("https://")
    elif base.startswith("http://"):
        base = "ws://" + base.removeprefix("http://")
    return base + "/ws/link/"
