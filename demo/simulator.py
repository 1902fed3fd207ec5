"""A live floor for demos and load: players come and go by the hour, play through the real events API.

Everything goes through ``POST /api/v1/events`` with one gateway key per venue, as a site controller
polling its machines would. The floor is read from the database once at start (machines, their bets,
the levels they can trigger, the last meters and seqs); from then on the simulator only speaks HTTP.

The model, per machine: a player sits down or gets up once a simulated minute, so that the share of
occupied machines follows the hour of the day (OCCUPANCY); a seated player picks a bet within the
machine's min and max (a third play max bet) and plays one game every 3 to 6 s; wins return about 90%;
every machine reports its meters every ~20 s, idle or not (it keeps the machine online, as SAS polling
does), and they are the sums of the games it played: coin in the wagers, coin out the wins, games played
their count, carried on from the machine's last stored snapshot (zero on a new floor), never invented;
a door opens or a tilt happens now and then; a machine-triggered level is hit with a probability that
makes it pay out, on average, when it has grown by about half its reset value.
With ``tables`` (demo.simulator_tables) the same loop plays the table games' rounds.
"""

from __future__ import annotations

import http.client
import json
import random
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from urllib.parse import urlparse
from zoneinfo import ZoneInfo

from django.db.models import Max

from common.credentials import credential_issue
from floor.models import Venue
from jackpots.models import Level
from slots.models import GatewayKey, MachineEvent, MachineMeter, SlotMachine
from slots.services.vocabulary import METER_NAMES

# Share of machines with a player, by local hour (Ca' Noghera opens late morning, peaks at night).
OCCUPANCY = (0.55, 0.45, 0.30, 0.12, 0.03, 0.02, 0.02, 0.02, 0.02, 0.03, 0.06, 0.12,
             0.18, 0.22, 0.25, 0.28, 0.32, 0.38, 0.45, 0.52, 0.60, 0.68, 0.72, 0.65)  # fmt: skip
SESSION_MINUTES = 30  # average time a player stays
METERS_EVERY_SECONDS = 20
FLUSH_EVERY_SECONDS = 0.25
DOOR_PER_HOUR = 0.15  # per machine
TILT_PER_HOUR = 0.05


@dataclass
class TriggerLevel:
    id: int
    min_wager_cents: int
    max_bet_only: bool
    hit_wager_cents: int  # wager that, on average, makes it hit: half a reset value of growth


@dataclass
class Machine:
    id: int
    asset: str
    venue: str
    denomination: int
    min_bet: int
    max_bet: int
    seq: int
    meters: dict[str, int]
    levels: list[TriggerLevel] = field(default_factory=list)
    bet: int = 0  # 0: nobody is playing
    next_game: float = 0.0
    next_meters: float = 0.0
    door_closes_at: float | None = None


@dataclass
class Totals:
    games: int = 0
    posted: int = 0
    accepted: int = 0
    duplicates: int = 0
    rejected: int = 0
    hits: int = 0
    errors: int = 0
    requests: int = 0


