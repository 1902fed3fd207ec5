"""Signage benchmark: N screens on websockets while games are posted through the events API.

Runs the real stack (uvicorn with channels_redis, a Celery worker, PostgreSQL) on its own database, which
it creates, seeds with both venues and drops at the end. N clients (the ``websockets`` library) connect
to the nine room screens in turn. Every POST_INTERVAL a gateway posts GAMES_PER_POST games on random
machines; every game feeds the wide-area Super Spin, which every screen shows, so each post is a probe:
its latency, on each client, is the time from the POST's sending to the first update frame carrying a
newer Super Spin seq; this process also hears the engine's publishes on Redis, to split it into the post
and the engine (sent -> publish) and the signs' fan-out (publish -> frame). Frames are counted on both
sides: every frame carries ``n``, its number on the connection, so frames sent = the last ``n``, and a
gap is a dropped frame.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/any REDIS_URL=redis://127.0.0.1:6379/6 \\
        .venv/bin/python bench/signage.py [--clients 250 1000] [--seconds 30]

DATABASE_URL gives the server (its database name is replaced); the Redis db is flushed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import orjson
import psutil
import psycopg
import websockets

ROOT = Path(__file__).resolve().parent.parent
GC_PROBE = ROOT / "bench" / "gc_probe"
sys.path.insert(0, str(ROOT))
from bench.signage_figures import (  # noqa: E402
    Client,
    Probe,
    collections_read,
    fan_out,
    latencies,
    report,
)
from bench.stack import Stack  # noqa: E402

BENCH_DB = "bench_signage"
POST_INTERVAL = 0.5
GAMES_PER_POST = 50  # 100 games a second: a busy evening on 450 machines
WARM_UP_POSTS = 4


def database_urls() -> tuple[str, str]:
    base = os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/postgres"
    parsed = urlparse(base)
    return urlunparse(parsed._replace(path="/postgres")), urlunparse(parsed._replace(path=f"/{BENCH_DB}"))


def database_recreate(admin_url: str, drop_only: bool = False) -> None:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        if not drop_only:
            conn.execute(f"CREATE DATABASE {BENCH_DB}")


def floor_prepare(bench_url: str, redis_url: str) -> dict:
    """Migrates and seeds the bench database; returns screen tokens, gateway keys, machines, levels."""
    os.environ.update({"DATABASE_URL": bench_url, "REDIS_URL": redis_url})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test_settings")
    import django

    django.setup()
    from django.core.management import call_command

    from common.credentials import credential_issue, screen_token_issue
    from floor.models import SignageScreen, Venue
    from jackpots.models import Level
    from slots.models import GatewayKey, SlotMachine

    call_command("migrate", verbosity=0)
    call_command("seed_venezia")
    tokens = {screen.slug: screen_token_issue(screen) for screen in SignageScreen.objects.all()}
    keys = {
        venue.code: credential_issue(GatewayKey, kind="gw", venue=venue)[1] for venue in Venue.objects.all()
    }
    machines = list(
        SlotMachine.objects.values_list("asset_number", "room__venue__code", "min_bet_cents", "max_bet_cents")
    )
    super_spin = Level.objects.get(progressive__name="Super Spin")
    from jackpots.hooks import progressive_group

    return {
        "tokens": tokens,
        "keys": keys,
        "machines": machines,
        "super_spin": super_spin.id,
        "super_spin_group": progressive_group(super_spin.progressive_id),
    }


def super_spin_seq(level_id: int) -> int:
    from jackpots.models import Level

    return Level.objects.get(pk=level_id).seq


async def client_run(client: Client, url: str, origin: str, level_id: int, stop: asyncio.Event) -> None:
    async with websockets.connect(
        url, origin=origin, max_queue=None, ping_interval=None, open_timeout=120
    ) as socket:
        async for raw in socket:
            received = time.monotonic()
            frame = orjson.loads(raw)
            client.frames += 1
            if frame["n"] != client.last_n + 1:
                client.gaps += frame["n"] - client.last_n - 1
            client.last_n = frame["n"]
            kind = frame["type"]
            if kind == "snapshot":
                for jackpot in frame["jackpots"]:
                    for level in jackpot["levels"]:
                        if level["id"] == level_id:
                            client.seq = level["seq"]
            elif kind == "update":
                for level in frame["levels"]:
                    if level["id"] == level_id and level["seq"] > client.seq:
                        client.seq = level["seq"]
                        client.updates.append((received, level["seq"]))
            if stop.is_set():
                return


class Poster:
    def __init__(self, base_url: str, keys: dict[str, str], machines: list, rng: random.Random) -> None:
        self.base_url = base_url
        self.keys = keys
        self.machines = machines
        self.rng = rng
        self.seq: dict[str, int] = {}

    def post(self) -> tuple[float, float]:
        venue = self.rng.choice(sorted(self.keys))
        pool = [m for m in self.machines if m[1] == venue]
        at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        events = []
        for asset, _venue, low, high in self.rng.sample(pool, GAMES_PER_POST):
            self.seq[asset] = self.seq.get(asset, 0) + 1
            wager = self.rng.randint(low, high)
            events.append(
                {"machine": asset, "seq": self.seq[asset], "at": at, "type": "game", "wager": wager, "win": 0}
            )
        request = urllib.request.Request(
            f"{self.base_url}/api/v1/events",
            data=json.dumps({"events": events}).encode(),
            headers={"Authorization": f"Bearer {self.keys[venue]}", "Content-Type": "application/json"},
        )
        sent = time.monotonic()
        with urllib.request.urlopen(request, timeout=30) as response:
            answer = json.loads(response.read())
        answered = time.monotonic()
        if answer["accepted"] != GAMES_PER_POST:
            raise RuntimeError(f"the events API did not accept every game: {answer}")
        return sent, answered


async def publish_observe(redis_url: str, level_id: int, group: str, seen: list[tuple[float, int]]) -> None:
    """Listens to the Super Spin group on Redis as the pub/sub layer names it: when each publish left the
    worker, to split the latency between the engine and the signs."""
    import msgpack
    from django.conf import settings
    from redis import asyncio as aioredis

    client = aioredis.Redis.from_url(redis_url)
    pubsub = client.pubsub()
    await pubsub.subscribe(f"{settings.CHANNEL_LAYERS['default']['CONFIG']['prefix']}__group__{group}")
    try:
        async for message in pubsub.listen():
            if message["type"] != "message":
                continue
            received = time.monotonic()
            data = msgpack.unpackb(message["data"], raw=False)
            for level in data.get("levels", []):
                if level["id"] == level_id:
                    seen.append((received, level["seq"]))
    finally:
        await pubsub.aclose()
        await client.aclose()


CLIENTS_PER_PROCESS = 250


def clients_process(targets: list[tuple[str, str]], origin: str, level_id: int, conn) -> None:
    """A process of websocket clients: one Python process cannot keep up with 1,000 sockets' frames on
    this machine without adding its own delay to what it measures."""
    asyncio.run(_clients_main(targets, origin, level_id, conn))


async def _clients_main(targets: list[tuple[str, str]], origin: str, level_id: int, conn) -> None:
    loop = asyncio.get_running_loop()
    clients = [Client(screen) for screen, _url in targets]
    stop = asyncio.Event()
    tasks = []
    started = time.monotonic()
    for index, (client, (_screen, url)) in enumerate(zip(clients, targets, strict=True)):
        tasks.append(asyncio.create_task(client_run(client, url, origin, level_id, stop)))
        if index % 50 == 49:
            await asyncio.sleep(0.3)  # connect in waves, as screens do after a restart
    deadline = time.monotonic() + 120
    while sum(1 for c in clients if c.frames) < len(clients) and time.monotonic() < deadline:
        if all(task.done() for task in tasks):
            break
        await asyncio.sleep(0.2)
    failures = [repr(task.exception()) for task in tasks if task.done() and task.exception()]
    conn.send((sum(1 for c in clients if c.frames), time.monotonic() - started, failures))
    while True:
        command = await loop.run_in_executor(None, conn.recv)
        if command == "count":
            conn.send(sum(c.frames for c in clients))
        elif command == "stop":
            break
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    conn.send([(c.frames, c.last_n, c.gaps, c.seq, c.updates) for c in clients])


@dataclass
class ClientProcesses:
    """The processes of websocket clients of a round, each behind a pipe (see ``_clients_main``)."""

    pipes: list = field(default_factory=list)
    processes: list = field(default_factory=list)

    def frames_now(self) -> int:
        """Frames received so far by all the clients (blocks: run it in an executor)."""
        for pipe in self.pipes:
            pipe.send("count")
        return sum(pipe.recv() for pipe in self.pipes)

    def collect(self) -> list[Client]:
        """Stops the clients and returns what each one counted (blocks: run it in an executor)."""
        clients = []
        for pipe in self.pipes:
            pipe.send("stop")
            for frames, last_n, gaps, seq, updates in pipe.recv():
                clients.append(Client("", frames, last_n, gaps, seq, updates))
        for process in self.processes:
            process.join(timeout=30)
        return clients


async def clients_start(n: int, stack: Stack, floor: dict) -> tuple[ClientProcesses, int, float]:
    """``n`` clients on the room screens in turn, CLIENTS_PER_PROCESS per process; returns them once each
    has its snapshot (or gave up), with how many connected and how long the slowest process took."""
    screens = sorted(floor["tokens"])
    ws_base = stack.url.replace("http://", "ws://")
    targets = [
        (screen, f"{ws_base}/ws/signage/{screen}/?token={floor['tokens'][screen]}")
        for screen in (screens[i % len(screens)] for i in range(n))
    ]
    context = multiprocessing.get_context("spawn")
    group = ClientProcesses()
    for start in range(0, n, CLIENTS_PER_PROCESS):
        parent, child = context.Pipe()
        process = context.Process(
            target=clients_process,
            args=(targets[start : start + CLIENTS_PER_PROCESS], stack.url, floor["super_spin"], child),
        )
        process.start()
        group.pipes.append(parent)
        group.processes.append(process)
    loop = asyncio.get_running_loop()
    ready = [await loop.run_in_executor(None, pipe.recv) for pipe in group.pipes]
    failures = [f for r in ready for f in r[2]]
    if failures:
        print(f"  {len(failures)} clients failed, e.g. {failures[0]}")
    return group, sum(r[0] for r in ready), max(r[1] for r in ready)


def _poster(stack: Stack, floor: dict, rng: random.Random) -> Poster:
    """The floor's gateway, carrying on the seqs of its earlier posts."""
    poster = Poster(stack.url, floor["keys"], floor["machines"], rng)
    poster.seq = floor.setdefault("seqs", {})
    return poster


