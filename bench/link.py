"""The wide-area link under load: SITES simulated sites post their rounds' contributions to one link, and a
site's pool listener measures how old the pool it is shown is.

Runs the link's real stack (uvicorn, a Celery worker and beat, PostgreSQL, Redis) on a database of its own,
which it creates, migrates, seeds (the Jumbo 7 pool, SITES sites in euros and francs, a key each) and drops
at the end. Each site posts batches of BATCH contributions in seq order, one after the other, each with its
`through` at the time of posting (docs/wide-area.md), for SECONDS. Figures:

- contributions/s the link takes (acknowledged), and applied to the pool (the order of play: from the first
  post to the last entry applied);
- the pool's age on a site's sign: site 1 also posts a probe every 0.5 s; its age is the time from the
  probe's time of play to the first pool frame the site receives after the link applied it (p50, p99).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/any REDIS_URL=redis://127.0.0.1:6379/6 \\
        .venv/bin/python bench/link.py [--sites 10] [--seconds 20] [--batch 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import psycopg
import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.stack import BIN, Stack, url_with_database  # noqa: E402

POOL = "JUMBO7"
RATES = {"EUR": None, "CHF": "0.93500000"}
LINK_ENV = {"LINK_HEARTBEAT_SECONDS": "1"}


def _setup(database_url: str, sites: int) -> dict[str, tuple[str, str | None]]:
    """Migrates and seeds the link; returns {site code: (key, rate)}."""
    env = {**os.environ, "DATABASE_URL": database_url, "DEBUG": "1"}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    os.environ.update(DATABASE_URL=database_url, DEBUG="1", DJANGO_SETTINGS_MODULE="config.settings")
    import django

    django.setup()
    from decimal import Decimal

    from django.db import connections

    from common.credentials import credential_issue
    from jackpots.models import Progressive
    from jackpots.services import core
    from jackpots.services.levels import level_create
    from linkcentral.models import LinkedPool, LinkMember, LinkSite, LinkSiteKey

    progressive = Progressive.objects.create(name="Jumbo 7", kind=Progressive.Kind.WIDE_AREA, currency="EUR")
    params = core.Params(reset_mc=0, rate=Decimal("0.12"), reserve_rate=Decimal("0.03"))
    level = level_create(progressive, name="Jackpot", position=1, params=params)
    pool = LinkedPool.objects.create(code=POOL, level=level, settle_seconds=30)
    keys = {}
    for n in range(1, sites + 1):
        currency = "EUR" if n % 2 else "CHF"
        site = LinkSite.objects.create(code=f"S{n:02d}", name=f"Site {n}", currency=currency)
        LinkMember.objects.create(pool=pool, site=site)
        keys[site.code] = (credential_issue(LinkSiteKey, kind="site", site=site)[1], RATES[currency])
    connections.close_all()
    return keys


def _entry(seq: int, code: str, rate: str | None, wagered: int, at: datetime) -> dict:
    return {
        "seq": seq,
        "kind": "contribution",
        "round": f"{code}-{seq}",
        "played_at": at.isoformat(),
        "currency": "EUR" if rate is None else "CHF",
        "rate": rate or "1",
        "wagered_cents": wagered,
    }


async def _site(url: str, site: tuple[str, str, str | None], args, until: float, probes: list | None) -> int:
    """One site (code, key, rate) posting its backlog in order until ``until``; returns the entries
    acknowledged."""
    code, key, rate = site
    rng, seq, acked = random.Random(code), 0, 0
    headers = {"Authorization": f"Bearer {key}"}
    next_probe = time.monotonic()
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as client:
        while time.monotonic() < until:
            now = datetime.now(UTC)
            entries = []
            for _ in range(args.batch):
                seq += 1
                entries.append(_entry(seq, code, rate, rng.randrange(10, 5_000), now))
            if probes is not None and time.monotonic() >= next_probe:
                probes.append((code, seq, now))
                next_probe += 0.5
            body = {"pool": POOL, "through": now.isoformat(), "entries": entries}
            response = await client.post("/api/v1/link/entries", json=body)
            if response.status_code != 200:
                raise RuntimeError(f"{code}: {response.status_code} {response.text[:300]}")
            acked = response.json()["acked"]
    return acked


async def _listen(url: str, key: str, frames: list, stop: asyncio.Event) -> None:
    """Site 1's pool listener: the receive time of every pool frame."""
    ws_url = url.replace("http://", "ws://") + "/ws/link/"
    async with websockets.connect(ws_url, additional_headers={"Authorization": f"Bearer {key}"}) as ws:
        while not stop.is_set():
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
            except TimeoutError:
                continue
            if message.get("type") == "pool":
                frames.append((datetime.now(UTC), message["value_seq"]))


