"""Benchmark of POST /api/v1/events on the real stack.

Creates its own PostgreSQL database, migrates it, creates machines and machine keys, starts uvicorn with
several worker processes, posts batches of game events from concurrent clients for a fixed time and
prints: events/s accepted, request latency p50/p99, the server's peak memory (RSS of its process tree), the
CPU the API's server and PostgreSQL spent per event, and the anchor: the fastest way PostgreSQL takes the
same rows into a table with the events table's indexes (COPY from several connections at once, by
request-sized batches and in one COPY per connection), measured in the same run after the load, with the
API's share of it. Drops its database at the end.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/x REDIS_URL=redis://127.0.0.1:6379/3 \
        .venv/bin/python bench/ingest.py --workers 2 --clients 4 --connections 24 --seconds 20 [--gateway]

A request is one machine's batch of games (its key; the single statement), or with --gateway a gateway's:
one game on each of many machines (the venue's key; the same statement, which locks them in id order).

DATABASE_URL only names the server (its database is replaced by the benchmark's own); with REDIS_URL the
engine's task is enqueued to that Redis as in production (the queue is emptied at the end).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlparse

import httpx
import orjson
import psutil
import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ingest_anchor import anchor_report, backend_cpu, copy_anchor  # noqa: E402
from bench.stack import free_port, url_with_database  # noqa: E402

# The server's settings in the benchmarks: production ones, over plain HTTP on the loopback.
SERVER_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "benchmark-secret-key-0123456789-abcdefghijklmnop",
    "ALLOWED_HOSTS": "127.0.0.1",
    "SECURE_SSL_REDIRECT": "0",
    "LOG_LEVEL": "WARNING",
}


def _setup(database_url: str, machines: int) -> tuple[list[tuple[str, str, int, int]], str]:
    """Migrates the benchmark database and creates ``machines`` machines with a key each: [(asset
    number, key, machine id, bank id)], and the venue's gateway key."""
    env = {**os.environ, "DATABASE_URL": database_url, "DEBUG": "1"}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["DEBUG"] = "1"
    import django

    django.setup()
    from common.credentials import credential_issue
    from floor.models import Bank, Room, Venue
    from slots.models import GatewayKey, MachineKey, SlotMachine

    venue = Venue.objects.create(code="NOG", name="Ca' Noghera")
    room = Room.objects.create(venue=venue, number=1, name="Sala Uno")
    bank = Bank.objects.create(room=room, code="BENCH")
    result = []
    for number in range(1, machines + 1):
        machine = SlotMachine.objects.create(
            asset_number=f"NOG-{number:04d}",
            manufacturer="IGT",
            game_title="Diamond Vault",
            denomination_cents=50,
            min_bet_cents=50,
            max_bet_cents=450,
            room=room,
            bank=bank,
        )
        result.append(
            (
                machine.asset_number,
                credential_issue(MachineKey, kind="mach", machine=machine)[1],
                machine.pk,
                bank.pk,
            )
        )
    gateway_key = credential_issue(GatewayKey, kind="gw", venue=venue)[1]
    from django.db import connections

    connections.close_all()
    return result, gateway_key


def _body(games: list[tuple[str, int]], at: str) -> bytes:
    """One request's body, a game for each (asset number, seq) of ``games`` (one machine's run of seqs, or
    one seq on each of a gateway's machines), formatted directly: building it must cost the load client
    far less than the server spends on it, or the client's share of the two cores is what gets measured."""
    wagers = random.choices((50, 100, 250, 450), k=len(games))
    wins = random.choices((0, 0, 0, 100, 900), k=len(games))
    events = ",".join(
        f'{{"machine":"{asset}","seq":{seq},"at":"{at}","type":"game","wager":{wagers[i]},"win":{wins[i]}}}'
        for i, (asset, seq) in enumerate(games)
    )
    return f'{{"events":[{events}]}}'.encode()


def _process_cpu(root: psutil.Process) -> dict[int, float]:
    """CPU seconds so far of ``root`` and each of its descendants, by pid."""
    result = {}
    for process in [root, *root.children(recursive=True)]:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        result[process.pid] = times.user + times.system
    return result