async def posts_warm(stack: Stack, floor: dict, rng: random.Random) -> None:
    """Posts that are not probes, before anything is counted: the first posts after the screens connected
    took 2-3 s (each server process's first request, the worker's first task), and with 20 probes a run's
    p99 was that one cold post."""
    loop = asyncio.get_running_loop()
    poster = _poster(stack, floor, rng)
    for _ in range(WARM_UP_POSTS):
        await loop.run_in_executor(None, poster.post)


async def posts_run(stack: Stack, floor: dict, seconds: float, rng: random.Random) -> list[Probe]:
    """A gateway's post every POST_INTERVAL for ``seconds``: each post is a probe."""
    loop = asyncio.get_running_loop()
    poster = _poster(stack, floor, rng)
    probes: list[Probe] = []
    started = time.monotonic()
    next_post = started
    while time.monotonic() - started < seconds:
        sent, answered = await loop.run_in_executor(None, poster.post)
        probes.append(Probe(sent, answered))
        next_post += POST_INTERVAL
        await asyncio.sleep(max(0.0, next_post - time.monotonic()))
    return probes


def _tree(server: psutil.Process) -> list[psutil.Process]:
    """uvicorn and its worker processes (with --workers, the first only supervises)."""
    return [server, *server.children(recursive=True)]


