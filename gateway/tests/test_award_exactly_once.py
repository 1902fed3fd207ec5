"""Mystery awards paid exactly once: kept in the store from their arrival to the server's answer, LP 8A sent
at most once per award, and a gateway killed at any point neither loses an award nor pays it twice.

The server sends an award on every connection until it has its result (gateway/README.md, "Server route");
a gateway killed after the machine credited it and before the result reached the server gets it again.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest

from gateway.app import GatewayChannel
from gateway.broadcast import ProgressiveBoard
from gateway.egm.config import EgmConfig
from gateway.egm.machine import Egm
from gateway.host import MachineHost
from gateway.host_io import MachineConfig
from gateway.link import QUIET_RESTART, LinePoller, Link
from gateway.queue import EventStore
from gateway.sas import frames as f
from gateway.tests.helpers import EGM_VARIANTS, SentMessages, Wire, store_callbacks
from gateway.tests.test_exception_ack import Fuse, FusedStore, FusedWire, Killed

DENOMINATION = 10


class BonusEgm(Egm):
    """An emulated machine that remembers the credits of every legacy bonus it paid."""

    def __init__(self, config: EgmConfig, now: float = 0.0) -> None:
        self.bonuses: list[int] = []
        super().__init__(config, now)

    def _bonus_paid(self, credits: int) -> None:
        self.bonuses.append(credits)
        super()._bonus_paid(credits)


def machine(rte: bool) -> MachineConfig:
    return MachineConfig("M1", 1, DENOMINATION, rte=rte, meters_every=3600)


def bonus_polls(wire: Wire) -> list[bytes]:
    return [frame for _, frame in wire.sent if frame[1:2] == bytes([f.LP_LEGACY_BONUS])]


class Process:
    """One gateway process on one line: its own store connection, host and poller."""

    def __init__(self, store_path: str, wire: Wire, rte: bool, channel: SentMessages) -> None:
        self.store = EventStore(store_path)
        quiet = 0.0 if self.store.run_started() else QUIET_RESTART  # as the gateway decides (app.py)
        self.host = MachineHost(machine(rte), store_callbacks(self.store, channel))
        self.poller = LinePoller(Link(wire, 0.01, 0.01), [self.host], quiet=quiet)


def run(process: Process, wire: Wire, egm: Egm, start: float, until: Any) -> float:
    now = start
    while not until():
        assert now < start + 60, "the award never reached that point"
        now = round(now + 0.05, 6)
        wire.now = now
        egm.tick(now)
        process.poller.step(now)
    return now


def started(store_path: str, rte: bool) -> tuple[BonusEgm, Wire, SentMessages, Process, float]:
    """A machine and a gateway process past its session start, nothing queued."""
    egm = BonusEgm(EgmConfig(address=1, denomination=DENOMINATION))
    wire, channel = Wire(egm), SentMessages()
    process = Process(store_path, wire, rte, channel)
    now = run(
        process, wire, egm, 0.0, lambda: egm.rte == rte and process.host.up and not process.host.pending
    )
    return egm, wire, channel, process, now


RESULT = {"type": "award_result", "award": 7, "machine": "M1", "amount": 2505, "status": "paid", "paid": 2500}


@pytest.mark.parametrize(
    ("rte", "kill_when"),
    [(False, "8A acknowledged"), (True, "8A acknowledged"), (False, "7C acknowledged")],
)
def test_an_award_credited_before_a_kill_is_paid_once_when_the_server_sends_it_again(
    store_path, rte, kill_when
):
    egm, wire, channel, first, now = started(store_path, rte)
    first.host.award({"award": 7, "amount": 2505})
    if kill_when == "8A acknowledged":
        now = run(first, wire, egm, now, lambda: egm.bonuses)
    else:
        now = run(first, wire, egm, now, lambda: egm.bonuses and not egm.queue and egm.unacked is None)
    assert egm.bonuses == [250] and channel.sent == []  # credited; the server has no result yet
    first.store.close()  # killed: the next process starts on the same file, the server sends the award again

    second = Process(store_path, wire, rte, channel)
    second.host.award({"award": 7, "amount": 2505})
    now = run(second, wire, egm, now, lambda: channel.sent and not egm.queue and not second.host.pending)
    assert egm.bonuses == [250]  # once
    assert channel.sent == [RESULT]
    assert len(bonus_polls(wire)) == 1
    second.store.close()


def test_a_lost_8a_ack_is_not_answered_by_a_second_8a_the_bonus_meters_decide(store_path):
    egm, wire, channel, process, now = started(store_path, False)
    send = wire.send

    def lose_the_8a_ack(frame: bytes, wakeup: bool = True) -> None:
        wire.lose = 1 if frame[1:2] == bytes([f.LP_LEGACY_BONUS]) else 0
        send(frame, wakeup)

    wire.send = lose_the_8a_ack  # type: ignore[method-assign]
    process.host.award({"award": 7, "amount": 2505})
    run(process, wire, egm, now, lambda: channel.sent and not process.host.pending)
    assert egm.bonuses == [250] and len(bonus_polls(wire)) == 1
    assert channel.sent == [RESULT]
    commands = [frame[1] for _, frame in wire.sent if frame[0] == 1 and len(frame) > 1]
    # bonus meters before, 8A once, bonus meters after (credited), the 7C's LP 90, the meters
    after = [f.LP_LEGACY_BONUS_METERS, f.LP_LEGACY_BONUS_WIN, f.LP_SELECTED_METERS]
    assert commands[-5:] == [f.LP_LEGACY_BONUS_METERS, f.LP_LEGACY_BONUS, *after]
    process.store.close()


def test_an_award_kept_and_never_sent_goes_to_an_attendant_not_to_a_second_8a(store_path):
    """Killed after keeping `sending` and before LP 8A went out: the meters show nothing credited."""
    egm, wire, channel, process, now = started(store_path, False)
    process.host.award({"award": 7, "amount": 2505})
    now = run(process, wire, egm, now, lambda: process.host.awards[0]["state"] == "sending")
    process.store.close()

    again = Process(store_path, wire, False, channel)
    assert again.host.awards[0]["state"] == "sending"
    again.host.award({"award": 7, "amount": 2505})
    run(again, wire, egm, now, lambda: channel.sent)
    assert channel.sent == [{**RESULT, "status": "handpay", "paid": 0}]
    assert egm.bonuses == [] and bonus_polls(wire) == []
    again.store.close()


def test_the_result_is_sent_again_until_the_server_recorded_it_and_an_answered_award_is_not_paid(store_path):
    store = EventStore(store_path)
    channel = SentMessages()
    callbacks = store_callbacks(store, channel)
    award = {"award": 3, "amount": 500, "credits": 50, "state": "new", "before": None}
    assert callbacks.award_received("M1", award)
    assert store.award_results() == []  # no outcome yet: nothing to tell the server
    callbacks.award_saved(
        "M1", {**award, "state": "done", "status": "paid", "paid": 500}, ("exception", b"|")
    )
    result = {
        "type": "award_result",
        "award": 3,
        "machine": "M1",
        "amount": 500,
        "status": "paid",
        "paid": 500,
    }
    assert channel.sent == [result] and store.kept("M1") == {"exception": b"|"}  # one transaction
    callbacks.send_results()  # a reconnection
    assert channel.sent == [result, result]
    store.award_answered(3)  # the server's award_recorded
    callbacks.send_results()
    assert channel.sent == [result, result]
    assert not callbacks.award_received("M1", award)  # sent again by the server: known, answered again
    assert channel.sent == [result, result, result] and store.awards_open("M1") == []
    store.close()


def test_the_server_channel_sends_results_on_connect_until_recorded_or_refused(store_path):
    store, sent = EventStore(store_path), SentMessages()
    gateway = SimpleNamespace(
        board=ProgressiveBoard({}, 10.0), command=None, store=store, map_due=threading.Event()
    )
    gateway.callbacks = store_callbacks(store, sent)
    channel = GatewayChannel("ws://unused", gateway)  # type: ignore[arg-type]
    for award in (3, 4):
        store.award_add("M1", {"award": award, "amount": 500, "credits": 50, "state": "new"})
        store.award_save("M1", {"award": award, "state": "done", "status": "paid", "paid": 500})
    channel.connected()
    assert [m["award"] for m in sent.sent] == [3, 4] and gateway.map_due.is_set()
    channel.handle({"type": "award_recorded", "award": 3, "status": "paid", "paid": 500})
    channel.handle({"type": "error", "error": "award_answered", "detail": "Answered before.", "award": 4})
    channel.connected()
    assert [m["award"] for m in sent.sent] == [3, 4]  # nothing more to send
    store.close()


# --- killed anywhere while awards are paid ------------------------------------------------------------


class FusedAwardStore(FusedStore):
    def award_add(self, *args: Any) -> bool:
        return self._fused("award_add", *args)

    def award_save(self, *args: Any) -> None:
        state = args[1]["state"]
        self._fused("award_save", *args, kept=f"award {state} kept")

    def award_answered(self, *args: Any) -> None:
        self._fused("award_answered", *args)


class Server:
    """The server's side of the awards: each drawn award sent on every connection until it has a result;
    the first result recorded, the same one again acknowledged, another one refused."""

    def __init__(self) -> None:
        self.awards: dict[int, int] = {}  # award -> cents
        self.results: dict[int, dict[str, Any]] = {}
        self.inbox = SentMessages()

    def unanswered(self) -> list[dict[str, Any]]:
        return [{"award": a, "amount": cents} for a, cents in self.awards.items() if a not in self.results]

    def receive(self, store: EventStore) -> None:
        """Read what the gateway sent; its award_recorded answers reach the gateway's store."""
        messages, self.inbox.sent = self.inbox.sent, []
        for message in messages:
            award = message["award"]
            first = self.results.setdefault(award, message)
            assert (message["status"], message["paid"]) == (first["status"], first["paid"]), "award_answered"
            store.award_answered(award)


