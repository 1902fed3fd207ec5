"""Exceptions leave the machine only on the host's implied ACK, and the host acknowledges only what it kept.

SAS 6.02 §3.1 (see gateway/README.md, "Acknowledging exceptions"): the same general poll again is the
implied NACK, any other poll on the line the implied ACK.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from gateway.egm.config import EgmConfig
from gateway.egm.machine import Egm
from gateway.host import MachineHost
from gateway.host_io import MachineConfig
from gateway.link import QUIET_RESTART, LinePoller, Link
from gateway.queue import EventStore
from gateway.sas import frames as f
from gateway.tests.helpers import EGM_VARIANTS, Wire, store_callbacks


def egm_with(*codes: int, rte: bool = False) -> Egm:
    egm = Egm(EgmConfig(address=1, spin=0.0), now=0.0)
    egm.rte = rte
    for code in codes:
        egm.raise_exception(code)
    return egm


# --- the emulator, byte by byte ------------------------------------------------------------------------


def test_an_exception_stays_until_another_poll_acknowledges_it():
    egm = egm_with(0x11, 0x12)
    assert egm.answer(h("81"), 0.0) == h("11")
    assert egm.answer(h("81"), 0.2) == h("11")  # the same general poll: implied NACK, the same answer
    assert egm.answer(h("80"), 0.3) is None  # a poll to address 0 (no machine): the implied ACK
    assert egm.answer(h("81"), 0.4) == h("12")
    assert egm.answer(h("82"), 0.5) is None  # a general poll to another machine acknowledges too
    assert egm.answer(h("81"), 0.6) == h("00")
    assert egm.answer(h("81"), 0.8) == h("00")  # "nothing" waits for no ACK


def test_a_real_time_event_is_repeated_whole_and_a_long_poll_acknowledges_it():
    egm = egm_with(rte=True)
    egm.play(5)
    started = f.rte_exception(1, 0x7E, f.game_started_data(f.GameStarted(5, 5, 0, 0)))
    assert started == h("01 ff 7e 0005 00000005 00 00") + started[-2:]
    assert egm.answer(h("81"), 0.0) == started
    assert egm.answer(h("81"), 0.2) == started
    assert egm.answer(f.read_poll(1, f.LP_LEGACY_BONUS_WIN), 0.3) is not None  # any long poll: ACK
    assert egm.answer(h("81"), 0.4) == f.rte_exception(1, 0x7F, f.game_ended_data(egm.games[0][1]))


def test_the_third_identical_poll_gets_no_answer_and_the_exception_comes_back_on_the_next():
    egm = egm_with(0x11)
    assert [egm.answer(h("81"), t) for t in (0.0, 0.2, 0.4, 0.6)] == [h("11"), h("11"), None, h("11")]
    egm.answer(h("80"), 0.7)
    assert egm.answer(h("81"), 0.8) == h("00")


def test_a_link_down_counts_as_a_nack_the_exception_is_sent_again_to_the_next_poll():
    egm = egm_with(0x11, 0x12)
    assert egm.answer(h("81"), 0.0) == h("11")
    egm.tick(5.1)  # no frame for more than 5 s: the answer is no longer waiting for its ACK
    assert egm.unacked is None and egm.head_exception() == f.ExceptionReport(0x11)
    egm.answer(h("80"), 6.0)  # nothing pending: this acknowledges nothing
    assert egm.answer(h("81"), 6.1) == h("11")


def test_the_overflow_report_is_acknowledged_like_any_exception():
    egm = egm_with(*range(0x20, 0x35))  # 21 exceptions into a queue of 20
    assert egm.answer(h("81"), 0.0) == h("70")
    assert egm.answer(h("81"), 0.1) == h("70")
    egm.answer(h("80"), 0.2)
    assert egm.answer(h("81"), 0.3) == h("21")


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


# --- the host: kept before acknowledged, a repeat after a restart counted once -------------------------


def test_the_ack_goes_out_only_after_the_event_is_on_disk(store_path):
    egm = egm_with(rte=True)
    egm.play(3)
    store = EventStore(store_path)
    wire = Wire(egm)
    on_disk_at_ack: list[int] = []
    send = wire.send

    def watch(frame: bytes, wakeup: bool = True) -> None:
        if frame == f.sync_poll():
            on_disk_at_ack.append(store.backlog())
        send(frame, wakeup)

    wire.send = watch  # type: ignore[method-assign]
    host = MachineHost(MachineConfig("M", 1, 1, meters_every=3600), store_callbacks(store))
    poller = LinePoller(Link(wire, 0.01, 0.01), [host])
    host.up = True  # skip the session start: only the general polls matter here
    for now in (0.0, 0.2):
        poller.step(now)
    assert on_disk_at_ack == [0, 1]  # the 7E keeps an open game (no event), the 7F's game is stored
    assert [e["type"] for _, e in store.oldest(10)] == ["game"]
    store.close()


def test_the_kept_exception_repeated_after_a_restart_is_not_counted_again(store_path):
    egm = egm_with(0x11, 0x12, 0x11)  # door open, closed, open: the third is a new one, the same bytes
    wire = Wire(egm)
    link = Link(wire, 0.01, 0.01)
    first = EventStore(store_path)
    host = MachineHost(MachineConfig("M", 1, 1, rte=False), store_callbacks(first))
    poll = host.general_poll()
    answered, report = link.exchange(poll)
    assert (answered, report) == (True, f.ExceptionReport(0x11))
    poll.handle(report)
    first.close()  # killed after keeping the door_open, before the ACK

    second = EventStore(store_path)
    host = MachineHost(MachineConfig("M", 1, 1, rte=False), store_callbacks(second))
    assert host.repeat == {"exception": h("11")}
    codes = []
    while not codes or codes[-1]:
        poll = host.general_poll()
        answered, report = link.exchange(poll)
        codes.append(report.code)
        poll.handle(report)
        link.handled(poll, report)
    assert codes == [0x11, 0x12, 0x11, 0x00]
    statuses = [e["status"] for _, e in second.oldest(10)]
    assert statuses == ["door_open", "door_closed", "door_open"]  # the repeat once, the new one kept
    second.close()


def test_lp_87_wins_kept_before_a_kill_are_not_counted_again_when_a_new_win_follows_them(store_path):
    egm = Egm(EgmConfig(address=1, denomination=1, group=1, levels=[1, 2]), now=0.0)
    egm.broadcast(1, {1: 123_45, 2: 6_78}, 0.0)
    assert egm.hit(1)
    wire = Wire(egm)
    link = Link(wire, 0.01, 0.01)
    config = MachineConfig("M", 1, 1, group=1, levels={1: 11, 2: 12}, wins_lp=f.LP_MULTI_PROGRESSIVE_WINS)
    first = EventStore(store_path)
    poll = MachineHost(config, store_callbacks(first)).wins_poll()
    answered, answer = link.exchange(poll)
    assert (answered, answer) == (True, f.ProgressiveWins(1, [(1, 123_45)]))
    poll.handle(answer)
    first.close()  # killed after keeping the win, before the ACK
    wire.now = 6.0
    egm.tick(6.0)  # the quiet start: the machine's link goes down and keeps the win
    egm.broadcast(1, {2: 9_10}, 6.0)
    assert egm.hit(2)  # won meanwhile: LP 87 answers with both

    second = EventStore(store_path)
    poll = MachineHost(config, store_callbacks(second)).wins_poll()
    answered, answer = link.exchange(poll)
    assert answer == f.ProgressiveWins(1, [(1, 123_45), (2, 9_10)])
    poll.handle(answer)
    link.handled(poll, answer)
    jackpots = [(e["level"], e["amount"]) for _, e in second.oldest(10) if e["type"] == "jackpot"]
    assert jackpots == [(11, 123_45), (12, 9_10)]  # the kept win once, the new one kept
    assert not egm.wins
    second.close()


def test_lp_85_wins_behind_a_kept_one_are_read_after_it_is_found_again(store_path):
    egm = Egm(EgmConfig(address=1, denomination=1, group=1, levels=[1, 2]), now=0.0)
    egm.broadcast(1, {1: 123_45, 2: 6_78}, 0.0)
    assert egm.hit(1) and egm.hit(2)
    wire = Wire(egm)
    link = Link(wire, 0.01, 0.01)
    config = MachineConfig("M", 1, 1, group=1, levels={1: 11, 2: 12}, wins_lp=f.LP_SAS_PROGRESSIVE_WIN)
    first = EventStore(store_path)
    host = MachineHost(config, store_callbacks(first))
    while (poll := host.general_poll()) and (answer := link.exchange(poll)[1]).code:
        poll.handle(answer)  # 56, 54, 56, 54: each asks for a win, each acknowledged
        link.handled(poll, answer)
    peek = host.pending.popleft()  # LP 1B before the wins: who pays them
    peek.handle(link.exchange(peek)[1])
    poll = host.pending.popleft()
    answer = link.exchange(poll)[1]
    assert answer == f.ProgressiveWin(1, 1, 123_45)
    poll.handle(answer)
    first.close()  # killed after keeping the first win, before the ACK: no 56 is left for the second

    second = EventStore(store_path)
    poller = LinePoller(
        Link(wire, 0.01, 0.01), [MachineHost(config, store_callbacks(second))], quiet=QUIET_RESTART
    )
    for step in range(200):
        wire.now = step * 0.05
        egm.tick(wire.now)
        poller.step(wire.now)
    jackpots = [(e["level"], e["amount"]) for _, e in second.oldest(10) if e["type"] == "jackpot"]
    assert jackpots == [(11, 123_45), (12, 6_78)]
    assert not egm.wins
    second.close()


# --- a gateway killed at random points while machines play: nothing lost, nothing doubled --------------


class Killed(BaseException):
    """The gateway process dies here, as by SIGKILL: nothing after this point runs."""


class Fuse:
    """Counts what a gateway process does (reads, writes, sends) and kills it at a drawn step."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.armed = True
        self.left = 0
        self.kills: Counter[str] = Counter()
        self.rearm()

    def rearm(self) -> None:
        self.left = self.rng.randint(1, 60)

    def step(self, where: str, odds: float = 0.0) -> None:
        """`odds`: the chance of dying here whatever the count, for a window too rare to be drawn often."""
        if not self.armed:
            return
        self.left -= 1
        if self.left <= 0 or (odds and self.rng.random() < odds):
            self.kills[where] += 1
            self.rearm()
            raise Killed(where)


