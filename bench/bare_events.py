"""The least a Python server on this stack can do for an events post: the ceiling of bench/ingest_ceiling.py.

A bare ASGI application (no Django, no framework, no thread: psycopg's async connections on uvicorn's loop)
that takes bench/ingest.py's bodies and stores their games with one binary COPY and one commit a request:
orjson decodes the body, each game gets its machine (asset number -> id, from a map read once), its digest
(SHA-1 of its JSON) and its payload, and the answer is the accepted count. It checks no key, no field,
no duplicate and no machine's state, locks and moves no machine's row, draws no id but the table's own:
what is left of the events API's work when everything the contract asks beyond storing the rows is taken
away. Not the product: a measure of what the product's stack costs, run only by the benchmark.

    BARE_DATABASE_URL=postgres://... BARE_TABLE=slots_machineevent \
        python -m uvicorn bench.bare_events:app --workers 2 --loop uvloop --http httptools

BARE_TABLE is the table the rows go to: the events table (its trigger queues each game for the engine) or
the anchor's ``bench_copy`` (the same indexes and constraints, no trigger).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from datetime import UTC, datetime

import orjson
import psycopg

_COLUMNS = (
    "machine_id, seq, type, at, received_at, digest, payload, wager_cents, win_cents, bank_id, "
    "denomination_cents, is_max_bet, pending"
)
_TYPES = ["int8", "int8", "int2", "timestamptz", "timestamptz", "text", "bytea", "int8", "int8", "int8"]
_TYPES += ["int4", "bool", "bool"]
_JSONB_V1 = b"\x01"
_CONNECTIONS = 4


class _Store:
    """A worker's connections (opened on first use, handed out in turn) and the machines' map."""

    def __init__(self) -> None:
        self.idle: asyncio.Queue[psycopg.AsyncConnection] = asyncio.Queue()
        self.machines: dict[str, tuple[int, int, int, int]] = {}
        self.opening: asyncio.Future[None] | None = None
        table = os.environ.get("BARE_TABLE", "slots_machineevent")
        self.copy = f"COPY {table} ({_COLUMNS}) FROM STDIN (FORMAT BINARY)"

    async def open(self) -> None:
        url = os.environ["BARE_DATABASE_URL"]
        connection = await psycopg.AsyncConnection.connect(url)
        cursor = await connection.execute(
            "SELECT asset_number, id, bank_id, denomination_cents, max_bet_cents FROM slots_slotmachine"
        )
        self.machines = {asset: tuple(rest) for asset, *rest in await cursor.fetchall()}
        await connection.commit()
        self.idle.put_nowait(connection)
        for _ in range(_CONNECTIONS - 1):
            self.idle.put_nowait(await psycopg.AsyncConnection.connect(url))

    async def store(self, events: list[dict]) -> int:
        # The worker's first requests arrive together: the first opens, the others wait for it.
        if self.opening is None:
            self.opening = asyncio.ensure_future(self.open())
        await self.opening
        received = datetime.now(UTC)
        rows = []
        for event in events:
            machine_id, bank_id, denomination, max_bet = self.machines[event["machine"]]
            wager, win = event["wager"], event["win"]
            payload = orjson.dumps({"wager": wager, "win": win})
            digest = hashlib.sha1(orjson.dumps(event)).hexdigest()
            at = datetime.fromisoformat(event["at"])
            rows.append(
                (
                    machine_id,
                    event["seq"],
                    1,
                    at,
                    received,
                    digest,
                    _JSONB_V1 + payload,
                    wager,
                    win,
                    bank_id,
                    denomination,
                    wager == max_bet,
                    True,
                )
            )
        connection = await self.idle.get()
        try:
            async with connection.cursor() as cursor, cursor.copy(self.copy) as copy:
                copy.set_types(_TYPES)
                for row in rows:
                    await copy.write_row(row)
            await connection.commit()
        finally:
            self.idle.put_nowait(connection)
        return len(rows)


_store = _Store()


async def _body(receive) -> bytes:
    parts = []
    while True:
        message = await receive()
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(parts)


async def _answer(send, status: int, content: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(content)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": content})


async def app(scope, receive, send) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    try:
        events = orjson.loads(await _body(receive))["events"]
    except (orjson.JSONDecodeError, KeyError, TypeError):
        await _answer(send, 400, b'{"error":"invalid_body"}')
        return
    accepted = await _store.store(events)
    await _answer(send, 200, orjson.dumps({"accepted": accepted, "duplicates": 0, "rejected": []}))