@pytest.mark.parametrize(
    ("seed", "variant"), [(3, "ours"), (13, "independent"), (19, "ff00-5byte"), (27, "silent-5byte")]
)
@pytest.mark.parametrize("rte", [False, True])
def test_a_gateway_killed_anywhere_pays_each_award_exactly_once(store_path, rte, seed, variant):
    rng = random.Random(seed + rte)
    fuse = Fuse(rng)
    readings = EGM_VARIANTS[variant]  # how the machine reads SAS where the standard leaves a choice
    egm = BonusEgm(
        EgmConfig(address=1, denomination=DENOMINATION, bet_mix=[(1, 1), (4, 1)], seed=5, **readings)
    )
    wire = Wire(egm)
    server = Server()
    credits = rng.sample(range(1, 2000), 150)  # each award its own amount: a double shows on the machine
    now = 0.0

    def process() -> tuple[EventStore, MachineHost, LinePoller]:
        while True:
            store = FusedAwardStore(store_path, fuse)
            server.inbox.sent.clear()  # what a dead process had not sent yet is gone with it
            try:
                quiet = 0.0 if store.run_started() else QUIET_RESTART
                host = MachineHost(machine(rte), store_callbacks(store, server.inbox))
                host.out.send_results()  # type: ignore[attr-defined]
                for award in server.unanswered():  # the connection: the server sends every open award again
                    host.award(award)
            except Killed:
                store.close()
                continue
            return store, host, LinePoller(Link(FusedWire(wire, fuse), 0.01, 0.01), [host], quiet=quiet)

    store, host, poller = process()
    drawn = 0
    give_up = now + 36_000
    while len(server.results) < len(credits):
        assert now < give_up, "the awards never settled"
        now = round(now + 0.05, 6)
        wire.now = now
        egm.tick(now)
        if rte and len(egm.queue) < 3 and rng.random() < 0.05:
            egm.play()  # games around the awards: their exceptions come between 8A and 7C
        try:
            if drawn < len(credits) and rng.random() < 0.04:  # the server draws a mystery hit
                server.awards[drawn + 1] = credits[drawn] * DENOMINATION + rng.randint(0, DENOMINATION - 1)
                drawn += 1
                host.award(server.unanswered()[-1])
            poller.step(now)
            server.receive(store)
        except Killed:
            store.close()
            store, host, poller = process()
    fuse.armed = False

    paid = {a: r["paid"] // DENOMINATION for a, r in server.results.items() if r["status"] == "paid"}
    attendant = [a for a, r in server.results.items() if r["status"] == "handpay"]
    assert sorted(egm.bonuses) == sorted(paid.values())  # every credited bonus reported, none twice
    assert all(paid[a] == credits[a - 1] for a in paid)
    assert len(paid) + len(attendant) == len(credits) == len(server.results)
    assert all(r["paid"] == 0 for a, r in server.results.items() if a in attendant)
    sent = Counter(f.decode_legacy_bonus(frame, 1)[0] for frame in bonus_polls(wire))
    # LP 8A never twice for one award, but again after a real-time event answered it in place of its ACK
    # (SAS 6.02 §12.3: that 8A was not carried out): each award still credited once (egm.bonuses above)
    assert max(sent.values()) == 1 or (rte and readings.get("rte_preempts"))
    assert max(Counter(egm.bonuses).values()) == 1
    assert len(attendant) <= fuse.kills["award sending kept, not acknowledged"] + fuse.kills["before a send"]
    # The draw reached every window (per draw at least once: the draws together many times each)
    assert len(paid) >= 120, (len(paid), fuse.kills)
    windows = ["sending", "sent", "done"] + ([] if rte else ["confirming"])  # confirming: 7C kept, LP 90 next
    assert all(fuse.kills[f"award {state} kept, not acknowledged"] >= 1 for state in windows), fuse.kills
    assert fuse.kills["answer read, not kept"] >= 20, fuse.kills
    store.close()