class Load:
    def __init__(self) -> None:
        self.accepted = 0
        self.requests = 0
        self.errors = 0
        self.latencies: list[float] = []
        self.measuring = False
        self.server: psutil.Process | None = None
        # The PostgreSQL server processes serving the benchmark's database, found when asked.
        self.backends: Callable[[], list[int]] = list
        # (CPU seconds by server process, the load client's CPU seconds, PostgreSQL's CPU seconds) when
        # measuring starts and ends.
        self.cpu_before: tuple[dict[int, float], float, float] = ({}, 0.0, 0.0)
        self.cpu_after: tuple[dict[int, float], float, float] = ({}, 0.0, 0.0)

    def cpu_snapshot(self, backends: list[int]) -> tuple[dict[int, float], float, float]:
        return _process_cpu(self.server), time.process_time(), backend_cpu(backends)


class _Connection:
    """A minimal HTTP/1.1 keep-alive client on asyncio streams: POST, read the status line, headers and
    the Content-Length body. A general client library (httpx) spent as much CPU per request as a
    fifth of the server's, on the same two cores."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def post(self, path: str, key: str, body: bytes) -> tuple[int, bytes]:
        if self.writer is None:
            await self.open()
        self.writer.write(
            f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nAuthorization: Bearer {key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = 0
        for line in head.split(b"\r\n"):
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def _client(
    path: str,
    machines,
    connections: asyncio.Queue,
    *,
    batch_size,
    at,
    load: Load,
    stop_at: float,
    gateway_key: str = "",
) -> None:
    """One request in flight at a time, each on the connection idle longest: a machine's ``batch_size``
    games, or with ``gateway_key`` a gateway's one game on each of ``batch_size`` of its machines."""
    seqs = dict.fromkeys((machine[0] for machine in machines), 1)
    while time.monotonic() < stop_at:
        if gateway_key:
            key, chosen = gateway_key, random.sample(machines, min(batch_size, len(machines)))
            body = _body([(asset, seqs[asset]) for asset, *_ in chosen], at)
            for asset, *_ in chosen:
                seqs[asset] += 1
        else:
            asset, key = random.choice(machines)[:2]
            body = _body([(asset, seqs[asset] + i) for i in range(batch_size)], at)
            seqs[asset] += batch_size
        connection = await connections.get()
        started = time.perf_counter()
        try:
            status, content = await connection.post(path, key, body)
        finally:
            connections.put_nowait(connection)
        elapsed = time.perf_counter() - started
        if status != 200:
            load.errors += 1
            continue
        if load.measuring:
            load.requests += 1
            load.accepted += orjson.loads(content)["accepted"]
            load.latencies.append(elapsed)


