"""How near the COPY bound any Python server on this stack gets: the events API, side by side in one run
with the least such a server can do for the same posts, and the anchor.

Three servers take bench/ingest.py's load in turn (the order reversed every other round), each on the same
uvicorn (its workers, uvloop, httptools) and the same database:

- ``api``: the events API (config.asgi), as bench/ingest.py runs it;
- ``bare``: bench/bare_events.py, no framework and no thread, one binary COPY and one commit a request into
  the events table (its trigger queues each game for the engine), and nothing the contract asks beyond
  storing the rows (no key, no validation, no duplicate told, no machine locked or moved);
- ``bare_copy``: the same into the anchor's ``bench_copy`` (the events table's indexes, no trigger).

Then the anchor (bench/ingest_anchor.py), and a table: events/s, the server's and PostgreSQL's CPU per
event, p99, and each one's share of the anchor. ``bare_copy``'s share is the ceiling of this stack on this
machine: what is left between it and the anchor is the HTTP server, Python and psycopg, not the
application.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/x REDIS_URL=redis://127.0.0.1:6379/3 \
        .venv/bin/python bench/ingest_ceiling.py --seconds 10 --rounds 2 --copy-rows 100000
"""

from __future__ import annotations

import os
import signal
import statistics
import sys
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ingest import (  # noqa: E402
    _backend_pids,
    _load_report,
    _load_run,
    _server_start,
    _setup,
    arguments_parser,
    bench_database,
)
from bench.ingest_anchor import _copy_table_create, anchor_report, copy_anchor  # noqa: E402

SERVERS = {
    "api": ("config.asgi:application", {}),
    "bare": ("bench.bare_events:app", {"BARE_TABLE": "slots_machineevent"}),
    "bare_copy": ("bench.bare_events:app", {"BARE_TABLE": "bench_copy"}),
}


def _tables_empty(database_url: str) -> None:
    """Each run stores the same machines' seqs from 1: the rows of the run before go first."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("TRUNCATE slots_machineevent, slots_pendingevent, bench_copy CASCADE")


def _one_run(
    name: str, database_url: str, admin_url: str, *, bench_db: str, machines, args
) -> dict[str, float]:
    application, extra = SERVERS[name]
    _tables_empty(database_url)
    server, url = _server_start(database_url, args, application, {**extra, "BARE_DATABASE_URL": database_url})
    try:
        load, elapsed, peak = _load_run(
            server, url, machines, args, lambda: _backend_pids(admin_url, bench_db), gateway_key=""
        )
    finally:
        server.terminate()
        server.wait(30)
    print(f"--- {name} ({application} {extra or ''})")
    return _load_report(load, elapsed, peak, args)


def _summary(results: dict[str, list[dict[str, float]]], best: float) -> None:
    print(
        "\n| server | events/s | server µs/event | PostgreSQL µs/event | p99 ms "
        f"| share of {best:,.0f} rows/s |"
    )
    print("|---|---|---|---|---|---|")
    for name, runs in results.items():

        def span(key: str, fmt: str, runs=runs) -> str:
            values = sorted(run[key] for run in runs)
            return "-".join(format(value, fmt) for value in dict.fromkeys((values[0], values[-1])))

        shares = sorted(run["rate"] / best for run in runs)
        share = "-".join(f"{value:.0%}" for value in dict.fromkeys((shares[0], shares[-1])))
        print(
            f"| {name} | {span('rate', ',.0f')} | {span('server', '.1f')} | {span('pg', '.1f')} | "
            f"{span('p99', '.1f')} | {share} |"
        )
    api, bare_copy = results.get("api"), results.get("bare_copy")
    if api and bare_copy:
        ratio = statistics.median(run["rate"] for run in api) / statistics.median(
            run["rate"] for run in bare_copy
        )
        print(f"the events API's rate over bare_copy's (medians): {ratio:.2f}")


def main() -> None:
    parser = arguments_parser()
    parser.description = __doc__
    parser.add_argument(
        "--rounds", type=int, default=2, help="runs of each server, the order reversed each round"
    )
    parser.add_argument("--servers", nargs="+", default=list(SERVERS), choices=list(SERVERS))
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    with bench_database("progressivo_ceiling") as (admin_url, bench_db, database_url):
        machines, _gateway_key = _setup(database_url, args.machines)
        _copy_table_create(database_url)
        load_before = os.getloadavg()
        results: dict[str, list[dict[str, float]]] = {name: [] for name in args.servers}
        for round_number in range(args.rounds):
            order = args.servers if round_number % 2 == 0 else list(reversed(args.servers))
            for name in order:
                results[name].append(
                    _one_run(name, database_url, admin_url, bench_db=bench_db, machines=machines, args=args)
                )
        anchor = copy_anchor(database_url, [(pk, bank) for _, _, pk, bank in machines], args)
        api_runs = results.get("api")
        anchor_report(statistics.median(run["rate"] for run in api_runs) if api_runs else None, anchor)
        _summary(results, max(rate for _, rate, _ in anchor))
        load_after = os.getloadavg()
        print(f"load average (1 min) before/after: {load_before[0]:.2f} / {load_after[0]:.2f}")


if __name__ == "__main__":
    main()
