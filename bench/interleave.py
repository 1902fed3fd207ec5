"""Two versions of the code side by side: each benchmark run in pairs, the code before and the code after
one after the other (the one going first alternating from pair to pair), so that both meet the same load
on a shared machine; then a markdown table per benchmark of the headline figures, after / before.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/prog_x REDIS_URL=redis://127.0.0.1:6379/12 \\
        python bench/interleave.py --before ../old --after . --pairs 3 [--redis-dbs 12 13] [NAME ...]

--before and --after are checkouts (git worktrees), each with its own .venv: each benchmark runs in its
checkout's directory with its checkout's Python. DATABASE_URL names the server and, by its database's
name, the names of the databases the benchmarks that take one are given (<name>_before, <name>_after);
--redis-dbs gives each side its Redis db (default: REDIS_URL's for both). Without NAMEs, every benchmark
of BENCHMARKS runs. Each run's output is kept in --log-dir. Only the standard library: any Python runs it.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

STAGE = Path(__file__).resolve().with_name("interleave_stage.py")
# Run with a checkout's Python (psycopg is in its .venv): drops the database argv[1] names.
DROP = (
    "import sys, psycopg; from urllib.parse import urlparse as u; url = u(sys.argv[1]); "
    "c = psycopg.connect(url._replace(path='/postgres').geturl(), autocommit=True); "
    "c.execute('DROP DATABASE IF EXISTS \"%s\" WITH (FORCE)' % url.path.strip('/'))"
)
SIDES = ("before", "after")
NUMBER = r"([\d,]+(?:\.\d+)?)"
SIGNED = r"(-?[\d,]+(?:\.\d+)?)"


@dataclass(frozen=True)
class Figure:
    label: str
    pattern: str  # its first group is the number; searched with re.DOTALL across the whole output
    higher_is_better: bool = False


@dataclass(frozen=True)
class Benchmark:
    """A command in a checkout ({database} and {server} filled per side); stage "floor" or "server" runs
    it through bench/interleave_stage.py (a seeded database; a served stack, {url} its address)."""

    command: str  # split as a shell would
    figures: tuple[Figure, ...]
    stage: str = ""
    leaves: str = ""  # the database the command leaves behind ({database} filled), dropped after it


def _ms(label: str, text: str) -> Figure:
    return Figure(f"{label} (ms)", re.escape(text) + r":\s+" + NUMBER + " ms")


def _best(label: str, text: str) -> Figure:
    return Figure(f"{label} (ms)", re.escape(text) + r"\s+" + NUMBER + r" ms \(best of")


def _flood(scenario: str) -> Figure:
    return Figure(f"{scenario} peak RSS (MiB)", re.escape(scenario) + r":.*?peak " + NUMBER + " MiB")


def _rate(label: str, text: str) -> Figure:
    return Figure(f"{label} (events/s)", re.escape(text) + r" worker\(s\): median " + NUMBER, True)


# The documented commands (docs/benchmarks.md, docs/hardening.md), shortened for a comparison run.
_INGEST = "bench/ingest.py --workers 2 --clients 4 --connections 24 --seconds 10 --copy-rows 100000"
_INGEST_FIGURES = (
    Figure("accepted (events/s)", r"accepted: " + NUMBER + " events/s", True),
    Figure("latency p99 (ms)", r"latency: p50 [\d.]+ ms, p99 " + NUMBER + " ms"),
    Figure("server peak (MiB)", r"server peak memory: " + NUMBER + " MiB"),
    Figure("API server CPU per event (µs)", r"CPU per event: API server " + NUMBER + " µs"),
    Figure("PostgreSQL CPU per event (µs)", r"CPU per event: .*?PostgreSQL " + NUMBER + " µs"),
    Figure("share of the COPY bound (%)", r"API's share of the anchor \(.*?\): " + NUMBER + "%", True),
)
BENCHMARKS: dict[str, Benchmark] = {
    "ingest": Benchmark(_INGEST, _INGEST_FIGURES),
    # A gateway's batches (one game on each of 50 machines): the events API's general path.
    "ingest_gateway": Benchmark(_INGEST + " --gateway", _INGEST_FIGURES),
    # One game a request, as a machine posting each game as it ends: what a request costs beyond its events.
    "ingest_single": Benchmark(_INGEST + " --batch 1", _INGEST_FIGURES),
    "contributions": Benchmark(
        "bench/contributions.py --events 100000 --repeat 3 --workers 1 2",
        (
            _rate("one level, 1 worker", "one linked level, 500 machines, 1"),
            _rate("one level, 2 workers", "one linked level, 500 machines, 2"),
            _rate("Grease, 1 worker", "5 Grease levels at once, 500 machines, 1"),
            _rate("Grease, 2 workers", "5 Grease levels at once, 500 machines, 2"),
        ),
    ),
    "signage": Benchmark(
        "bench/signage.py --clients 1000 --seconds 20",
        (
            # A run where screens failed to connect measures fewer screens: the count is a figure too.
            Figure("screens connected", r"screens \(" + NUMBER + " connected", True),
            Figure("latency p50, POST sent -> frame (ms)", r"sent -> update frame: p50 " + NUMBER + " ms"),
            Figure(
                "latency p99, POST sent -> frame (ms)", r"sent -> update frame: p50 \d+ ms, p99 " + NUMBER
            ),
            Figure(
                "the post p50, sent -> response (ms)", r"sent -> response \(the post\): p50 " + NUMBER + " ms"
            ),
            Figure(
                "the post p99, sent -> response (ms)",
                r"sent -> response \(the post\): p50 \d+ ms, p99 " + NUMBER,
            ),
            Figure("fan-out p99, publish -> frame (ms)", r"publish -> update frame.*?p99 " + SIGNED + " ms"),
            Figure("frames dropped", r"dropped " + NUMBER + r" \(gaps"),
            Figure("server CPU per frame (µs)", NUMBER + " us per frame"),
            Figure("server memory (MiB)", r"server memory " + NUMBER + " MiB"),
            Figure(
                "servers' longest collection (ms)", r"collection, servers: \d+ collections, longest " + NUMBER
            ),
            Figure(
                "servers' longest full collection (ms)", r"collection, servers: .*?full, longest " + NUMBER
            ),
            Figure(
                "worker's longest collection (ms)", r"collection, worker: \d+ collections, longest " + NUMBER
            ),
        ),
    ),
    "flood": Benchmark(
        "bench/flood.py --connections 200 --seconds 10",
        tuple(_flood(s) for s in ("events-invalid-key", "rounds-invalid-key", "rounds-chunked-over-limit")),
    ),
    "gateway_connect": Benchmark(
        "-m bench.gateway_connect --count 20",
        (
            Figure("wall p50 (ms)", r"wall p50 " + NUMBER + " ms"),
            Figure("wall p90 (ms)", r"p90 " + NUMBER + " ms"),
            Figure("CPU per connection (ms)", r"CPU " + NUMBER + " ms each"),
        ),
        stage="floor",
    ),
    "tables": Benchmark(
        "bench/tables.py --rounds 200",
        (
            Figure("five-card hands/s", r"five-card hands: [\d,]+ in [\d.]+ s = " + NUMBER + "/s", True),
            Figure("seven-card hands/s", r"seven-card hands \(.*?\): " + NUMBER + "/s", True),
            # Its rounds/s are whole numbers (12/s under load): the time of one round reads finer.
            Figure(
                "Caribbean Stud round (ms)",
                r"caribbean_stud rounds of 7 seats on \w+: .*?\(" + NUMBER + " ms each",
            ),
            Figure(
                "Casino Hold'em round (ms)",
                r"casino_holdem rounds of 7 seats on \w+: .*?\(" + NUMBER + " ms each",
            ),
        ),
    ),
    "level_page": Benchmark(
        "bench/level_page.py --server {server} --database {database}_desk",
        (
            _ms("write the ledger", "ledger rows"),
            _ms("level_series", "sum the rows per pixel (level_series)"),
            _ms("draw the chart", "draw the chart"),
            _ms("level page", "level page"),
            _ms("progressives page", "progressives page"),
        ),
        leaves="{database}_desk",
    ),
    "healthz": Benchmark(
        "bench/healthz.py {url} --requests 100",
        (
            Figure("median (ms)", r"median " + NUMBER + " ms"),
            Figure("p95 (ms)", r"p95 " + NUMBER + " ms"),
        ),
        stage="server",
    ),
    "reports": Benchmark(
        "bench/reports.py --server {server} --database {database}_reports --days 3 --contribution-minutes 5",
        (
            Figure("summary build (s)", r"summary build: [\d,]+ machine-hours in " + NUMBER + " s"),
            Figure("incremental refresh (ms)", r"incremental refresh after .*?rows: " + NUMBER + " ms"),
            *(
                _best(f"page: games per {group}", f"page: games per {group}, 3 days")
                for group in ("machine", "bank", "room", "day", "venue")
            ),
            _best("page: CSV", "page: games per machine as CSV"),
            _best("page: coin in by hour", "page: coin in by hour, one room, one day"),
            _best("page: venue overview", "page: venue overview"),
        ),
        leaves="{database}_reports",
    ),
}


@dataclass
class Run:
    side: str
    seconds: float
    load: float  # 1-minute load average as the run started
    status: int
    figures: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Side:
    name: str
    checkout: Path
    database_url: str
    redis_url: str


def _with_path(url: str, path: str) -> str:
    return urlparse(url)._replace(path=path).geturl()


def sides_make(args: argparse.Namespace) -> tuple[Side, Side]:
    database_url = os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/prog_interleave"
    redis_url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    base = urlparse(database_url).path.strip("/") or "prog_interleave"
    redis_dbs = args.redis_dbs or [urlparse(redis_url).path.strip("/") or "0"] * 2
    made = []
    for name, checkout, redis_db in zip(SIDES, (args.before, args.after), redis_dbs, strict=True):
        path = checkout.resolve()
        if not (path / ".venv" / "bin" / "python").exists():
            sys.exit(f"{path} has no .venv/bin/python")
        made.append(
            Side(
                name, path, _with_path(database_url, f"/{base}_{name}"), _with_path(redis_url, f"/{redis_db}")
            )
        )
    return made[0], made[1]


def command_line(benchmark: Benchmark, side: Side) -> list[str]:
    python = str(side.checkout / ".venv" / "bin" / "python")
    server = _with_path(side.database_url, "").rstrip("/")
    database = urlparse(side.database_url).path.strip("/")
    parts = [
        part.format(server=server, database=database, url="{url}") for part in shlex.split(benchmark.command)
    ]
    if benchmark.stage:
        return [python, str(STAGE), benchmark.stage, "--", python, *parts]
    return [python, *parts]


def figures_read(benchmark: Benchmark, output: str) -> dict[str, float]:
    found = {}
    for figure in benchmark.figures:
        match = re.search(figure.pattern, output, re.DOTALL)
        if match:
            found[figure.label] = float(match.group(1).replace(",", ""))
    return found


def bounded_run(command: list[str], cwd: Path, env: dict[str, str], timeout: float) -> tuple[int, str, str]:
    """The command in a process group of its own: out of time (or stopped by Ctrl-C), the whole group gets
    SIGTERM, on which the benchmarks stop their servers and drop their databases, then SIGKILL."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        output, errors = process.communicate(timeout=timeout)
        return process.returncode, output, errors
    except (subprocess.TimeoutExpired, KeyboardInterrupt) as stopped:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            output, errors = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, errors = process.communicate()
        if isinstance(stopped, KeyboardInterrupt):
            raise
        return -1, output, errors + f"\ntimed out ({timeout:.0f} s)"


