"""The anchor of bench/ingest.py: the fastest way PostgreSQL takes the rows the events API stores into a
table with the events table's indexes and constraints (COPY from several connections at once, by
request-sized batches and in one COPY per connection), and the API's rate as a share of it.
"""

from __future__ import annotations

import argparse
import random
import threading
import time
from datetime import UTC, datetime, timedelta

import psutil
import psycopg

# The columns a request writes into the events table (received_at is the database's now() there).
_COPY_COLUMNS = (
    "machine_id, seq, type, at, received_at, digest, payload, wager_cents, win_cents, bank_id, "
    "denomination_cents, is_max_bet, pending"
)
_FOREIGN_KEYS_SQL = (
    "SELECT pg_get_constraintdef(oid) FROM pg_constraint "
    "WHERE conrelid = 'slots_machineevent'::regclass AND contype = 'f'"
)


def _copy_table_create(database_url: str) -> None:
    """``bench_copy``: the events table's columns, indexes, checks and foreign keys (LIKE copies all but
    the foreign keys, added here from the catalogue). Not its trigger, which queues each game for the
    engine in a second table: that is the application's work, and a bound must not be lower than it."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS bench_copy")
        conn.execute("CREATE TABLE bench_copy (LIKE slots_machineevent INCLUDING ALL)")
        for (definition,) in conn.execute(_FOREIGN_KEYS_SQL).fetchall():
            conn.execute(f"ALTER TABLE bench_copy ADD {definition}")


def _copy_batches(machines: list[tuple[int, int]], rows: int, batch_size: int) -> list[bytes]:
    """``rows`` game rows as the API would store them, in COPY's text format, one element per batch of
    one machine's ``batch_size`` consecutive games (machines [(id, bank id)], their seqs from 1). Built
    before the clock starts: the anchor measures the database, not Python."""
    base = datetime.now(UTC) - timedelta(days=1)
    received = datetime.now(UTC).isoformat()
    seqs = dict.fromkeys((machine_id for machine_id, _ in machines), 0)
    batches = []
    for index in range(rows // batch_size):
        machine_id, bank_id = machines[index % len(machines)]
        lines = []
        for _ in range(batch_size):
            seqs[machine_id] += 1
            seq = seqs[machine_id]
            wager, win = random.choice((50, 100, 250, 450)), random.choice((0, 0, 0, 100, 900))
            at = (base + timedelta(milliseconds=seq)).isoformat()
            payload = f'{{"win": {win}, "wager": {wager}}}'
            lines.append(
                f"{machine_id}\t{seq}\t1\t{at}\t{received}\t{random.randbytes(20).hex()}\t{payload}\t"
                f"{wager}\t{win}\t{bank_id}\t50\t{'t' if wager == 450 else 'f'}\tt\n"
            )
        batches.append("".join(lines).encode())
    return batches


def backend_cpu(pids: list[int]) -> float:
    """CPU seconds so far of these PostgreSQL server processes (the server runs on this machine)."""
    total = 0.0
    for pid in pids:
        try:
            times = psutil.Process(pid).cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def _copy_client(database_url: str, chunks: list[bytes], start: threading.Barrier, pids: list[int]) -> None:
    """One connection COPYing its chunks, each in its own transaction, once every client is ready."""
    with psycopg.connect(database_url) as conn:
        pids.append(conn.info.backend_pid)
        try:
            start.wait()
            for chunk in chunks:
                with conn.cursor().copy(f"COPY bench_copy ({_COPY_COLUMNS}) FROM STDIN") as copy:
                    copy.write(chunk)
                conn.commit()
        except BaseException:
            start.abort()  # the main thread's wait fails instead of waiting for ever
            raise
        start.wait()


def _copy_rate(database_url: str, batches: list[bytes], clients: int, per_copy: int) -> tuple[float, float]:
    """Rows/s of ``clients`` connections COPYing ``batches`` at once, ``per_copy`` batches per COPY and
    commit, into an empty ``bench_copy``; and PostgreSQL's CPU seconds per row meanwhile."""
    _copy_table_create(database_url)
    shares = [batches[index::clients] for index in range(clients)]
    chunks = [[b"".join(share[i : i + per_copy]) for i in range(0, len(share), per_copy)] for share in shares]
    rows = sum(chunk.count(b"\n") for share in chunks for chunk in share)
    start, pids = threading.Barrier(clients + 1), []
    threads = [
        threading.Thread(target=_copy_client, args=(database_url, share, start, pids)) for share in chunks
    ]
    for thread in threads:
        thread.start()
    start.wait()
    cpu_before, started = backend_cpu(pids), time.monotonic()
    start.wait()
    elapsed, cpu_after = time.monotonic() - started, backend_cpu(pids)
    for thread in threads:
        thread.join()
    return rows / elapsed, (cpu_after - cpu_before) / rows


def copy_anchor(
    database_url: str, machines: list[tuple[int, int]], args: argparse.Namespace
) -> list[tuple[str, float, float]]:
    """The anchor: the fastest way PostgreSQL takes the same rows into a table with the events table's
    indexes, over a few ways of COPYing them: [(how, rows/s, PostgreSQL CPU seconds per row)]."""
    batches = _copy_batches(machines, args.copy_rows, args.batch)
    results = []
    for clients in args.copy_clients:
        for per_copy, how in ((1, f"one COPY per {args.batch}-row batch"), (len(batches), "one COPY each")):
            rate, cpu = _copy_rate(database_url, batches, clients, per_copy)
            results.append((f"COPY, {clients} clients, {how}", rate, cpu))
    return results


def anchor_report(rate: float | None, anchor: list[tuple[str, float, float]]) -> None:
    """The anchor's runs, and the API's share of the best (``rate``: its events/s, if it ran)."""
    print("anchor, the same rows into a copy of the events table (same indexes and constraints):")
    for how, copy_rate, cpu in anchor:
        print(f"  {how}: {copy_rate:,.0f} rows/s, PostgreSQL {cpu * 1e6:.0f} µs CPU per row")
    how, best, _ = max(anchor, key=lambda result: result[1])
    if rate is not None:
        print(f"API's share of the anchor ({how}, {best:,.0f} rows/s): {rate / best:.0%}")
