"""One gateway process with N emulated SAS machines, each on its own line (a pty pair), against the real
stack (private PostgreSQL and Redis, uvicorn, Celery worker and beat):

    python -m bench.gateway [--machines 64] [--seconds 300] [--outage 0]

Prints polls per second per machine, the oldest broadcast any machine held (goal under 1 s, never 5 s),
exceptions 53, game-to-sign latency p50/p99 (from the game on the machine to the first server update, on
the websocket the signs' publish also feeds, whose Grand amount includes it: Grand grows exactly 10
millicents per cent wagered, so its amount says how much play it contains), events lost and CPU per
machine. `--outage S` (the soak run) stops uvicorn for S seconds half-way and SIGKILLs the gateway
while it forwards the backlog; events lost must stay 0.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import threading
import time
from pathlib import Path

from gateway.egm.machine import Egm, EgmConfig
from gateway.tests.conftest import PtyLine, wait_for
from tests.gateway_e2e.conftest import GatewayProcess, Running, real_stack, scratch_folder

GRAND_RESET_MC = 100_000_000
MC_PER_CENT_WAGERED = 10  # the floor's Grand: rate 0.01, no reserve


class TimedEgm(Egm):
    """Remembers when each game was played and counts the polls addressed to it."""

    def __init__(self, config: EgmConfig, now: float) -> None:
        self.played: list[tuple[float, int]] = []  # (monotonic, wager cents)
        self.polls = 0
        self.no_progressive = 0
        self.dropped = 0  # exceptions lost to a full queue (the machine then reports 70)
        super().__init__(config, now)

    def play(self, bet: int | None = None) -> bool:
        with self.lock:
            before = len(self.games)
            done = super().play(bet)
            if done and len(self.games) > before:
                self.played.append((time.monotonic(), self.games[-1][0] * self.config.denomination))
            return done

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


def updates_listener(url: str, key: str, level: int, seen: list[tuple[float, int]], stop: threading.Event):
    """(arrival, Grand cents) of every amount the server publishes, on its own gateway connection."""
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
                            seen.append((time.monotonic(), cents))
        except Exception:  # the server is being stopped by --outage: connect again
            stop.wait(0.5)


def sign_latencies(egms: list[TimedEgm], seen: list[tuple[float, int]], until: float) -> list[float]:
    """For each game, seconds until the first update whose Grand amount must include it."""
    games = sorted(g for egm in egms for g in egm.played if g[0] <= until)
    updates = [(t, (cents * 1000 - GRAND_RESET_MC) // MC_PER_CENT_WAGERED) for t, cents in seen]
    latencies, cumulative, u = [], 0, 0
    for at, wager in games:
        cumulative += wager
        while u < len(updates) and (updates[u][1] < cumulative or updates[u][0] < at):
            u += 1
        if u == len(updates):
            break
        latencies.append(updates[u][0] - at)
    return latencies


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=100)[int(p) - 1] if len(values) > 1 else float("nan")


def emulators(count: int, games_per_minute: float) -> list[TimedEgm]:
    machines = []
    for i in range(count):
        config = EgmConfig(
            address=1,
            denomination=50,
            group=1,
            levels=[1, 2],
            games_per_minute=games_per_minute,
            bet_mix=[(1, 3.0), (3, 2.0), (9, 1.0)],
            seed=i,
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
    wait_for(lambda: not any(e.queue for e in egms), 60, "the machines' exceptions")
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
    wall, oldest, latencies = measured["wall"], measured["oldest"], measured["latencies"]
    print(f"machines {len(egms)} on {len(egms)} lines, {wall:.0f} s, {sum(played.values())} games")
    print(f"polls per second per machine: {measured['polls'] / wall / len(egms):.2f}")
    print(
        f"oldest broadcast held: max {max(oldest):.2f} s, p99 {percentile(oldest, 99):.2f} s; "
        f"exceptions 53: {sum(e.no_progressive for e in egms)}"
    )
    print(
        f"game-to-sign latency: p50 {percentile(latencies, 50) * 1000:.0f} ms, "
        f"p99 {percentile(latencies, 99) * 1000:.0f} ms ({len(latencies)} games)"
    )
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
    """Plays for `args.seconds` while sampling the broadcasts and listening to the server's updates."""
    stop, seen, oldest = threading.Event(), [], []
    key, level = running.floor["key"], running.floor["levels"]["sas"]
    listener = threading.Thread(target=updates_listener, args=(running.stack.url, key, level, seen, stop))

    def sample() -> None:
        while not stop.wait(0.1):
            oldest.append(max(time.monotonic() - e.last_broadcast for e in egms))

    sampler = threading.Thread(target=sample)
    listener.start()
    sampler.start()
    start, cpu = time.monotonic(), -cpu_seconds(running.gateway.process.pid)
    polls = -sum(e.polls for e in egms)
    for egm in egms:
        egm.next_game = start + egm._game_gap()
        egm.no_progressive = 0
    if args.outage:
        time.sleep(args.seconds / 2)
        cpu += outage(running, args.outage)
        cpu -= cpu_seconds(running.gateway.process.pid)
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
    latencies = sign_latencies(egms, seen, end)
    return {"wall": end - start, "cpu": cpu, "polls": polls, "oldest": oldest, "latencies": latencies}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.gateway", description=__doc__)
    parser.add_argument("--machines", type=int, default=64)
    parser.add_argument("--seconds", type=int, default=300)
    parser.add_argument("--games-per-minute", type=float, default=20)
    parser.add_argument("--outage", type=int, default=0, help="seconds the server is stopped half-way")
    args = parser.parse_args()
    with real_stack(args.machines, per_line=1) as running:
        egms = emulators(args.machines, args.games_per_minute)
        devices = {}
        for i, egm in enumerate(egms):
            line = PtyLine([egm])
            line.thread.start()
            running.lines.append(line)
            devices[f"line-{i + 1}"] = line.device
        key = running.floor["key"]
        running.gateway = GatewayProcess(running.stack.url, key, devices, scratch_folder("bench-gateway-"))
        running.gateway.start()
        wait_for(lambda: all(e.rte and e.progressive_enabled for e in egms), 60, "sessions and broadcasts")
        report(running, egms, measure(running, egms, args))


if __name__ == "__main__":
    main()