def run_one(name: str, benchmark: Benchmark, side: Side, *, log_dir: Path, pair: int, timeout: float) -> Run:
    command = command_line(benchmark, side)
    env = {**os.environ, "DATABASE_URL": side.database_url, "REDIS_URL": side.redis_url}
    env["PYTHONPATH"] = str(side.checkout)
    env.pop("VIRTUAL_ENV", None)
    load, started = os.getloadavg()[0], time.monotonic()
    status, output, errors = bounded_run(command, side.checkout, env, timeout)
    seconds = time.monotonic() - started
    if benchmark.leaves:
        leftover = benchmark.leaves.format(database=urlparse(side.database_url).path.strip("/"))
        python = str(side.checkout / ".venv" / "bin" / "python")
        subprocess.run([python, "-c", DROP, _with_path(side.database_url, f"/{leftover}")], check=False)
    log = log_dir / f"{name}-{pair}-{side.name}.log"
    log.write_text(f"$ {shlex.join(command)}\n(cwd {side.checkout})\n\n{output}\n--- stderr\n{errors}")
    run = Run(side.name, seconds, load, status, figures_read(benchmark, output))
    missing = len(benchmark.figures) - len(run.figures)
    note = (
        f"exit {status}, see {log}"
        if status
        else (f"{missing} figure(s) not found, see {log}" if missing else "")
    )
    print(f"  pair {pair} {name} {side.name}: {seconds:.0f} s, load {load:.2f} {note}", file=sys.stderr)
    return run


