"""Plain helpers of the events API tests: events as a gateway posts them, an ASGI scope (the fixtures are
in conftest.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from slots.models import SlotMachine

BASE_AT = (datetime.now(UTC) - timedelta(days=1)).replace(microsecond=0)


def at(seconds: float = 0) -> str:
    """An RFC 3339 instant ``seconds`` after BASE_AT (always in the past of the test run)."""
    return (BASE_AT + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def game(machine: SlotMachine, seq: int, wager: int = 450, win: int = 0, **extra) -> dict:
    return {
        "machine": machine.asset_number,
        "seq": seq,
        "at": at(seq),
        "type": "game",
        "wager": wager,
        "win": win,
        **extra,
    }


def meters_event(machine: SlotMachine, meters: object, seq: int = 1) -> dict:
    return {"machine": machine.asset_number, "seq": seq, "at": at(seq), "type": "meters", "meters": meters}


def asgi_scope(method: str, path: str, key: str | None = None) -> dict:
    """An ASGI HTTP scope for the project's application."""
    headers = [(b"host", b"testserver"), (b"content-type", b"application/json")]
    if key:
        headers.append((b"authorization", f"Bearer {key}".encode()))
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }


# What the post_events fixture gives: posts a batch, returns the status and the decoded JSON.
PostEvents = Callable[..., tuple[int, dict]]
