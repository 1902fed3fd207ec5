"""Body flood benchmark: many connections posting 1 MiB bodies, and the server's memory.

Starts the real server (uvicorn, one process, production settings) on a PostgreSQL database of its own
(seeded tables, one table key), then for each scenario, on a fresh server:

- events-invalid-key: POST /api/v1/events with an unknown key and 1 MiB bodies (no key is needed to cost
  memory if the body is read before the key is checked);
- rounds-invalid-key: the same at POST /api/v1/tables/<code>/rounds;
- rounds-chunked-over-limit: a valid table key and 2 MiB chunked bodies (no Content-Length), which must be
  cut off at the 1 MiB limit.

It prints the server's RSS before the flood, the peak during it and the RSS after it (a few idle seconds
later), with the answers the clients got. Drops its database at the end.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/x REDIS_URL=redis://127.0.0.1:6379/3 \\
        .venv/bin/python bench/flood.py --connections 200 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ingest import SERVER_ENV, _watch_memory  # noqa: E402
from bench.stack import Stack, url_with_database  # noqa: E402

MIB = 1024 * 1024
SCENARIOS = ("events-invalid-key", "rounds-invalid-key", "rounds-chunked-over-limit")
TABLE = "NOG-CSP-1"


def _setup(database_url: str) -> str:
    """Migrates the benchmark database, seeds the tables and returns a key of TABLE."""
    env = {**os.environ, "DATABASE_URL": database_url, "DEBUG": "1"}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    os.environ.update(DATABASE_URL=database_url, DEBUG="1", DJANGO_SETTINGS_MODULE="config.settings")
    import django

    django.setup()
    from django.db import connections

    from tables.models import Table
    from tables.seed import tables_seed
    from tables.services import table_key_issue

    tables_seed()
    key = table_key_issue(Table.objects.get(code=TABLE))[1]
    connections.close_all()
    return key


def _request(scenario: str, table_key: str) -> tuple[bytes, list[bytes]]:
    """The head of one request and its body as the parts written one after another."""
    document = b'{"events": []}' if scenario.startswith("events") else b'{"round": "FLOOD"}'
    if scenario == "rounds-chunked-over-limit":
        chunk = b" " * (64 * 1024)
        frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
        parts = [f"{len(document):x}\r\n".encode() + document + b"\r\n"] + [frame] * 32 + [b"0\r\n\r\n"]
        framing = b"Transfer-Encoding: chunked\r\n"
    else:
        parts = [document + b" " * (MIB - len(document))]
        framing = f"Content-Length: {MIB}\r\n".encode()
    path = "/api/v1/events" if scenario.startswith("events") else f"/api/v1/tables/{TABLE}/rounds"
    key = table_key if scenario == "rounds-chunked-over-limit" else "pv_mach_not-a-real-key"
    head = (
        (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n"
            "Content-Type: application/json\r\n"
        ).encode()
        + framing
        + b"\r\n"
    )
    return head, parts


async def _exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head, parts
) -> tuple[str, bool]:
    """Writes one request and reads its answer: the status and whether the connection stays open."""
    writer.write(head)
    for part in parts:
        writer.write(part)
        await writer.drain()
    answer = await reader.readuntil(b"\r\n\r\n")
    length, keep = 0, True
    for line in answer.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
        elif name.lower() == b"connection" and b"close" in value.lower():
            keep = False
    await reader.readexactly(length)
    return answer[9:12].decode(), keep


async def _connection(
    port: int, head: bytes, parts: list[bytes], stop_at: float, answers: collections.Counter
):
    writer = None
    while time.monotonic() < stop_at:
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            status, keep = await _exchange(reader, writer, head, parts)
            answers[status] += 1
        except (OSError, asyncio.IncompleteReadError):
            # The server answered and closed before the whole body was written: it did not read it.
            answers["closed early"] += 1
            keep = False
        if not keep:
            writer.close()
            writer = None
    if writer is not None:
        writer.close()


async def _flood(
    port: int, head: bytes, parts: list[bytes], connections: int, seconds: float
) -> collections.Counter:
    answers: collections.Counter = collections.Counter()
    stop_at = time.monotonic() + seconds
    await asyncio.gather(*(_connection(port, head, parts, stop_at, answers) for _ in range(connections)))
    return answers


def _rss(process: psutil.Process) -> int:
    return sum(p.memory_info().rss for p in [process, *process.children(recursive=True)])


def _scenario_run(stack: Stack, scenario: str, table_key: str, args: argparse.Namespace) -> None:
    stack.server_start()
    try:
        server = psutil.Process(stack.server.pid)
        head, parts = _request(scenario, table_key)
        # A few requests first, so that "before" is a server that has served this path.
        asyncio.run(_flood(stack.port, head, parts, 2, 1.0))
        time.sleep(1)
        before = _rss(server)
        peak = [before]
        stop = threading.Event()
        watcher = threading.Thread(target=_watch_memory, args=(server, peak, stop))
        watcher.start()
        started = time.monotonic()
        answers = _flood(stack.port, head, parts, args.connections, args.seconds)
        answers = asyncio.run(answers)
        elapsed = time.monotonic() - started
        time.sleep(args.settle)
        stop.set()
        watcher.join()
        after = _rss(server)
        print(f"{scenario}: {args.connections} connections, {elapsed:.1f} s")
        print("  answers: " + ", ".join(f"{status} x{count}" for status, count in sorted(answers.items())))
        print(
            f"  server RSS: before {before / MIB:.0f} MiB, peak {peak[0] / MIB:.0f} MiB, "
            f"after {after / MIB:.0f} MiB ({args.settle:.0f} s idle; {after / before - 1:+.0%} on before)"
        )
    finally:
        stack.server_stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20.0, help="flood duration per scenario")
    parser.add_argument("--settle", type=float, default=5.0, help="idle seconds before the RSS after")
    parser.add_argument("--pool", type=int, default=4, help="database connections of the server")
    parser.add_argument("--glibc-defaults", action="store_true", help="no MALLOC_* tuning in the server")
    parser.add_argument("--scenario", choices=SCENARIOS, action="append", help="default: all")
    args = parser.parse_args()
    # Stopped from outside (timeout, kill): still stop the server and drop the database in `finally`.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))

    server_url = os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/postgres"
    bench_db = f"progressivo_flood_{os.getpid()}"
    admin_url = url_with_database(server_url, "postgres")
    database_url = url_with_database(server_url, bench_db)
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{bench_db}"')
    stack = Stack(
        database_url=database_url,
        redis_url=os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0",
        settings_module="config.settings",
        extra_env={
            **SERVER_ENV,
            # As in production: a bounded pool, not a connection per request thread (the database is
            # shared with whatever else runs on this machine).
            "DATABASE_POOL_SIZE": str(args.pool),
            # glibc's allocator as the Dockerfile and scripts/run set it (--glibc-defaults to compare).
            **({} if args.glibc_defaults else {"MALLOC_ARENA_MAX": "2", "MALLOC_MMAP_THRESHOLD_": "65536"}),
        },
    )
    try:
        table_key = _setup(database_url)
        for scenario in args.scenario or SCENARIOS:
            _scenario_run(stack, scenario, table_key, args)
    finally:
        stack.stop()
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{bench_db}" WITH (FORCE)')


if __name__ == "__main__":
    main()