def _number(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.1f}"


def _ratio(before: float | None, after: float | None) -> float | None:
    return after / before if before and after is not None else None


def table(name: str, benchmark: Benchmark, pairs: list[tuple[Run, Run]]) -> str:
    """The markdown of one benchmark: a row per figure and pair, then the figure's median ratio."""
    lines = [
        f"### {name}",
        "",
        f"`{benchmark.command}`" + (f" (stage: {benchmark.stage})" if benchmark.stage else ""),
        "",
        "| figure | pair | first | before | after | after / before | load before | load after |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for figure in benchmark.figures:
        ratios = []
        for number, (before, after) in enumerate(pairs, start=1):
            first = before.side if number % 2 else after.side
            ratio = _ratio(before.figures.get(figure.label), after.figures.get(figure.label))
            if ratio is not None:
                ratios.append(ratio)
            lines.append(
                f"| {figure.label} | {number} | {first} | {_number(before.figures.get(figure.label))} | "
                f"{_number(after.figures.get(figure.label))} | {'—' if ratio is None else f'{ratio:.3f}'} | "
                f"{before.load:.2f} | {after.load:.2f} |"
            )
        better = "higher is better" if figure.higher_is_better else "lower is better"
        median = f"**{statistics.median(ratios):.3f}**" if ratios else "—"
        lines.append(f"| {figure.label} | median ({better}) | | | | {median} | | |")
    seconds = sum(run.seconds for pair in pairs for run in pair)
    lines += ["", f"{len(pairs)} pair(s), {seconds:.0f} s of runs in all."]
    return "\n".join(lines)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"default: all ({', '.join(BENCHMARKS)})")
    parser.add_argument("--before", type=Path, required=True, help="checkout of the code before")
    parser.add_argument("--after", type=Path, required=True, help="checkout of the code after")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--redis-dbs", nargs=2, metavar=("BEFORE", "AFTER"), help="Redis db of each side")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds allowed to one run")
    parser.add_argument("--log-dir", type=Path, help="default: test-artifacts/interleave-<time>")
    parser.add_argument("--dry-run", action="store_true", help="print the command lines only")
    args = parser.parse_args()
    unknown = [name for name in args.names if name not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
    return args


def main() -> None:
    args = arguments()
    before, after = sides_make(args)
    names = args.names or list(BENCHMARKS)
    if args.dry_run:
        for name in names:
            for side in (before, after):
                line = shlex.join(command_line(BENCHMARKS[name], side))
                print(f"{name} {side.name}: (cd {side.checkout}; {line})")
        return
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S")
    log_dir = (
        args.log_dir or Path(__file__).resolve().parent.parent / "test-artifacts" / f"interleave-{stamp}"
    )
    log_dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, list[tuple[Run, Run]]] = {name: [] for name in names}
    for pair in range(1, args.pairs + 1):
        for name in names:
            order = (before, after) if pair % 2 else (after, before)
            runs = {
                side.name: run_one(
                    name, BENCHMARKS[name], side, log_dir=log_dir, pair=pair, timeout=args.timeout
                )
                for side in order
            }
            results[name].append((runs["before"], runs["after"]))
    print(f"## {before.checkout} (before) and {after.checkout} (after), {stamp}, logs in {log_dir}\n")
    for name in names:
        print(table(name, BENCHMARKS[name], results[name]) + "\n")


if __name__ == "__main__":
    main()
