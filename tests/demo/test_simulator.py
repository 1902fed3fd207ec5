"""The floor simulator: what it generates follows the floor's rules, and the real events API takes it."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest
from django.core.management import call_command
from django.utils import timezone

from demo.simulator import OCCUPANCY, FloorSimulator, floor_load, gateway_keys_issue
from slots.models import MachineEvent, MachineMeter, SlotMachine
from slots.services.vocabulary import METER_NAMES

pytestmark = pytest.mark.django_db


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def simulate(seconds: int, hour: int, seed: int = 7) -> tuple[FloorSimulator, list[dict]]:
    """Runs the model on a simulated clock, 0.25 s a step, keeping the events it would post."""
    clock = FakeClock()
    rng = random.Random(seed)
    simulator = FloorSimulator(
        url="http://unused", keys={}, machines=floor_load(rng), rng=rng, hour=hour, clock=clock
    )
    simulator.seats_fill()
    simulator.next_minute = clock.now + 60
    events: list[dict] = []
    last = clock.now
    for _ in range(seconds * 4):
        clock.now += 0.25
        if clock.now >= simulator.next_minute:
            simulator.seats_update()
            simulator.next_minute = clock.now + 60
        for machine in simulator.machines:
            simulator.machine_step(machine, clock.now, clock.now - last)
        last = clock.now
        for venue_events in simulator.outbox.values():
            events.extend(venue_events)
        simulator.outbox.clear()
    return simulator, events


def test_play_follows_the_machines_bets_pace_and_the_hour() -> None:
    call_command("seed_venezia", "--machines-per-room", "40")
    machines = {m.asset_number: m for m in SlotMachine.objects.all()}
    simulator, events = simulate(seconds=120, hour=21)

    games = [e for e in events if e["type"] == "game"]
    for game in games:
        machine = machines[game["machine"]]
        assert machine.min_bet_cents <= game["wager"] <= machine.max_bet_cents
        assert game["win"] >= 0
    # Seqs run on per machine without a gap; one game every 3 to 6 s per player: none plays faster.
    per_machine_seqs: dict[str, list[int]] = defaultdict(list)
    for event in events:
        per_machine_seqs[event["machine"]].append(event["seq"])
    for asset, seqs in per_machine_seqs.items():
        assert seqs == list(range(1, len(seqs) + 1)), asset
    game_counts = defaultdict(int)
    for game in games:
        game_counts[game["machine"]] += 1
    assert max(game_counts.values()) <= 120 // 3 + 1
    # Every machine reports its meters within the first 20 s, idle or not, so it stays online (the ones
    # on SAS are the gateway's).
    off_sas = {code for code, machine in machines.items() if machine.sas_address is None}
    assert {e["machine"] for e in events if e["type"] == "meters"} == off_sas
    # At 21:00 about 72% of the seats are taken (the table says 0.68 to 0.72 around then).
    playing = sum(1 for m in simulator.machines if m.bet) / len(simulator.machines)
    assert OCCUPANCY[21] - 0.1 <= playing <= OCCUPANCY[21] + 0.1


def games_count(events: list[dict]) -> int:
    return sum(1 for event in events if event["type"] == "game")


def test_the_small_hours_are_quiet() -> None:
    call_command("seed_venezia", "--machines-per-room", "40")
    _simulator, night = simulate(seconds=30, hour=5)
    _simulator, evening = simulate(seconds=30, hour=21)
    assert games_count(night) * 5 < games_count(evening)


@pytest.mark.django_db(transaction=True)
def test_posts_through_the_real_events_api(live_server) -> None:
    call_command("seed_venezia", "--machines-per-room", "12")
    rng = random.Random(3)
    simulator = FloorSimulator(
        url=live_server.url,
        keys=gateway_keys_issue(),
        machines=floor_load(rng),
        rng=rng,
        rate=10,
        hour=21,
    )
    lines: list[str] = []
    totals = simulator.run(3, lines.append)
    assert totals.games > 0
    assert (totals.errors, totals.rejected, totals.duplicates) == (0, 0, 0)
    assert totals.accepted == totals.posted == MachineEvent.objects.count()
    assert lines[-1].split()[0] in {"3s", "4s"}
    assert f"games {totals.games} " in lines[-1]


def test_machines_on_sas_are_left_to_the_gateway() -> None:
    """The demo's SAS banks are played by emulated machines through the gateway: posting for them too
    would give their seqs twice (the gateway's events refused as conflicts)."""
    call_command("seed_venezia")
    on_sas = set(SlotMachine.objects.filter(sas_address__isnull=False).values_list("id", flat=True))
    assert len(on_sas) == 9  # Diamond Vault 4, Grease 3, two Venezia Mystery
    loaded = {machine.id for machine in floor_load(random.Random(1))}
    assert loaded & on_sas == set()
    assert len(loaded) == SlotMachine.objects.exclude(status=SlotMachine.Status.OUT_OF_SERVICE).count() - 9


def test_meters_are_the_sums_of_the_games_posted_from_zero_on_a_new_floor() -> None:
    call_command("seed_venezia", "--machines-per-room", "6")
    _simulator, events = simulate(seconds=90, hour=21)

    played: dict[str, dict[str, int]] = defaultdict(lambda: {"coin_in": 0, "coin_out": 0, "games_played": 0})
    snapshots = 0
    for event in events:
        sums = played[event["machine"]]
        if event["type"] == "game":
            sums["coin_in"] += event["wager"]
            sums["coin_out"] += event["win"]
            sums["games_played"] += 1
        elif event["type"] == "meters":
            snapshots += 1
            # Every snapshot, exactly the games the machine posted before it; nothing else moves.
            assert event["meters"] == {**dict.fromkeys(METER_NAMES, 0), **sums}, event["machine"]
    assert snapshots > len(SlotMachine.objects.all())  # each machine reported, most more than once
    assert sum(s["games_played"] for s in played.values()) == games_count(events) > 0


def test_meters_carry_on_from_the_machines_last_snapshot() -> None:
    call_command("seed_venezia", "--machines-per-room", "6")
    # Two machines the simulator plays (those on SAS are played through the gateway).
    machine, other = SlotMachine.objects.filter(sas_address__isnull=True).order_by("asset_number")[:2]
    at = timezone.now()
    for name, value in {"coin_in": 512_000, "coin_out": 471_350, "games_played": 1_024}.items():
        MachineMeter.objects.create(machine=machine, name=name, value=value, seq=9, at=at)

    machines = {m.asset: m for m in floor_load(random.Random(1))}

    assert machines[machine.asset_number].meters == {
        **dict.fromkeys(METER_NAMES, 0),
        "coin_in": 512_000,
        "coin_out": 471_350,
        "games_played": 1_024,
    }
    assert machines[other.asset_number].meters == dict.fromkeys(METER_NAMES, 0)