async def _run(url: str, keys: dict, args) -> tuple[int, float, list, list]:
    until = time.monotonic() + args.seconds
    frames: list = []
    probes: list = []
    stop = asyncio.Event()
    first = next(iter(keys))
    listener = asyncio.create_task(_listen(url, keys[first][0], frames, stop))
    start = time.perf_counter()
    acked = await asyncio.gather(
        *(
            _site(url, (code, key, rate), args, until, probes if code == first else None)
            for code, (key, rate) in keys.items()
        )
    )
    elapsed = time.perf_counter() - start
    await asyncio.sleep(3)  # the last frames
    stop.set()
    await listener
    return sum(acked), elapsed, frames, probes


def _applied(database_url: str, timeout: float = 120) -> tuple[int, timedelta]:
    """Waits until the link applied every entry; (entries, first received to last applied)."""
    deadline = time.monotonic() + timeout
    url = database_url.replace("postgres://", "postgresql://")
    with psycopg.connect(url, autocommit=True) as conn:
        while True:
            pending, total, span = conn.execute(
                "SELECT count(*) FILTER (WHERE applied_at IS NULL), count(*), "
                "max(applied_at) - min(received_at) FROM linkcentral_linkentry"
            ).fetchone()
            if pending == 0 or time.monotonic() > deadline:
                return total - pending, span
            time.sleep(0.5)


def _ages(database_url: str, probes: list, frames: list) -> list[float]:
    url = database_url.replace("postgres://", "postgresql://")
    ages = []
    with psycopg.connect(url) as conn:
        for code, seq, played in probes:
            row = conn.execute(
                "SELECT e.applied_at FROM linkcentral_linkentry e JOIN linkcentral_linkmember m ON "
                "m.id = e.member_id JOIN linkcentral_linksite s ON s.id = m.site_id "
                "WHERE s.code = %s AND e.seq = %s",
                (code, seq),
            ).fetchone()
            if row is None or row[0] is None:
                continue
            shown = next((at for at, _ in frames if at >= row[0]), None)
            if shown is not None:
                ages.append((shown - played).total_seconds() * 1000)
    return ages


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--sites", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--batch", type=int, default=50, help="contributions per post")
    args = parser.parse_args()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per post drowned the figures
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))

    server_url = os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/postgres"
    bench_db = f"progressivo_link_{os.getpid()}"
    admin_url = url_with_database(server_url, "postgres")
    database_url = url_with_database(server_url, bench_db)
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{bench_db}"')
    redis_url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    stack = Stack(database_url=database_url, redis_url=redis_url, settings_module="config.settings",
                  extra_env={"DEBUG": "1", **LINK_ENV})  # fmt: skip
    try:
        keys = _setup(database_url, args.sites)
        stack.start()
        stack._spawn("beat", [str(BIN / "celery"), "-A", "config", "beat", "--loglevel", "WARNING",
                              "--schedule", str(stack.log_dir / f"beat-link-{stack.port}")])  # fmt: skip
        load = os.getloadavg()[0]
        acked, elapsed, frames, probes = asyncio.run(_run(stack.url, keys, args))
        applied, span = _applied(database_url)
        ages = sorted(_ages(database_url, probes, frames))
        print(f"{args.sites} sites, batches of {args.batch}, {args.seconds:.0f} s (load {load:.2f} before)")
        rate = acked / elapsed
        print(f"link took {acked:,} contributions in {elapsed:.1f} s = {rate:,.0f} contributions/s")
        print(f"applied {applied:,} in {span.total_seconds():.1f} s = "
              f"{applied / max(span.total_seconds(), 1e-9):,.0f} contributions/s")  # fmt: skip
        if ages:
            p99 = ages[min(len(ages) - 1, int(len(ages) * 0.99))]
            print(f"pool age on a site's sign: p50 {statistics.median(ages):,.0f} ms, p99 {p99:,.0f} ms "
                  f"({len(ages)} probes, {len(frames)} pool frames)")  # fmt: skip
        else:
            print(f"pool age on a site's sign: no probe shown ({len(frames)} pool frames)")
    finally:
        stack.stop()
        with psycopg.connect(admin_url, autocommit=True) as conn:
            # A statement the stopped worker left running may outlive the stack by a moment.
            for attempt in range(30):
                try:
                    conn.execute(f'DROP DATABASE IF EXISTS "{bench_db}" WITH (FORCE)')
                    break
                except psycopg.errors.ObjectInUse:
                    if attempt == 29:
                        raise
                    time.sleep(1)


if __name__ == "__main__":
    main()