def _tree_cpu(server: psutil.Process) -> float:
    return sum(times.user + times.system for times in (p.cpu_times() for p in _tree(server)))


def _tree_rss(server: psutil.Process) -> int:
    return sum(p.memory_info().rss for p in _tree(server))


async def round_run(
    n: int, stack: Stack, floor: dict, seconds: float, rng: random.Random, *, gc_logs: Path
) -> dict:
    server = psutil.Process(stack.server.pid)
    round_started = time.time()
    group, connected, connect_seconds = await clients_start(n, stack, floor)
    await posts_warm(stack, floor, rng)
    await asyncio.sleep(2)  # the warm-up's frames delivered before anything is counted
    loop = asyncio.get_running_loop()
    rss_idle = _tree_rss(server)
    cpu_before = _tree_cpu(server)
    frames_before = await loop.run_in_executor(None, group.frames_now)
    published: list[tuple[float, int]] = []
    observer = asyncio.create_task(
        publish_observe(stack.redis_url, floor["super_spin"], floor["super_spin_group"], published)
    )
    await asyncio.sleep(0.2)
    started, probes_started = time.monotonic(), time.time()
    probes = await posts_run(stack, floor, seconds, rng)
    await asyncio.sleep(3)  # let the last batches reach everyone
    window = time.monotonic() - started
    server_pids = {p.pid for p in _tree(server)}
    collections = collections_read(gc_logs, round_started, time.time())
    cpu_after = _tree_cpu(server)
    rss_end = _tree_rss(server)
    frames_window = await loop.run_in_executor(None, group.frames_now) - frames_before
    final_seq = await loop.run_in_executor(None, super_spin_seq, floor["super_spin"])
    observer.cancel()
    clients = await loop.run_in_executor(None, group.collect)
    from_sent, from_answer, misses = latencies(clients, probes)
    published_at = [next((at for at, _seq in published if at >= probe.sent), math.nan) for probe in probes]
    engine = [(at - probe.sent) * 1000 for at, probe in zip(published_at, probes, strict=True)]
    cpu = cpu_after - cpu_before
    return {
        "n": n,
        "connected": connected,
        "connect_seconds": connect_seconds,
        "probes": len(probes),
        "latency": from_sent,
        "from_answer": from_answer,
        "engine": [value for value in engine if not math.isnan(value)],
        "post": [(probe.answered - probe.sent) * 1000 for probe in probes],
        "fan_out": fan_out(clients, published),
        "misses": misses,
        "sent": sum(c.last_n for c in clients),
        "received": sum(c.frames for c in clients),
        "gaps": sum(c.gaps for c in clients),
        "stale": sum(1 for c in clients if c.seq != final_seq),
        "fps": frames_window / window,
        "cpu_us_per_frame": cpu / frames_window * 1e6 if frames_window else float("nan"),
        "server_cpu_share": cpu / window,
        "rss_idle": rss_idle,
        "rss_end": rss_end,
        "client_processes": len(group.processes),
        "gc_servers": [c for c in collections if c.pid in server_pids],
        "gc_worker": [c for c in collections if c.pid not in server_pids],
        "probes_started": probes_started,
    }


