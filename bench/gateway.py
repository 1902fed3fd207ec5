"""One gateway process with N emulated SAS machines, each on its own line (a pty pair), against the real
stack (private PostgreSQL and Redis, uvicorn, Celery worker and beat):

    python -m bench.gateway [--machines 64] [--seconds 300] [--outage 0] [--games-per-minute 20]
                            [--spin 3] [--settle-ms 250] [--gateway-from DIR] [--per-line 1]
                            [--variant ours]

`--per-line N` puts N machines on each line (multi-drop, addresses 1-N); `--variant` is how the machines
read SAS where the standard leaves a choice (gateway/tests/helpers.py EGM_VARIANTS: "independent" sends
its events in place of long polls' answers and is silent to idle general polls). The display lag is the
broadcast delay below (goal p99 under 0.6 s with 4 machines a line).

Prints polls per second per machine; the oldest amount any machine displayed (goal under 1 s, never 5 s)
and the longest a machine went without a broadcast (the 5 s rule), exceptions 53; game-to-sign latency
p50/p99 (goal p99 under 1 s) and its stages; events lost and CPU per machine. `--outage S` (the soak run)
stops uvicorn for S seconds half-way and SIGKILLs the gateway while it forwards the backlog; events lost
must stay 0. `--gateway-from DIR` runs the gateway package found in DIR (e.g. an export of an older
commit), so two versions are compared on one machine, one run after the other.

The machines play as real ones do: 7E and the wager on coin in at the press, then `--spin` seconds later
(the reels' stop) the win on the meters and 7F; `--games-per-minute` is the mean rate from start to start
(at 20 a minute and a 3 s spin, back to back). `--spin 0` is the emulator's old instant game, 7E and 7F
raised together.

Game to sign: from the game's end on the machine (its 7F raised: the outcome exists from then) to the
first server update that includes it, on the gateway websocket the signs' publish also feeds: the first
carrying the Grand's value sequence that the batch applying the game wrote (its ledger entry), or a later
one. Printed also from the game's start (its 7E), spin included, for information. Its stages, per game,
from clocks of one host:
- poll: the 7F raised until a general poll's answer carries it (SAS hands out one exception per general
  poll, and the gateway polls a machine every 200 ms): half a turn on average, more behind exceptions
  still queued (with `--spin 0` the game's own 7E is one). Printed also for the games whose 7F found no
  other exception queued, and, for information, the press until the 7E was taken (while the reels spin);
- capture: until the event's `at` (the gateway stamps it when it decodes the 7F);
- forward: until the server's `received_at` (the gateway's store, its forwarder, the POST);
- engine: until the event's `applied_at` (ingest's commit, its notice to the worker, the worker picking it
  up, the settle window ENGINE_SETTLE_MILLISECONDS counted from `at`: production's 250 ms unless
  `--settle-ms` says otherwise);
- publish: until the update reaches the websocket (the batch's commit, the channel layer, the consumer).

Amount age (the "oldest broadcast held"): every 100 ms, for every machine, how long ago the server moved
away from the Grand amount the machine displays: 0 while it shows the server's current amount, else the
time since the server's first amount after the one shown. The server's amounts are taken when they reach
this process's own gateway websocket, i.e. when the gateway can know them. The broadcast delay is, for
every server amount and every machine, the time from its arrival here until the machine displays it or
a later one.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from gateway.egm.config import EgmConfig
from gateway.egm.machine import Egm
from gateway.tests.helpers import EGM_VARIANTS, PtyLine, wait_for
from tests.gateway_e2e.conftest import GatewayProcess, Running, real_stack, scratch_folder

GRAND_SAS_LEVEL = 1


class TimedEgm(Egm):
    """Remembers when each game started and ended and when the host took its 7E and 7F, and counts the
    polls addressed to it."""

    def __init__(self, config: EgmConfig, now: float) -> None:
        self.started: list[float] = []  # monotonic, each game's press (its 7E raised)
        self.played: list[tuple[float, int]] = []  # (monotonic, wager cents): each game's end (7F raised)
        self.polls = 0
        self.no_progressive = 0
        self.dropped = 0  # exceptions lost to a full queue (the machine then reports 70)
        self.taken: list[float] = []  # when a general poll's answer first carried each 7F
        self.taken_7e: list[float] = []  # ... and each 7E
        self.ahead: list[int] = []  # other games' exceptions still queued when each game's 7F was raised
        self.shown: list[tuple[float, int]] = []  # (monotonic, Grand cents) of every broadcast
        self.handed: object = None  # the exception the last general poll's answer carried
        super().__init__(config, now)

    def _general_poll(self, frame: bytes) -> bytes | None:
        reply = super()._general_poll(frame)
        report = self.unacked.report if self.unacked is not None else None
        if report is not None and report is not self.handed:  # a repeat after a final NACK: not again
            self.handed = report
            if report.code == 0x7F:
                self.taken.append(time.monotonic())
            elif report.code == 0x7E:
                self.taken_7e.append(time.monotonic())
        return reply

    def broadcast(self, group: int, levels: dict[int, int], now: float) -> None:
        super().broadcast(group, levels, now)
        if group == self.config.group and GRAND_SAS_LEVEL in levels:
            self.shown.append((now, levels[GRAND_SAS_LEVEL]))

    def play(self, bet: int | None = None) -> bool:
        with self.lock:
            pressed = time.monotonic()
            done = super().play(bet)
            if done and self.rte:
                self.started.append(pressed)
            return done

    def _end_game(self) -> None:
        # This game's own 7E, still queued, is the last entry (no game starts while one spins).
        own = 1 if self.queue and self.queue[-1].code == 0x7E else 0
        ahead = len(self.queue) - own
        super()._end_game()
        if self.rte:
            self.ahead.append(ahead)
            self.played.append((time.monotonic(), self.games[-1][0] * self.config.denomination))

    def answer(self, frame: bytes, now: float) -> bytes | None:
        if frame and frame[0] & 0x7F == self.address and frame[0] != 0:
            self.polls += 1
        return super().answer(frame, now)

    def raise_exception(self, code: int, data: bytes = b"") -> None:
        if code == 0x53:
            self.no_progressive += 1
        if len(self.queue) >= 20 and (code not in (0x7E, 0x7F) or self.rte):
            self.dropped += 1
        super().raise_exception(code, data)


def updates_listener(
    url: str, key: str, level: int, seen: list[tuple[float, int, int]], stop: threading.Event
):
    """(arrival, Grand cents, the level's value sequence) of every amount the server publishes, on its own
    gateway connection with a key of its own (``watch_key``): on the gateway's key it took the one live
    connection whenever the gateway was killed, and the restarted gateway was refused (4409)."""
    from websockets.sync.client import connect

    ws_url = url.replace("http://", "ws://") + f"/ws/gateway/?token={key}"
    while not stop.is_set():
        try:
            with connect(ws_url, open_timeout=5) as ws:
                while not stop.is_set():
                    try:
                        message = json.loads(ws.recv(timeout=0.5))
                    except TimeoutError:
                        continue
                    levels = message.get("levels", [])
                    for item in message.get("jackpots", []):
                        levels += item.get("levels", [])
                    for item in levels:
                        if item["id"] == level:
                            cents = round(float(item["amount_eur"]) * 100)
                            seen.append((time.monotonic(), cents, item.get("seq", -1)))
        except Exception:  # the server is being stopped by --outage: connect again
            stop.wait(0.5)


STAGES = ("poll", "capture", "forward", "engine", "publish")
# For information: the press to its 7E taken (the 7E's own poll stage, while the reels spin); and the poll
# stage of the games whose 7F found no other game's exception queued (the others wait a turn for each).
POLL_PARTS = ("poll 7E", "poll, nothing queued")
# From the game's start (its 7E raised, the press) to the sign: the spin plus game-to-sign.
FROM_START = "from the start (7E)"
# The engine stage past the settle window: from the later of the event's arrival and the end of its window
# to its batch (the worker's own delay: its notice, its turn, the batches before).
ENGINE_LATE = "engine past window"


def game_timings(
    running: Running, egms: list[TimedEgm], seen: list[tuple[float, int, int]], offset: float, settle: float
) -> tuple[list[float], dict[str, list[float]]]:
    """Game-to-sign latencies (from the game's end: its 7F raised), and the seconds each game spent in each
    stage (module docstring), and from its start.

    A game reaches the signs with the first update carrying the Grand's value sequence its batch wrote
    (the batch's ledger entry), or a later one. The server's timestamps are wall clock, moved to this
    process's monotonic clock by `offset` (one host, one clock). The games of a machine that lost one are
    left out: its events can no longer be told apart from its games by their order."""
    grand = running.floor["levels"]["sas"]
    rows = running.postgres.query(
        "SELECT m.asset_number, extract(epoch FROM e.at)::float8, extract(epoch FROM e.received_at)::float8, "
        "extract(epoch FROM e.applied_at)::float8, l.level_seq FROM slots_machineevent e "
        "JOIN slots_slotmachine m ON m.id = e.machine_id "
        "LEFT JOIN jackpots_contributionbatch b ON b.applied_at = e.applied_at "
        f"LEFT JOIN jackpots_ledgerentry l ON l.batch_id = b.id AND l.level_id = {grand} "
        "WHERE e.type = 1 ORDER BY m.asset_number, e.seq"
    )
    events: dict[str, list[tuple]] = {}
    for code, at, received, applied, level_seq in rows:
        events.setdefault(code, []).append((at - offset, received - offset, applied - offset, level_seq))
    seqs = [seq for _, _, seq in seen]
    latencies, stages = [], {name: [] for name in (*STAGES, *POLL_PARTS, ENGINE_LATE, FROM_START)}
    for code, egm in zip(running.floor["machines"]["sas"], egms, strict=True):
        if len(events.get(code, [])) != len(egm.played):  # a game lost: which event is which is unknown
            continue
        for (played, _), started, taken_7e, taken, ahead, (at, received, applied, level_seq) in zip(
            egm.played, egm.started, egm.taken_7e, egm.taken, egm.ahead, events.get(code, []), strict=False
        ):
            u = len(seen) if level_seq is None else bisect.bisect_left(seqs, level_seq)
            if u == len(seen):  # played after the last update heard (or not applied): not measured
                continue
            marks = (played, taken, at, received, applied, seen[u][0])
            latencies.append(marks[-1] - played)
            for name, begin, end in zip(STAGES, marks, marks[1:], strict=False):
                stages[name].append(end - begin)
            stages[ENGINE_LATE].append(applied - max(received, at + settle))
            stages["poll 7E"].append(taken_7e - started)
            if not ahead:
                stages["poll, nothing queued"].append(taken - played)
            stages[FROM_START].append(marks[-1] - started)
    return latencies, stages


def amount_ages(samples: list[tuple[float, list[int]]], seen: list[tuple[float, int, int]]) -> list[float]:
    """For each sample, the oldest amount any machine displayed: how long ago the server moved away from it
    (0 while a machine shows the server's current amount)."""
    times, amounts = [t for t, _, _ in seen], [c for _, c, _ in seen]
    where: dict[int, list[int]] = {}
    for i, cents in enumerate(amounts):
        where.setdefault(cents, []).append(i)
    ages = []
    for at, shown in samples:
        i = bisect.bisect_right(times, at) - 1
        if i < 0:
            continue
        oldest = 0.0
        for cents in set(shown) - {amounts[i]}:
            indices = where.get(cents, [])
            k = bisect.bisect_right(indices, i) - 1
            if k >= 0:  # else the machine shows an amount this process has not heard yet: not old
                oldest = max(oldest, at - times[indices[k] + 1])
        ages.append(oldest)
    return ages


def broadcast_delays(
    egms: list[TimedEgm], seen: list[tuple[float, int, int]], since: float, until: float
) -> list[float]:
    """For every server amount heard in [since, until] and every machine: seconds until the machine
    displayed it or a later one (the Grand only grows in this run)."""
    delays = []
    for egm in egms:
        shown = list(egm.shown)
        shown_cents = [cents for _, cents in shown]
        for at, cents, _ in seen:
            if since <= at <= until:
                k = bisect.bisect_left(shown_cents, cents)
                if k < len(shown):
                    delays.append(shown[k][0] - at)
    return delays


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float:
    return (
        statistics.quantiles(values, n=100, method="inclusive")[int(p) - 1]
        if len(values) > 1
        else float("nan")
    )


def spread(values: list[float]) -> str:
    if not values:
        return "no values"
    return (
        f"p50 {percentile(values, 50) * 1000:.0f} ms, p99 {percentile(values, 99) * 1000:.0f} ms, "
        f"max {max(values) * 1000:.0f} ms"
    )


def emulators(
    count: int, games_per_minute: float, spin: float, per_line: int = 1, variant: str = "ours"
) -> list[TimedEgm]:
    """Machines whose games take `spin` s from 7E to 7F (0: the 7F raised with the 7E), `per_line` a line
    (addresses 1 to per_line, as floor.py maps them), reading SAS as EGM_VARIANTS[variant] says."""
    machines = []
    for i in range(count):
        config = EgmConfig(
            address=1 + i % per_line,
            denomination=50,
            group=1,
            levels=[1, 2],
            games_per_minute=games_per_minute,
            bet_mix=[(1, 3.0), (3, 2.0), (9, 1.0)],
            spin=spin,
            seed=i,
            **EGM_VARIANTS[variant],
        )
        egm = TimedEgm(config, now=time.monotonic())
        egm.next_game = float("inf")  # no play before the gateway has the sessions
        machines.append(egm)
    return machines


def outage(running: Running, seconds: int) -> float:
    """The server stopped for `seconds`, then the gateway SIGKILLed while it forwards the backlog and
    started again. Returns the CPU seconds the killed process had used."""
    gateway, stack = running.gateway, running.stack
    stack.server_stop()
    time.sleep(seconds)
    backlog = gateway.backlog()
    stack.server_start()
    wait_for(lambda: gateway.backlog() < backlog, 30, "the gateway to forward")
    used = cpu_seconds(gateway.process.pid)
    gateway.kill()
    gateway.start()
    print(f"outage: {seconds} s, {backlog} events waited; gateway SIGKILLed mid-forward")
    return used


def drained(running: Running, egms: list[TimedEgm]) -> None:
    wait_for(lambda: not any(e.queue or e.spinning for e in egms), 60, "the machines' games and exceptions")
    time.sleep(1)  # the last one is taken off the queue just before the gateway keeps it
    wait_for(lambda: running.gateway.backlog() == 0, 120, "the backlog")
    pending = "SELECT count(*) FROM slots_machineevent WHERE pending"
    wait_for(lambda: running.postgres.query(pending) == [(0,)], 120, "the engine")


def report(running: Running, egms: list[TimedEgm], measured: dict) -> None:
    codes = running.floor["machines"]["sas"]
    stored = dict(
        running.postgres.query(
            "SELECT m.asset_number, count(*) FROM slots_machineevent e JOIN slots_slotmachine m "
            "ON m.id = e.machine_id WHERE e.type = 1 GROUP BY m.asset_number"
        )
    )
    played = {code: len(egm.played) for code, egm in zip(codes, egms, strict=True)}
    lost = sum(max(0, played[c] - stored.get(c, 0)) for c in codes)
    extra = sum(max(0, stored.get(c, 0) - played[c]) for c in codes)
    wall, latencies = measured["wall"], measured["latencies"]
    lines = len(running.lines)
    print(f"machines {len(egms)} on {lines} lines, {wall:.0f} s, {sum(played.values())} games")
    print(f"polls per second per machine: {measured['polls'] / wall / len(egms):.2f}")
    print(
        f"amount age (oldest broadcast held): {spread(measured['ages'])}; longest without a broadcast: "
        f"max {max(measured['gaps']):.2f} s; exceptions 53: {sum(e.no_progressive for e in egms)}"
    )
    print(f"display lag (broadcast delay), server amount to the displays: {spread(measured['delays'])}")
    stages = dict(measured["stages"])
    print(
        f"game-to-sign latency, from the game's end (7F): {spread(latencies)} ({len(latencies)} games; "
        "machines that lost one left out)"
    )
    print(f"  and from its start (7E), spin included: {spread(stages.pop(FROM_START))}")
    print("game-to-sign stages:")
    for name, values in stages.items():
        print(f"  {name:20} {spread(values)} ({len(values)} games)")
    print(f"events lost: {lost}; games counted twice: {extra}; rejected: {len(running.gateway.rejected())}")
    print(f"exceptions dropped by full machine queues: {sum(e.dropped for e in egms)}")
    short = {c: played[c] - stored.get(c, 0) for c in codes if played[c] != stored.get(c, 0)}
    if short:
        print(f"games missing per machine: {short}")
    cpu = measured["cpu"]
    per_machine = cpu / wall / len(egms) * 1000
    print(f"gateway CPU: {cpu / wall * 100:.1f} % of a core, {per_machine:.2f} ms/s per machine")
    print(f"load average: {os.getloadavg()}")


def measure(running: Running, egms: list[TimedEgm], args: argparse.Namespace) -> dict:
    """Plays for `args.seconds` while sampling the displays and listening to the server's updates."""
    stop, seen, samples, gaps = threading.Event(), [], [], []
    key, level = running.floor["watch_key"], running.floor["levels"]["sas"]
    listener = threading.Thread(target=updates_listener, args=(running.stack.url, key, level, seen, stop))

    def sample() -> None:
        while not stop.wait(0.1):
            now = time.monotonic()
            samples.append((now, [e.displayed[GRAND_SAS_LEVEL] for e in egms]))
            gaps.append(max(now - e.last_broadcast for e in egms))

    listener.start()
    sampler = threading.Thread(target=sample)
    sampler.start()
    offset = time.time() - time.monotonic()
    start, cpu = time.monotonic(), -cpu_seconds(running.gateway.process.pid)
    polls = -sum(e.polls for e in egms)
    for egm in egms:  # the first game of each at a random moment of its mean gap: no machine in step
        egm.next_game = start + egm.rng.uniform(0.0, 60.0 / args.games_per_minute)
        egm.no_progressive = 0
    if args.outage:
        time.sleep(args.seconds / 2)
        cpu += outage(running, args.outage)
        cpu -= cpu_seconds(running.gateway.process.pid)
    for kill in range(args.kills):  # SIGKILLs spread over the run, each while the machines play
        time.sleep(max(0.0, start + args.seconds * (kill + 1) / (args.kills + 1) - time.monotonic()))
        cpu += cpu_seconds(running.gateway.process.pid)
        running.gateway.kill()
        running.gateway.start()
        cpu -= cpu_seconds(running.gateway.process.pid)
    if args.kills:
        print(f"gateway SIGKILLed {args.kills} times while the machines played, started again each time")
    time.sleep(max(0.0, start + args.seconds - time.monotonic()))
    end = time.monotonic()
    cpu += cpu_seconds(running.gateway.process.pid)
    polls += sum(e.polls for e in egms)
    for egm in egms:
        with egm.lock:  # tick sets the next game under it: unlocked, a machine could play on
            egm.next_game = float("inf")
    drained(running, egms)
    time.sleep(1)  # the last updates reach the listener
    stop.set()
    sampler.join()
    listener.join()
    during = [(at, shown) for at, shown in samples if start <= at <= end]
    latencies, stages = game_timings(running, egms, seen, offset, args.settle_ms / 1000)
    return {
        "wall": end - start,
        "cpu": cpu,
        "polls": polls,
        "ages": amount_ages(during, seen),
        "gaps": [gap for (at, _), gap in zip(samples, gaps, strict=True) if start <= at <= end],
        "delays": broadcast_delays(egms, seen, start, end),
        "latencies": latencies,
        "stages": stages,
    }


class GatewayFrom(GatewayProcess):
    """The gateway package of another folder (an export of another commit), for a side-by-side run."""

    def __init__(self, folder: str, *args: object) -> None:
        self.source = folder
        super().__init__(*args)

    def start(self) -> GatewayProcess:
        log = open(self.log, "ab")  # noqa: SIM115 - closed with the process
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gateway", "--config", str(self.config)],
            cwd=self.source,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        return self


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.gateway", description=__doc__)
    parser.add_argument("--machines", type=int, default=64)
    parser.add_argument("--seconds", type=int, default=300)
    parser.add_argument("--games-per-minute", type=float, default=20)
    parser.add_argument(
        "--spin",
        type=float,
        default=3.0,
        help="seconds from a game's 7E to its 7F (0: both at once, the emulator's old instant games)",
    )
    parser.add_argument("--outage", type=int, default=0, help="seconds the server is stopped half-way")
    parser.add_argument("--kills", type=int, default=0, help="gateway SIGKILLs spread over the run")
    parser.add_argument(
        "--settle-ms", type=int, default=250, help="the engine's settle window (production's)"
    )
    parser.add_argument("--gateway-from", default="", help="a folder holding the gateway package to run")
    parser.add_argument("--per-line", type=int, default=1, help="machines a line (multi-drop)")
    parser.add_argument(
        "--variant", default="ours", choices=list(EGM_VARIANTS), help="the machines' SAS reading"
    )
    args = parser.parse_args()
    os.environ["ENGINE_SETTLE_MILLISECONDS"] = str(args.settle_ms)  # the tests' default is 0
    with real_stack(args.machines, per_line=args.per_line) as running:
        egms = emulators(args.machines, args.games_per_minute, args.spin, args.per_line, args.variant)
        devices = {}
        for first in range(0, len(egms), args.per_line):
            line = PtyLine(egms[first : first + args.per_line])
            line.thread.start()
            running.lines.append(line)
            devices[f"line-{1 + first // args.per_line}"] = line.device
        key = running.floor["key"]
        folder = scratch_folder("bench-gateway-")
        if args.gateway_from:
            running.gateway = GatewayFrom(args.gateway_from, running.stack.url, key, devices, folder)
        else:
            running.gateway = GatewayProcess(running.stack.url, key, devices, folder)
        print(
            f"gateway from {args.gateway_from or 'this checkout'}; settle window {args.settle_ms} ms; "
            f"{args.games_per_minute:g} games a minute a machine, each spinning {args.spin:g} s (7E to 7F); "
            f"{args.per_line} a line, variant {args.variant} {EGM_VARIANTS[args.variant]}"
        )
        running.gateway.start()
        wait_for(lambda: all(e.rte and e.progressive_enabled for e in egms), 60, "sessions and broadcasts")
        report(running, egms, measure(running, egms, args))


if __name__ == "__main__":
    main()