class FusedWire:
    """The gateway's end of a line: the machines answer at once; the process may die around each byte."""

    def __init__(self, wire: Wire, fuse: Fuse) -> None:
        self.wire, self.fuse = wire, fuse

    def send(self, frame: bytes, wakeup: bool = True) -> None:
        self.fuse.step("before a send")
        self.wire.send(frame, wakeup)

    def read(self, timeout: float) -> bytes:
        data = self.wire.read(timeout)
        if data:
            self.fuse.step("answer read, not kept")
        return data

    def discard_input(self) -> None:
        self.wire.discard_input()

    def close(self) -> None:
        return None


class FusedStore(EventStore):
    def __init__(self, path: str, fuse: Fuse) -> None:
        super().__init__(path)
        self.fuse = fuse

    def _fused(self, name: str, *args: Any, kept: str = "kept") -> Any:
        self.fuse.step("before a write")
        result = getattr(super(), name)(*args)
        self.fuse.step(f"{kept}, not acknowledged", 0.25 if kept == "win kept" else 0.0)
        return result

    def put_all(self, *args: Any) -> list[int]:
        win = len(args) > 2 and args[2] is not None and args[2][0] == "win"
        return self._fused("put_all", *args, kept="win kept" if win else "kept")

    def open_game_set(self, *args: Any) -> None:
        self._fused("open_game_set", *args)

    def wins_due_set(self, *args: Any) -> None:
        self._fused("wins_due_set", *args)

    def settled(self, *args: Any) -> None:
        self._fused("settled", *args)