def uptime() -> str:
    return subprocess.run(["uptime"], check=False, capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, nargs="+", default=[250, 1000])
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--layer", choices=["pubsub", "core"], default="pubsub")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--ws", default="auto", help="uvicorn's websocket implementation")
    parser.add_argument(
        "--server-workers", type=int, default=2, help="uvicorn processes (docker-compose.yml's web runs 2)"
    )
    args = parser.parse_args()
    redis_url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/6"
    admin_url, bench_url = database_urls()
    print("load before:", uptime())
    database_recreate(admin_url)
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    floor = floor_prepare(bench_url, redis_url)
    backend = {
        "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "core": "channels_redis.core.RedisChannelLayer",
    }[args.layer]
    print(
        f"layer {backend}; {len(floor['machines'])} machines; {GAMES_PER_POST} games every {POST_INTERVAL} s"
    )
    # Each process of the stack logs its garbage collections here (bench/gc_probe); removed at the end.
    gc_logs = Path(tempfile.mkdtemp(prefix="signage-gc-"))
    stack = Stack(
        bench_url,
        redis_url,
        worker_pool="prefork",
        worker_concurrency=2,
        # The clients stand for N screens but connect from this one address to the seed's nine screens: the
        # limits on handshakes per address (common.socket_limits) and on connections per screen token
        # refused nine in ten of them (403, then 4429) and the figures were of about a hundred.
        extra_env={
            "CHANNEL_LAYER_BACKEND": backend,
            "LOG_LEVEL": "WARNING",
            "WEBSOCKET_HANDSHAKES_PER_SECOND": str(max(args.clients) * 2),
            "SIGNAGE_CONNECTIONS_PER_SCREEN": str(max(args.clients)),
            "BENCH_GC_LOG_DIR": str(gc_logs),
            "PYTHONPATH": os.pathsep.join(filter(None, [str(GC_PROBE), os.environ.get("PYTHONPATH")])),
        },
        server_args=["--ws", args.ws, "--workers", str(args.server_workers)],
    )
    rng = random.Random(args.seed)
    try:
        stack.start()
        for n in args.clients:
            report(asyncio.run(round_run(n, stack, floor, args.seconds, rng, gc_logs=gc_logs)))
    finally:
        stack.stop()
        shutil.rmtree(gc_logs, ignore_errors=True)
        from django.db import connections

        connections.close_all()
        database_recreate(admin_url, drop_only=True)
    print("\nload after:", uptime())


if __name__ == "__main__":
    main()
