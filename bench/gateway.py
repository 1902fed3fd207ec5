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
import tempfile
import threading
import time
from pathlib import Path

from gateway.egm.machine import Egm, EgmConfig
from gateway.tests.conftest import PtyLine
from tests.gateway_e2e.conftest import GatewayProcess, wait_until
from tests.slots.fault_stack import FaultStack, PrivatePostgres, PrivateRedis, manage

GRAND_RESET_MC = 100_000_000
MC_PER_CENT_WAGERED = 10  # the floor's Grand: rate 0.01, no reserve


class TimedEgm(Egm):
    """Remembers when each game was played and counts the polls addressed to it."""

    def __init__(self, config: EgmConfig, now: float) -> None:
        self.played: list[tuple[float, int]] = []  # (monotonic, wager cents)
        self.polls = 0
        self.no_progressive = 0
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


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.gateway", description=__doc__)
    parser.add_argument("--machines", type=int, default=64)
    parser.add_argument("--seconds", type=int, default=300)
    parser.add_argument("--games-per-minute", type=float, default=20)
    parser.add_argument("--outage", type=int, default=0, help="seconds the server is stopped half-way")
    args = parser.parse_args()

    postgres, redis = PrivatePostgres().start(), PrivateRedis().start()
    stack, lines, gateway = None, [], None
    stop = threading.Event()
    try:
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.test_settings", "DATABASE_URL": postgres.url}
        env |= {"REDIS_URL": redis.url, "CELERY_TASK_ALWAYS_EAGER": "0"}
        manage(env, "manage.py", "migrate", "--no-input", "-v0")
        floor = json.loads(manage(env, "-m", "tests.gateway_e2e.floor", str(args.machines), "1"))
        stack = FaultStack(postgres.url, redis.url, extra_env={"DATABASE_POOL_SIZE": "4"}).start()
        codes = floor["machines"]["sas"]
        egms = [
            TimedEgm(
                EgmConfig(
                    address=1,
                    denomination=50,
                    group=1,
                    levels=[1, 2],
                    games_per_minute=args.games_per_minute,
                    bet_mix=[(1, 3.0), (3, 2.0), (9, 1.0)],
                    seed=i,
                ),
                now=time.monotonic(),
            )
            for i in range(len(codes))
        ]
        for egm in egms:
            egm.next_game = float("inf")  # no play before the gateway has the sessions
        by_line = {}
        for i, egm in enumerate(egms):
            line = PtyLine([egm])
            line.thread.start()
            lines.append(line)
            by_line[f"line-{i + 1}"] = line.device
        folder = Path(tempfile.mkdtemp(prefix="bench-gateway-", dir="/dev/shm"))
        gateway = GatewayProcess(stack.url, floor["key"], by_line, folder).start()
        wait_until(lambda: all(e.rte and e.progressive_enabled for e in egms), 60, "sessions and broadcasts")

        seen: list[tuple[float, int]] = []
        listener = threading.Thread(
            target=updates_listener, args=(stack.url, floor["key"], floor["levels"]["sas"], seen, stop)
        )
        listener.start()
        oldest: list[float] = []

        def sample() -> None:
            while not stop.wait(0.1):
                now = time.monotonic()
                oldest.append(max(now - e.last_broadcast for e in egms))

        sampler = threading.Thread(target=sample)
        sampler.start()
        start, cpu_start = time.monotonic(), cpu_seconds(gateway.process.pid)
        polls_start = sum(e.polls for e in egms)
        for egm in egms:
            egm.next_game = start + egm._game_gap()
            egm.no_progressive = 0
        cpu_before_kill = 0.0
        if args.outage:
            time.sleep(args.seconds / 2)
            stack.server_stop()
            time.sleep(args.outage)
            backlog = gateway.backlog()
            stack.server_start()
            wait_until(lambda: gateway.backlog() < backlog, 30, "the gateway to forward")
            cpu_before_kill = cpu_seconds(gateway.process.pid) - cpu_start
            gateway.kill()
            gateway.start()
            cpu_start = cpu_seconds(gateway.process.pid)
            print(f"outage: {args.outage} s, {backlog} events waited; gateway SIGKILLed mid-forward")
        time.sleep(max(0.0, start + args.seconds - time.monotonic()))
        end = time.monotonic()
        cpu = cpu_before_kill + cpu_seconds(gateway.process.pid) - cpu_start
        polls = sum(e.polls for e in egms) - polls_start
        for egm in egms:
            egm.next_game = float("inf")
        time.sleep(3)  # the last exceptions reach the gateway
        wait_until(lambda: gateway.backlog() == 0, 120, "the backlog")
        wait_until(
            lambda: postgres.query("SELECT count(*) FROM slots_machineevent WHERE pending") == [(0,)],
            120,
            "the engine",
        )
        time.sleep(1)
        stop.set()
        sampler.join()
        listener.join()

        stored = dict(
            postgres.query(
                "SELECT m.asset_number, count(*) FROM slots_machineevent e JOIN slots_slotmachine m "
                "ON m.id = e.machine_id WHERE e.type = 1 GROUP BY m.asset_number"
            )
        )
        played = {code: len(egm.played) for code, egm in zip(codes, egms, strict=True)}
        lost = sum(max(0, played[c] - stored.get(c, 0)) for c in codes)
        extra = sum(max(0, stored.get(c, 0) - played[c]) for c in codes)
        latencies = sign_latencies(egms, seen, end)
        wall = end - start
        print(f"machines {len(egms)} on {len(egms)} lines, {wall:.0f} s, {sum(played.values())} games")
        print(f"polls per second per machine: {polls / wall / len(egms):.2f}")
        print(
            f"oldest broadcast held: max {max(oldest):.2f} s, p99 {percentile(oldest, 99):.2f} s; "
            f"exceptions 53: {sum(e.no_progressive for e in egms)}"
        )
        print(
            f"game-to-sign latency: p50 {percentile(latencies, 50) * 1000:.0f} ms, "
            f"p99 {percentile(latencies, 99) * 1000:.0f} ms ({len(latencies)} games)"
        )
        print(f"events lost: {lost}; games counted twice: {extra}; rejected: {len(gateway.rejected())}")
        per_machine = cpu / wall / len(egms) * 1000
        print(f"gateway CPU: {cpu / wall * 100:.1f} % of a core, {per_machine:.2f} ms/s per machine")
        print(f"load average: {os.getloadavg()}")
    finally:
        stop.set()
        if gateway is not None:
            gateway.stop()
        for line in lines:
            line.close()
        if stack is not None:
            stack.stop()
        redis.stop()
        postgres.stop()


if __name__ == "__main__":
    main()