# Several draws: one alone passed while others doubled an LP 87 win (kept, killed before the ACK, read
# again with a win that came during the quiet start)
# Each draw with one of the machines' readings of SAS (EGM_VARIANTS), games instant or spinning.
@pytest.mark.parametrize(
    ("seed", "variant", "spin"),
    [
        (1, "ours", 0.0),
        (2, "independent", 0.0),
        (3, "ff00-5byte", 0.0),
        (4, "silent-5byte", 0.0),
        (5, "independent", 0.3),
        (6, "ours", 0.3),
        (7, "ff00-5byte", 0.3),
        (8, "independent", 0.0),
        (14, "ours", 0.0),
    ],
)
def test_a_gateway_killed_anywhere_loses_no_game_or_hit_and_doubles_none(store_path, seed, variant, spin):
    rng = random.Random(seed)
    fuse = Fuse(rng)
    progressive = {"group": 1, "levels": [1, 2], "spin": spin, **EGM_VARIANTS[variant]}
    lines = [  # a multi-drop line of two machines, and a machine alone on its line
        [Egm(EgmConfig(address=1, denomination=5, bet_mix=[(1, 1), (3, 1)], seed=1, **progressive))],
        [
            Egm(EgmConfig(address=2, denomination=1, bet_mix=[(2, 1), (9, 1)], seed=2, **progressive)),
            Egm(EgmConfig(address=3, denomination=10, bet_mix=[(1, 1)], seed=3, **progressive)),
        ],
    ]
    wires = [Wire(*egms) for egms in lines]
    machines = {f"M{egm.address}": egm for egms in lines for egm in egms}
    wins_lp = {
        "M1": f.LP_SAS_PROGRESSIVE_WIN,
        "M2": f.LP_SAS_PROGRESSIVE_WIN,
        "M3": f.LP_MULTI_PROGRESSIVE_WINS,
    }
    hits: dict[str, list[tuple[int, int]]] = {code: [] for code in machines}  # (level id, cents) shown
    now = 0.0

    def process() -> tuple[EventStore, list[LinePoller]]:
        store = FusedStore(store_path, fuse)
        quiet = 0.0 if store.run_started() else QUIET_RESTART  # as the gateway decides (app.py)
        pollers = []
        for wire, egms in zip(wires, lines, strict=True):
            config = [
                MachineConfig(
                    f"M{e.address}",
                    e.address,
                    e.config.denomination,
                    group=1,
                    levels={1: 11, 2: 12},
                    wins_lp=wins_lp[f"M{e.address}"],
                )
                for e in egms
            ]
            hosts = [MachineHost(c, store_callbacks(store)) for c in config]
            pollers.append(LinePoller(Link(FusedWire(wire, fuse), 0.01, 0.01), hosts, quiet=quiet))
        return store, pollers

    def run_until(done: Any) -> None:
        nonlocal now, store, pollers
        give_up = now + 3600
        while not done():
            assert now < give_up, "the machines and the gateway never settled"
            now = round(now + 0.05, 6)
            for wire in wires:
                wire.now = now
            for code, egm in machines.items():
                # every hit at its own amount, all below the handpay limit (machine-paid)
                egm.broadcast(1, {1: 10_000 + int(now * 100) % 90_000, 2: 500 + int(now * 10)}, now)
                egm.tick(now)
                if egm.rte and len(egm.queue) < 4 and games_left[0] > 0 and rng.random() < 0.3:
                    if not egm.play():  # still spinning the last one
                        continue
                    games_left[0] -= 1
                    if rng.random() < 0.25:  # a progressive hit, paid by the machine: 56, then 54
                        level = rng.choice([1, 2])
                        hits[code].append((10 + level, egm.displayed[level]))
                        assert egm.hit(level)
            try:
                for poller in pollers:
                    poller.step(now)
            except Killed:
                store.close()  # what the kernel does for a killed process; uncommitted work is gone
                store, pollers = process()

    games_left = [0]
    fuse.armed = False
    store, pollers = process()
    run_until(lambda: all(egm.rte for egm in machines.values()))
    fuse.armed = True
    games_left[0] = 240
    run_until(lambda: games_left[0] == 0)
    # Still armed while the machines empty their queues: one that answers long polls with its events
    # (rte_preempts) has its wins read only once its events are out.
    run_until(lambda: not any(egm.queue or egm.unacked or egm.wins for egm in machines.values()))
    fuse.armed = False

    kept: dict[str, list[tuple[int, int]]] = {code: [] for code in machines}
    jackpots: dict[str, list[tuple[int, int]]] = {code: [] for code in machines}
    for _, event in store.oldest(10_000):
        if event["type"] == "game":
            denomination = machines[event["machine"]].config.denomination
            kept[event["machine"]].append((event["wager"] // denomination, event["win"] // denomination))
        elif event["type"] == "jackpot":
            jackpots[event["machine"]].append((event["level"], event["amount"]))
    assert {code: egm.games for code, egm in machines.items()} == kept
    assert sum(len(egm.games) for egm in machines.values()) == 240
    assert jackpots == hits and sum(map(len, hits.values())) >= 40
    assert not any(egm.wins for egm in machines.values())
    assert fuse.kills["answer read, not kept"] >= 10 and fuse.kills["kept, not acknowledged"] >= 10
    assert fuse.kills["win kept, not acknowledged"] >= 2, fuse.kills
    store.close()
