"""The signage benchmark's figures (bench/signage.py): what a client saw, each probe's times, and the
latencies, fan-out and report computed from them."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Client:
    screen: str
    frames: int = 0
    last_n: int = 0
    gaps: int = 0
    seq: int = -1
    # (receive time, Super Spin seq) of each update frame that moved it.
    updates: list[tuple[float, int]] = field(default_factory=list)


@dataclass
class Probe:
    sent: float
    answered: float


def latencies(clients: list[Client], probes: list[Probe]) -> tuple[list[float], list[float], int]:
    """Per client and probe: the first Super Spin update received after the POST was sent whose seq is
    newer than what the client had then. Returns its time (ms) from the POST's sending (end to end: the
    post's own handling, the engine, the signs), from the POST's response (the earlier figure:
    a saturated server can answer after the engine published, which makes it negative and shortens it by
    however late the answer came), and the probes without a frame."""
    from_sent, from_answer, misses = [], [], 0
    for client in clients:
        updates = client.updates
        for probe in probes:
            before = [seq for at, seq in updates if at < probe.sent]
            seen = before[-1] if before else -1
            after = next(((at, seq) for at, seq in updates if at >= probe.sent and seq > seen), None)
            if after is None:
                misses += 1
            else:
                from_sent.append((after[0] - probe.sent) * 1000)
                from_answer.append((after[0] - probe.answered) * 1000)
    return from_sent, from_answer, misses


def fan_out(clients: list[Client], published: list[tuple[float, int]]) -> list[float]:
    """Per update frame: when a screen received it minus when this process heard the engine publish its
    seq on Redis (ms): the signs' part alone, whatever the post and the engine took."""
    first: dict[int, float] = {}
    for at, seq in published:
        first.setdefault(seq, at)
    return [(at - first[seq]) * 1000 for client in clients for at, seq in client.updates if seq in first]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _spread(values: list[float]) -> str:
    return (
        f"p50 {statistics.median(values):.0f} ms, p99 {percentile(values, 0.99):.0f} ms, "
        f"max {max(values):.0f} ms"
    )


@dataclass(frozen=True)
class Collection:
    """One garbage collection of a process of the stack, as bench/gc_probe logs it."""

    pid: int
    ended: float
    generation: int
    milliseconds: float


def collections_read(directory: Path, since: float, until: float) -> list[Collection]:
    found = []
    for log in directory.glob("*.log"):
        for line in log.read_text().splitlines():
            ended, generation, milliseconds = line.split()
            if since <= float(ended) <= until:
                found.append(Collection(int(log.stem), float(ended), int(generation), float(milliseconds)))
    return found


def _pauses(collections: list[Collection], probes_started: float) -> str:
    """The longest pauses of the round (connections included) and of the probes' window alone."""
    every = [c.milliseconds for c in collections]
    full = [c.milliseconds for c in collections if c.generation == 2]
    during = [c.milliseconds for c in collections if c.ended >= probes_started]
    return (
        f"{len(collections)} collections, longest {max(every, default=0):.1f} ms; "
        f"{len(full)} full, longest {max(full, default=0):.1f} ms; "
        f"longest during the probes {max(during, default=0):.1f} ms"
    )


def report(result: dict) -> None:
    lat = result["latency"]
    print(
        f"\nN = {result['n']} screens ({result['connected']} connected with their snapshot in "
        f"{result['connect_seconds']:.1f} s, {result['client_processes']} client processes), "
        f"{result['probes']} probes"
    )
    if lat:
        print(
            f"  latency POST sent -> update frame: {_spread(lat)} ({len(lat)} samples, "
            f"{result['misses']} probes without a frame)"
        )
        print(
            f"  latency POST response -> update frame (the earlier measure): {_spread(result['from_answer'])}"
        )
    if result["engine"]:
        print(f"  of which POST sent -> publish (the post and the engine): {_spread(result['engine'])}")
        print(f"  of which POST sent -> response (the post): {_spread(result['post'])}")
    if result["fan_out"]:
        print(f"  of which publish -> update frame (the signs' fan-out): {_spread(result['fan_out'])}")
    print(
        f"  frames sent {result['sent']}, received {result['received']}, dropped {result['gaps']} "
        f"(gaps in n), clients not on the final value {result['stale']}"
    )
    print(
        f"  frames/s delivered {result['fps']:.0f}; server processes' CPU, events API included: "
        f"{result['server_cpu_share'] * 100:.0f}% of a core, {result['cpu_us_per_frame']:.0f} us per frame"
    )
    print(
        f"  server memory {result['rss_idle'] / 2**20:.0f} MiB with the clients connected, "
        f"{result['rss_end'] / 2**20:.0f} MiB at the end"
    )
    print(f"  garbage collection, servers: {_pauses(result['gc_servers'], result['probes_started'])}")
    print(f"  garbage collection, worker: {_pauses(result['gc_worker'], result['probes_started'])}")