def floor_load(rng: random.Random) -> list[Machine]:
    last_seq = dict(
        MachineEvent.objects.values("machine").annotate(top=Max("seq")).values_list("machine", "top")
    )
    meters: dict[int, dict[str, int]] = defaultdict(dict)
    for machine_id, name, value in MachineMeter.objects.values_list("machine_id", "name", "value"):
        meters[machine_id][name] = value
    triggers: dict[int, list[TriggerLevel]] = defaultdict(list)
    playing = Level.objects.filter(mystery=False, state=Level.State.ACTIVE)
    for level in playing.prefetch_related("progressive__members"):
        growth_mc = max(level.reset_mc // 2, 100_000)
        rate = level.rate if level.rate > 0 else Decimal("0.01")
        hit_wager = int(Decimal(growth_mc) / (rate * 1000))
        trigger = TriggerLevel(level.id, level.min_wager_cents, level.max_bet_only, max(hit_wager, 1))
        for member in level.progressive.members.all():
            if member.enabled:
                triggers[member.machine_id].append(trigger)
    machines = []
    # Machines on SAS are played by the emulated machines behind the gateway (scripts/demo-gateway).
    playable = SlotMachine.objects.exclude(status=SlotMachine.Status.OUT_OF_SERVICE).filter(
        sas_address__isnull=True
    )
    for row in playable.select_related("room__venue"):
        # The last snapshot's values, so the counters run on without a drop the server would take for a
        # memory reset; a machine never reported starts at zero (a random coin in with no coin out made
        # the floor's payback absurd).
        start = {name: meters[row.id].get(name, 0) for name in sorted(METER_NAMES)}
        machines.append(
            Machine(
                id=row.id,
                asset=row.asset_number,
                venue=row.room.venue.code,
                denomination=row.denomination_cents,
                min_bet=row.min_bet_cents,
                max_bet=row.max_bet_cents,
                seq=last_seq.get(row.id, 0),
                meters=start,
                levels=triggers[row.id],
            )
        )
    return machines


def gateway_keys_issue() -> dict[str, str]:
    """One new gateway key per venue, for this run."""
    return {
        venue.code: credential_issue(GatewayKey, kind="gw", venue=venue)[1] for venue in Venue.objects.all()
    }


class FloorSimulator:
    def __init__(
        self,
        *,
        url: str,
        keys: dict[str, str],
        machines: list[Machine],
        rng: random.Random,
        rate: float = 1.0,
        hour: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        tables=None,
    ) -> None:
        self.url = urlparse(url.rstrip("/"))
        self.keys = keys
        self.machines = machines
        self.rng = rng
        self.rate = rate
        self.hour = hour
        self.clock = clock
        self.totals = Totals()
        self.outbox: dict[str, list[dict]] = defaultdict(list)
        self.connections: dict[str, http.client.HTTPConnection] = {}
        self.next_minute = 0.0
        self.tables = tables  # a demo.simulator_tables.TableSimulator, or None

    # --- the floor -----------------------------------------------------------------------------------

    def occupancy(self) -> float:
        hour = self.hour if self.hour is not None else datetime.now(ZoneInfo("Europe/Rome")).hour
        return OCCUPANCY[hour]

    def bet_choose(self, machine: Machine) -> int:
        if self.rng.random() < 1 / 3:
            return machine.max_bet
        steps = max(0, (machine.max_bet - machine.min_bet) // machine.denomination)
        return machine.min_bet + machine.denomination * self.rng.randint(0, steps)

    def seats_fill(self) -> None:
        """At start the floor already has the hour's players, and the machines' meter reports spread over
        the first METERS_EVERY_SECONDS (all at once, 450 snapshots made one request that held the server's
        meter transaction for seconds, and every report after it came in step)."""
        target = self.occupancy()
        now = self.clock()
        for machine in self.machines:
            machine.next_meters = now + self.rng.uniform(0, METERS_EVERY_SECONDS)
            if self.rng.random() < target:
                machine.bet = self.bet_choose(machine)
                machine.next_game = now + self.rng.uniform(0, 6) / self.rate

    def seats_update(self) -> None:
        """Once a simulated minute: players leave after SESSION_MINUTES on average, and arrive so that the
        occupied share tends to the hour's occupancy."""
        target = self.occupancy()
        leave = 1 / SESSION_MINUTES
        arrive = min(1.0, leave * target / max(1e-6, 1 - target))
        now = self.clock()
        for machine in self.machines:
            if machine.bet and self.rng.random() < leave:
                machine.bet = 0
            elif not machine.bet and machine.door_closes_at is None and self.rng.random() < arrive:
                machine.bet = self.bet_choose(machine)
                machine.next_game = now + self.rng.uniform(3, 6) / self.rate

    def event(self, machine: Machine, kind: str, **fields) -> None:
        machine.seq += 1
        at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        self.outbox[machine.venue].append(
            {"machine": machine.asset, "seq": machine.seq, "at": at, "type": kind, **fields}
        )

    def win_draw(self, wager: int) -> int:
        """About 90% back over time: most games lose, some pay a little, a few pay a lot."""
        roll = self.rng.random()
        if roll < 0.004:
            return wager * self.rng.randint(10, 100)
        if roll < 0.054:
            return wager * self.rng.randint(2, 12)
        if roll < 0.274:
            return wager * self.rng.randint(50, 250) // 100
        return 0

    def game_play(self, machine: Machine, now: float) -> None:
        wager = machine.bet
        win = self.win_draw(wager)
        self.event(machine, "game", wager=wager, win=win)
        machine.meters["coin_in"] += wager
        machine.meters["coin_out"] += win
        machine.meters["games_played"] += 1
        self.totals.games += 1
        for level in machine.levels:
            eligible = wager >= level.min_wager_cents and (not level.max_bet_only or wager == machine.max_bet)
            if eligible and self.rng.random() < wager / level.hit_wager_cents:
                amount = Level.objects.filter(id=level.id).values_list("current_mc", flat=True).first() or 0
                self.event(machine, "jackpot", level=level.id, amount=amount // 1000)
                self.totals.hits += 1
        machine.next_game = now + self.rng.uniform(3, 6) / self.rate

    def machine_step(self, machine: Machine, now: float, dt: float) -> None:
        if machine.door_closes_at is not None and now >= machine.door_closes_at:
            machine.door_closes_at = None
            self.event(machine, "status", status="door_closed")
        if machine.bet and machine.door_closes_at is None and now >= machine.next_game:
            self.game_play(machine, now)
        hours = dt * self.rate / 3600
        if machine.door_closes_at is None and self.rng.random() < DOOR_PER_HOUR * hours:
            machine.door_closes_at = now + self.rng.uniform(20, 90) / self.rate
            self.event(machine, "status", status="door_open")
        elif self.rng.random() < TILT_PER_HOUR * hours:
            self.event(machine, "status", status="tilt")
        if now >= machine.next_meters:
            self.event(machine, "meters", meters=dict(machine.meters))
            machine.next_meters = now + METERS_EVERY_SECONDS

    # --- the wire ------------------------------------------------------------------------------------

    def connection(self, venue: str) -> http.client.HTTPConnection:
        if venue not in self.connections:
            factory = (
                http.client.HTTPSConnection if self.url.scheme == "https" else http.client.HTTPConnection
            )
            self.connections[venue] = factory(self.url.hostname, self.url.port, timeout=30)
        return self.connections[venue]

    def flush(self) -> None:
        for venue, events in list(self.outbox.items()):
            if not events:
                continue
            self.outbox[venue] = []
            for start in range(0, len(events), 1000):
                self.post(venue, events[start : start + 1000])

    def post(self, venue: str, events: list[dict]) -> None:
        body = json.dumps({"events": events})
        headers = {"Authorization": f"Bearer {self.keys[venue]}", "Content-Type": "application/json"}
        self.totals.requests += 1
        self.totals.posted += len(events)
        for attempt in range(3):
            try:
                conn = self.connection(venue)
                conn.request("POST", f"{self.url.path}/api/v1/events", body=body, headers=headers)
                response = conn.getresponse()
                payload = response.read()
            except (OSError, http.client.HTTPException):
                self.connections.pop(venue, None)
                if attempt == 2:
                    self.totals.errors += 1
                    return
                time.sleep(0.5 * (attempt + 1))
                continue
            if response.status == 401:
                raise PermissionError(f"The events API refused the {venue} gateway key (401).")
            if response.status != 200:
                self.totals.errors += 1
                return
            answer = json.loads(payload)
            self.totals.accepted += answer["accepted"]
            self.totals.duplicates += answer["duplicates"]
            self.totals.rejected += len(answer["rejected"])
            return

    # --- the loop ------------------------------------------------------------------------------------

    def server_wait(self, timeout: float = 60) -> None:
        """The demo starts the simulator with the server: wait until it answers (a page, not /healthz,
        which is 503 and logged as an error until the worker's first heartbeat)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                conn = self.connection("health")
                conn.request("GET", f"{self.url.path}/admin/login/")
                conn.getresponse().read()
                return
            except (OSError, http.client.HTTPException):
                self.connections.pop("health", None)
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
            finally:
                self.connections.pop("health", None)

    def run(self, duration: float | None, progress: Callable[[str], None]) -> Totals:
        self.server_wait()
        started = last = self.clock()
        next_flush = next_progress = started
        self.seats_fill()
        if self.tables is not None:
            self.tables.schedule(started)
        self.next_minute = started + 60 / self.rate
        while duration is None or self.clock() - started < duration:
            now = self.clock()
            if now >= self.next_minute:
                self.seats_update()
                self.next_minute = now + 60 / self.rate
            for machine in self.machines:
                self.machine_step(machine, now, now - last)
            last = now
            if self.tables is not None:
                self.tables.step(now)
            if now >= next_flush:
                self.flush()
                next_flush = now + FLUSH_EVERY_SECONDS
            if now >= next_progress:
                progress(self.progress_line(now - started))
                next_progress = now + 1
            time.sleep(max(0.0, min(next_flush, next_progress) - self.clock()))
        self.flush()
        progress(self.progress_line(self.clock() - started))
        return self.totals

    def progress_line(self, elapsed: float) -> str:
        t = self.totals
        playing = sum(1 for machine in self.machines if machine.bet)
        speed = t.games / elapsed if elapsed > 0 else 0.0
        return (
            f"{elapsed:7.0f}s  players {playing}/{len(self.machines)}  games {t.games} ({speed:.1f}/s)  "
            f"events {t.accepted} accepted, {t.duplicates} dup, {t.rejected} rejected  "
            f"hits {t.hits}  errors {t.errors}"
        ) + (self.tables.progress_text() if self.tables is not None else "")