async def _drive(
    url, machines, load: Load, *, clients, connections, batch_size, warmup, seconds, gateway_key=""
) -> float:
    at = (datetime.now(UTC) - timedelta(days=1)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    parsed = urlparse(url)
    # Keep-alive connections, as a floor's gateways hold them, opened one after another: opened at once,
    # the first worker to wake would accept every one of them (asyncio accepts a whole backlog per
    # wake-up). Which worker accepts each is still the kernel's race, so there are several times more
    # connections than requests in flight, taken in turn: each worker then gets a share of the load close
    # to its share of the connections, not all of it or none.
    idle: asyncio.Queue[_Connection] = asyncio.Queue()
    opened = []
    for _ in range(connections):
        connection = _Connection(parsed.hostname, parsed.port)
        await connection.open()
        opened.append(connection)
        idle.put_nowait(connection)
        await asyncio.sleep(0.02)
    stop_at = time.monotonic() + warmup + seconds
    tasks = [
        asyncio.create_task(
            _client(
                parsed.path,
                group,
                idle,
                batch_size=batch_size,
                at=at,
                load=load,
                stop_at=stop_at,
                gateway_key=gateway_key,
            )
        )
        for group in (machines[index::clients] for index in range(clients))
    ]
    await asyncio.sleep(warmup)
    # The pools' connections are open after the warm-up and last; one that opens later counts from 0.
    backends = load.backends()
    load.measuring = True
    load.cpu_before = load.cpu_snapshot(backends)
    started = time.monotonic()
    await asyncio.gather(*tasks)
    load.cpu_after = load.cpu_snapshot(load.backends())
    for connection in opened:
        connection.close()
    return time.monotonic() - started


def _watch_memory(root: psutil.Process, peak: list[int], stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            processes = [root, *root.children(recursive=True)]
            peak[0] = max(peak[0], sum(process.memory_info().rss for process in processes))
        except psutil.Error:
            pass
        stop.wait(0.2)


def _backend_pids(admin_url: str, database: str) -> list[int]:
    """The PostgreSQL server processes connected to the benchmark's database (the API's pools)."""
    with psycopg.connect(admin_url, autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", [database]).fetchall()
    return [pid for (pid,) in rows]


def _arguments() -> argparse.Namespace:
    return arguments_parser().parse_args()


def arguments_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, default=2, help="uvicorn worker processes")
    parser.add_argument("--clients", type=int, default=4, help="requests in flight at once")
    parser.add_argument("--connections", type=int, default=24, help="keep-alive connections they share")
    parser.add_argument("--pool", type=int, default=4, help="database connections per worker")
    parser.add_argument("--machines", type=int, default=200)
    parser.add_argument("--batch", type=int, default=100, help="game events per request")
    parser.add_argument(
        "--gateway",
        action="store_true",
        help="post as a venue's gateway: each request one game on each of --batch machines (at most the "
        "client's share, --machines / --clients), the events API's general path",
    )
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--seconds", type=float, default=20.0, help="measured duration")
    parser.add_argument("--copy-rows", type=int, default=300_000, help="rows each anchor run COPYs")
    parser.add_argument(
        "--copy-clients",
        type=lambda text: [int(part) for part in text.split(",")],
        default=[2, 4],
        help="connections COPYing at once, one anchor run per number (comma-separated)",
    )
    return parser


def _server_start(
    database_url: str, args, application: str = "config.asgi:application", extra_env: dict | None = None
) -> tuple[subprocess.Popen, str]:
    """uvicorn serving ``application`` on a free port, once it answers; returns the process and the events
    URL."""
    port = free_port()
    env = {**os.environ, **SERVER_ENV, "DATABASE_URL": database_url, "DATABASE_POOL_SIZE": str(args.pool)}
    env.update(extra_env or {})
    command = [sys.executable, "-m", "uvicorn", application, "--host", "127.0.0.1"]
    command += ["--port", str(port), "--workers", str(args.workers), "--no-access-log"]
    command += ["--log-level", "warning", "--loop", "uvloop", "--http", "httptools"]
    server = subprocess.Popen(command, cwd=ROOT, env=env)
    url = f"http://127.0.0.1:{port}/api/v1/events"
    for _ in range(600):
        try:
            # Any answer will do (401 here): /healthz would wait for a Celery worker that is not run.
            httpx.post(url, timeout=2)
            return server, url
        except httpx.HTTPError:
            time.sleep(0.1)
    server.terminate()
    raise SystemExit("the server did not start")


def _load_run(
    server: subprocess.Popen, url: str, machines, args, backends, *, gateway_key: str
) -> tuple[Load, float, int]:
    """The measured load; returns it, its duration and the server's peak RSS in bytes."""
    load = Load()
    load.server = psutil.Process(server.pid)
    load.backends = backends
    peak = [0]
    stop = threading.Event()
    watcher = threading.Thread(target=_watch_memory, args=(load.server, peak, stop))
    watcher.start()
    try:
        elapsed = asyncio.run(
            _drive(
                url,
                machines,
                load,
                clients=args.clients,
                connections=args.connections,
                batch_size=args.batch,
                warmup=args.warmup,
                seconds=args.seconds,
                gateway_key=gateway_key if args.gateway else "",
            )
        )
    finally:
        stop.set()
        watcher.join()
    return load, elapsed, peak[0]


def _load_report(load: Load, elapsed: float, peak: int, args) -> dict[str, float]:
    """Prints the API's figures; returns the headline ones: events/s ("rate"), CPU µs per event of the
    server and of PostgreSQL ("server", "pg"), and the latency p99 in ms."""
    rate = load.accepted / elapsed
    latencies = sorted(load.latencies)
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
    print(
        f"uvicorn workers={args.workers} clients={args.clients} connections={args.connections} "
        f"machines={args.machines} batch={args.batch}"
        + (
            f" gateway (one game on each of {min(args.batch, args.machines // args.clients)} machines)"
            if args.gateway
            else ""
        )
    )
    print(f"requests: {load.requests} in {elapsed:.1f} s, non-200: {load.errors}")
    print(f"accepted: {rate:,.0f} events/s")
    print(f"latency: p50 {p50:.1f} ms, p99 {p99:.1f} ms")
    print(f"server peak memory: {peak / 2**20:.0f} MiB (RSS, uvicorn and its workers)")
    (before, client_before, pg_before), (after, client_after, pg_after) = load.cpu_before, load.cpu_after
    server_seconds = sum(after.values()) - sum(before.values())
    client_cpu = (client_after - client_before) / elapsed
    print(
        f"CPU: server {server_seconds / elapsed:.2f} cores, load client {client_cpu:.2f} cores (of 2, shared)"
    )
    workers = [pid for pid in after if pid != load.server.pid]
    shares = sorted((after[pid] - before.get(pid, 0.0)) / elapsed for pid in workers)
    print("CPU per server process: " + ", ".join(f"{share:.2f}" for share in reversed(shares)))
    events = max(load.accepted, 1)
    server_us, pg_us = server_seconds / events * 1e6, (pg_after - pg_before) / events * 1e6
    print(
        f"CPU per event: API server {server_us:.0f} µs, "
        f"PostgreSQL {pg_us:.0f} µs (its processes serving the API)"
    )
    return {"rate": rate, "server": server_us, "pg": pg_us, "p99": p99}


def main() -> None:
    args = _arguments()
    # Stopped from outside (timeout, kill): still stop the server and drop the database in `finally`.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    logging.getLogger("httpx").setLevel(logging.WARNING)

    server = None
    with bench_database("progressivo_bench") as (admin_url, bench_db, database_url):
        try:
            machines, gateway_key = _setup(database_url, args.machines)
            server, url = _server_start(database_url, args)
            load_before = os.getloadavg()
            load, elapsed, peak = _load_run(
                server,
                url,
                machines,
                args,
                lambda: _backend_pids(admin_url, bench_db),
                gateway_key=gateway_key,
            )
            load_after = os.getloadavg()
            server.terminate()
            server.wait(30)
            server = None
            rate = _load_report(load, elapsed, peak, args)["rate"]
            anchor_report(rate, copy_anchor(database_url, [(pk, bank) for _, _, pk, bank in machines], args))
            print(f"load average (1 min) before/after: {load_before[0]:.2f} / {load_after[0]:.2f}")
        finally:
            if server is not None:
                server.terminate()
                server.wait(30)


@contextlib.contextmanager
def bench_database(prefix: str) -> Iterator[tuple[str, str, str]]:
    """A database of the benchmark's own on DATABASE_URL's server: (the server's admin URL, its name, its
    URL). Dropped at the end, and the engine's queue in REDIS_URL emptied: the engine's task was enqueued
    once per request and no worker ran here."""
    server_url = os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/postgres"
    bench_db = f"{prefix}_{os.getpid()}"
    admin_url = url_with_database(server_url, "postgres")
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{bench_db}"')
    try:
        yield admin_url, bench_db, url_with_database(server_url, bench_db)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{bench_db}" WITH (FORCE)')
        redis_url = os.environ.get("REDIS_URL")
        if redis_url:
            import redis

            redis.Redis.from_url(redis_url).delete("celery")


if __name__ == "__main__":
    main()
