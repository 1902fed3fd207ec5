"""Link layer and host logic against the emulator on an in-memory wire, with a controlled clock."""

from __future__ import annotations

import itertools
import logging
import threading
import time
from typing import Any

import pytest

from gateway.broadcast import GroupBroadcaster, ProgressiveBoard, eur_to_cents
from gateway.egm.config import EgmConfig
from gateway.egm.machine import Egm
from gateway.host import MachineHost
from gateway.host_io import MachineConfig
from gateway.link import LinePoller, Link
from gateway.queue import EventStore
from gateway.sas import frames as f
from gateway.tests.helpers import Recorder, Wire, store_callbacks, wait_for


def setup(rte: bool = True, denomination: int = 2, **machine: Any):
    egm = Egm(EgmConfig(address=3, denomination=denomination, seed=1, spin=0.0))
    wire = Wire(egm)
    out = Recorder()
    config = MachineConfig("VEN-0007", 3, denomination, rte=rte, meters_every=3600, **machine)
    host = MachineHost(config, out)
    return egm, wire, out, host, LinePoller(Link(wire, 0.01, 0.01), [host])


def run(poller: LinePoller, wire: Wire, until: float, step: float = 0.05) -> None:
    while wire.now < until:
        poller.step(wire.now)
        wire.now = round(wire.now + step, 6)


def polls_to(wire: Wire, address: int) -> list[float]:
    return [t for t, frame in wire.sent if frame[0] & 0x7F == address]


def test_interval_outside_sas_bounds_is_refused():
    for interval in (0.1, 5.5):
        with pytest.raises(ValueError, match=r"0\.2-5"):
            setup(interval=interval)


def test_each_machine_polled_no_faster_than_200_ms_and_no_slower_than_its_interval():
    wire = Wire(Egm(EgmConfig(address=3, spin=0.0)), Egm(EgmConfig(address=4, spin=0.0)))
    hosts = [
        MachineHost(MachineConfig("A", 3, 1, interval=0.2), Recorder()),
        MachineHost(MachineConfig("B", 4, 1, interval=1.0), Recorder()),
    ]
    poller = LinePoller(Link(wire, 0.01, 0.01), hosts)
    run(poller, wire, until=10.0, step=0.01)
    a, b = polls_to(wire, 3), polls_to(wire, 4)
    gaps_a = [y - x for x, y in itertools.pairwise(a)]
    gaps_b = [y - x for x, y in itertools.pairwise(b)]
    assert min(gaps_a) >= 0.2 - 1e-9 and max(gaps_a) <= 0.21 + 1e-9
    assert min(gaps_b) >= 1.0 - 1e-9 and max(gaps_b) <= 1.01 + 1e-9
    assert len(b) == 10


def test_a_lost_answer_is_polled_again_up_to_three_times():
    egm, wire, out, host, poller = setup()
    run(poller, wire, until=1.0)  # link up, RTE on, first meters
    assert egm.rte
    sent_before = len(wire.sent)
    wire.lose = 2
    host.pending.append(host.meters_poll())
    host.next_due = wire.now
    poller.step(wire.now)
    assert [frame[1] for _, frame in wire.sent[sent_before:]] == [0x2F, 0x2F, 0x2F]
    assert out.events[-1]["type"] == "meters"


def test_link_down_after_five_seconds_of_silence_then_session_restarts():
    egm, wire, _out, host, poller = setup()
    run(poller, wire, until=1.0)
    assert host.up
    egm.powered = False  # pulled cable: no answer at all
    run(poller, wire, until=5.9)
    assert host.up
    run(poller, wire, until=6.5)
    assert not host.up
    egm.powered = True
    egm.rte = False
    run(poller, wire, until=7.5)
    assert host.up and egm.rte  # reporting mode set again on the way back


def test_rte_games_in_cents_with_the_denomination():
    egm, wire, out, _host, poller = setup(denomination=2)
    run(poller, wire, until=1.0)
    egm.play(40)
    egm.play(7)
    run(poller, wire, until=2.0)
    games = [(e["wager"], e["win"]) for e in out.events if e["type"] == "game"]
    assert games == [(80, egm.games[0][1] * 2), (14, egm.games[1][1] * 2)]


def test_without_rte_games_come_from_coin_in_and_coin_out_deltas():
    egm, wire, out, host, poller = setup(rte=False, denomination=5)
    run(poller, wire, until=1.0)
    for bet in (10, 20, 30):
        egm.play(bet)
    host.pending.append(host.meters_poll())
    run(poller, wire, until=2.0)
    games = [e for e in out.events if e["type"] == "game"]
    won = sum(w for _, w in egm.games)
    assert [(g["wager"], g["win"], g["games"]) for g in games] == [(60 * 5, won * 5, 3)]
    assert out.events[-1]["meters"]["coin_in"] == 300


def hit_without_rte(out: Any, now: float = 0.0) -> tuple[Egm, Wire, MachineHost, LinePoller]:
    """A machine without real-time events, past its session start, then a game of 20 credits that hits."""
    egm = Egm(
        EgmConfig(address=3, denomination=5, group=4, levels=[1], handpay_limit=10**9, seed=1, spin=0.0)
    )
    wire = Wire(egm)
    config = MachineConfig("VEN-0007", 3, 5, rte=False, group=4, levels={1: 31}, meters_every=3600)
    host = MachineHost(config, out)
    poller = LinePoller(Link(wire, 0.01, 0.01), [host])
    egm.answer(f.multi_broadcast(4, {1: 99_00}), 0.0)
    run(poller, wire, until=1.0)  # the session start reads the meters the game counts from
    assert egm.play(20) and egm.hit(1)
    return egm, wire, host, poller


def test_without_rte_a_hit_posts_its_game_from_the_meters_before_the_jackpot():
    """The server takes a jackpot only after the game that triggered it (`no_triggering_game`)."""
    out = Recorder()
    egm, wire, _, poller = hit_without_rte(out)
    run(poller, wire, until=2.0)
    posted = [
        (e["type"], e.get("wager"), e.get("win"), e.get("level")) for e in out.events if e["type"] != "meters"
    ]
    assert posted == [("game", 100, egm.games[0][1] * 5, None), ("jackpot", None, None, 31)]


def test_without_rte_a_gateway_killed_after_the_56_still_posts_the_game_before_the_jackpot(store_path):
    """The meters a game counts from are kept with their event: a new process reads the win at its
    session start, after meters whose deltas post the game."""
    first = EventStore(store_path)
    egm, wire, host, poller = hit_without_rte(store_callbacks(first))
    while 0x56 in [report.code for report in egm.queue]:  # until the 56 was handled and acknowledged
        poller.step(wire.now)
        wire.now = round(wire.now + 0.05, 6)
    assert host.pending  # its meters and win polls are queued, and die with the process
    first.close()

    second = EventStore(store_path)
    host = MachineHost(host.config, store_callbacks(second))
    run(LinePoller(Link(wire, 0.01, 0.01), [host]), wire, until=wire.now + 7.0)  # link down, up again
    posted = [
        (e["type"], e.get("wager"), e.get("level")) for _, e in second.oldest(100) if e["type"] != "meters"
    ]
    assert posted == [("game", 100, None), ("jackpot", None, 31)]
    second.close()


def test_progressive_hit_posts_the_mapped_level_and_asks_for_the_reset():
    egm = Egm(EgmConfig(address=3, group=4, levels=[1, 2], handpay_limit=10**9, spin=0.0))
    wire, out = Wire(egm), Recorder()
    host = MachineHost(MachineConfig("VEN-0007", 3, 1, group=4, levels={1: 31, 2: 32}, wins_lp=0x87), out)
    poller = LinePoller(Link(wire, 0.01, 0.01), [host])
    egm.answer(f.multi_broadcast(4, {1: 99_00, 2: 12_34}), 0.0)
    run(poller, wire, until=1.0)
    egm.hit(1)
    egm.hit(2)
    run(poller, wire, until=2.0)
    jackpots = [(e["level"], e["amount"]) for e in out.events if e["type"] == "jackpot"]
    assert jackpots == [(31, 9900), (32, 1234)]
    assert out.hits == [(4, 1), (4, 2)]
    assert not egm.wins


def test_a_hit_on_a_game_played_right_after_the_session_start_comes_after_that_game():
    """A start reads no wins unasked: a win still has its 56 queued behind its game's 7E/7F, and read
    before them it would reach the server with no game before it (no_triggering_game)."""
    egm = Egm(EgmConfig(address=3, group=4, levels=[1], handpay_limit=10**9, spin=0.0))
    wire, out = Wire(egm), Recorder()
    config = MachineConfig("VEN-0007", 3, 1, group=4, levels={1: 31}, wins_lp=0x87, meters_every=3600)
    poller = LinePoller(Link(wire, 0.01, 0.01), [MachineHost(config, out)])
    egm.answer(f.multi_broadcast(4, {1: 99_00}), 0.0)
    while not any(frame[:2] == bytes([3, f.LP_SELECTED_METERS]) for _, frame in wire.sent):  # LP 0E, LP 2F
        poller.step(wire.now)
        wire.now = round(wire.now + 0.05, 6)
    assert egm.play(2) and egm.hit(1)
    run(poller, wire, until=wire.now + 2.0)
    posted = [(e["type"], e.get("wager"), e.get("amount")) for e in out.events if e["type"] != "meters"]
    assert posted == [("game", 2, None), ("jackpot", None, 99_00)]
    assert not egm.wins


def test_a_win_whose_56_the_machine_dropped_in_an_overflow_is_read_on_the_70():
    egm = Egm(EgmConfig(address=3, group=4, levels=[1], handpay_limit=10**9))
    wire, out = Wire(egm), Recorder()
    config = MachineConfig("VEN-0007", 3, 1, group=4, levels={1: 31}, meters_every=3600)
    poller = LinePoller(Link(wire, 0.01, 0.01), [MachineHost(config, out)])
    egm.answer(f.multi_broadcast(4, {1: 99_00}), 0.0)
    run(poller, wire, until=1.0)
    assert egm.hit(1)
    for code in range(0x20, 0x33):  # 19 tilts: with the 56 and 54, 21 exceptions in a queue of 20
        egm.raise_exception(code)
    assert 0x56 not in [report.code for report in egm.queue]
    run(poller, wire, until=8.0)
    assert [(e["level"], e["amount"]) for e in out.events if e["type"] == "jackpot"] == [(31, 99_00)]
    assert not egm.wins


def test_stale_board_stops_broadcasting_and_a_hit_broadcasts_the_reset_at_once():
    board = ProgressiveBoard({17: (1, 1), 18: (1, 2)}, fresh_for=10.0)
    board.set_level(17, 150000, reset=100000)
    board.set_level(18, 5000, reset=2000)
    caster = GroupBroadcaster(board, {1: 0x86}, every=1.0)
    assert caster.frames_due(0.0) == []  # never heard from the server
    board.heard_from_server(0.0)
    assert caster.frames_due(0.5) == [f.multi_broadcast(1, {1: 150000, 2: 5000})]
    assert caster.frames_due(1.0) == []
    board.hit(1, 2)
    assert caster.frames_due(1.1) == [f.multi_broadcast(1, {1: 150000, 2: 2000})]
    assert len(caster.frames_due(2.1)) == 1
    assert caster.frames_due(11.0) == []  # ten seconds of server silence: machines must see none
    single = GroupBroadcaster(board, {1: 0x80}, every=1.0)
    board.heard_from_server(11.0)
    assert single.frames_due(11.0) == [f.single_broadcast(1, 1, 150000), f.single_broadcast(1, 2, 2000)]


def test_eur_strings_become_exact_cents():
    assert eur_to_cents("1523.41") == 152341
    assert eur_to_cents("0.10") == 10
    with pytest.raises(ValueError):
        eur_to_cents("1.005")


def test_award_above_the_limit_goes_to_an_attendant_without_lp8a():
    _egm, _wire, out, host, _poller = setup(handpay_limit=1000)
    done: list[dict[str, Any]] = []
    out.award_done = lambda machine, award: done.append(award)  # type: ignore[method-assign]
    host.award({"award": 9, "amount": 1001})
    assert done == [{"award": 9, "amount": 1001, "status": "handpay", "paid": 0}]
    assert not host.pending


@pytest.mark.parametrize(("denomination", "amount"), [(5, 3), (10, 9), (100, 99)])
def test_award_below_one_credit_goes_to_an_attendant_without_lp8a(denomination, amount):
    """Nothing of it can be credited: a 0-credit legacy bonus would be answered `paid: 0`, which the
    server refuses (`invalid_paid`)."""
    egm, wire, out, host, poller = setup(denomination=denomination)
    done: list[dict[str, Any]] = []
    out.award_done = lambda machine, award: done.append(award)  # type: ignore[method-assign]
    run(poller, wire, until=1.0)
    host.award({"award": 4, "amount": amount})
    run(poller, wire, until=2.0)
    assert done == [{"award": 4, "amount": amount, "status": "handpay", "paid": 0}]
    assert not [frame for _, frame in wire.sent if frame[1:2] == bytes([f.LP_LEGACY_BONUS])]
    assert egm.meters[0x01] == 0 and egm.handpay is None


def test_award_with_a_fraction_of_a_credit_pays_the_whole_credits():
    egm, wire, out, host, poller = setup(denomination=5)
    done: list[dict[str, Any]] = []
    out.award_done = lambda machine, award: done.append(award)  # type: ignore[method-assign]
    run(poller, wire, until=1.0)
    host.award({"award": 6, "amount": 13})
    run(poller, wire, until=2.0)
    assert done == [{"award": 6, "amount": 13, "status": "paid", "paid": 10}]  # the server keeps the 3
    assert egm.meters[0x01] == 2


def test_session_start_reads_the_meters_once():
    _egm, wire, out, _host, poller = setup()
    run(poller, wire, until=2.0)
    assert [e["type"] for e in out.events] == ["meters"]


def test_a_hit_is_broadcast_at_once_on_every_line_of_the_group():
    board = ProgressiveBoard({17: (1, 1)}, fresh_for=10.0)
    board.set_level(17, 500, reset=100)
    board.heard_from_server(0.0)
    lines = [GroupBroadcaster(board, {1: 0x80}, every=1.0) for _ in range(2)]
    assert all(line.frames_due(0.0) for line in lines)
    board.hit(1, 1)
    assert [line.frames_due(0.1) for line in lines] == [[f.single_broadcast(1, 1, 100)]] * 2


def test_an_award_asked_during_a_link_outage_is_paid_once_the_machine_is_back():
    egm, wire, out, host, poller = setup(denomination=2)
    done: list[dict[str, Any]] = []
    out.award_done = lambda machine, award: done.append(award)  # type: ignore[method-assign]
    run(poller, wire, until=1.0)
    egm.powered = False
    run(poller, wire, until=7.0)
    assert not host.up
    host.award({"award": 3, "amount": 500})
    run(poller, wire, until=8.0)
    egm.powered = True
    run(poller, wire, until=10.0)
    assert done == [{"award": 3, "amount": 500, "status": "paid", "paid": 500}]
    assert egm.meters[0x01] - sum(w for _, w in egm.games) == 250


def test_a_repeated_51_makes_one_handpay_lockup_until_the_reset():
    egm, wire, out, _host, poller = setup(denomination=1)
    egm.config.handpay_limit = 10
    run(poller, wire, until=1.0)
    egm.legacy_bonus(50)  # above the limit: a handpay
    run(poller, wire, until=2.0)
    egm.raise_exception(0x51)  # some machines repeat 51 even after LP 1B was read
    run(poller, wire, until=3.0)
    egm.reset_handpay()
    egm.legacy_bonus(60)
    run(poller, wire, until=5.0)
    statuses = [(e["status"], e.get("amount")) for e in out.events if e["type"] == "status"]
    assert statuses == [("handpay_lockup", 50), ("handpay_reset", None), ("handpay_lockup", 60)]


def test_a_changed_amount_is_broadcast_on_the_next_turn_not_after_a_gap_or_a_period():
    board = ProgressiveBoard({17: (1, 1)}, fresh_for=10.0)
    board.set_level(17, 150000)
    board.heard_from_server(0.0)
    caster = GroupBroadcaster(board, {1: 0x86}, every=1.0)
    assert caster.frames_due(0.0) == [f.multi_broadcast(1, {1: 150000})]
    board.set_level(17, 150001)
    assert caster.frames_due(0.01) == [f.multi_broadcast(1, {1: 150001})]  # not at 0.2, nor at 1.0
    board.set_level(17, 150001)  # the same amount again is no change
    assert caster.frames_due(0.5) == []
    assert caster.frames_due(1.01) == [f.multi_broadcast(1, {1: 150001})]  # the periodic one


class ClockedWire(Wire):
    """A wire that notes the real time of every frame the host sends."""

    def send(self, frame: bytes, wakeup: bool = True) -> None:
        self.now = time.monotonic()
        super().send(frame, wakeup)


def test_an_idle_line_broadcasts_a_change_at_once_not_at_its_next_wake():
    board = ProgressiveBoard({17: (1, 1)}, fresh_for=60.0)
    board.set_level(17, 150000)
    board.heard_from_server()
    egm = Egm(EgmConfig(address=3, group=1, levels=[1], spin=0.0))
    wire = ClockedWire(egm)
    host = MachineHost(MachineConfig("VEN-0007", 3, 1, group=1, levels={1: 17}, interval=5.0), Recorder())
    poller = LinePoller(Link(wire, 0.01, 0.01), [host], GroupBroadcaster(board, {1: 0x86}, every=5.0))
    thread = threading.Thread(target=poller.run)
    thread.start()
    try:
        wait_for(lambda: egm.displayed[1] == 150000, 5.0, "the first broadcast")
        # Right after a broadcast, the line is idle for seconds: its machine and its refresh are 5 s away.
        changed = time.monotonic()
        board.set_level(17, 150001)
        wait_for(lambda: egm.displayed[1] == 150001, 5.0, "the changed amount")
        sent = next(at for at, frame in wire.sent if frame == f.multi_broadcast(1, {1: 150001}))
    finally:
        poller.stop.set()
        thread.join()
    assert sent - changed < 0.1  # the old line waited 0.2 s after its last broadcast, and woke every 0.1 s


def test_the_broadcasters_wait_ends_with_a_change_of_amount_or_a_hit():
    board = ProgressiveBoard({17: (1, 1)}, fresh_for=60.0)
    board.set_level(17, 150000, reset=100000)
    board.heard_from_server()
    caster = GroupBroadcaster(board, {1: 0x86}, every=5.0)
    caster.frames_due(time.monotonic())
    for news in (lambda: board.set_level(17, 150001), lambda: board.hit(1, 1)):
        threading.Timer(0.05, news).start()
        started = time.monotonic()
        caster.wait(10.0)
        assert time.monotonic() - started < 5.0
        assert len(caster.frames_due(time.monotonic())) == 1
    started = time.monotonic()
    caster.wait(0.2)  # nothing new: the whole timeout
    assert time.monotonic() - started >= 0.2


def _game_started(credits: int, coin_in: int) -> f.ExceptionReport:
    return f.ExceptionReport(0x7E, f.game_started_data(f.GameStarted(credits, coin_in, 0, 1)))


def test_a_game_started_while_the_last_is_open_says_the_last_ones_end_was_lost(caplog):
    """A 7F lost on the line (an answer to a general poll that came after the host stopped waiting, from a
    machine silent when idle) left the game open, and the next game's 7E took its place without a word:
    a game lost and nobody told (CI, loaded, lost NOG-0003's first game so). It is said now, as a 7F without
    its 7E is; the game that follows is posted as always."""
    _egm, _wire, out, host, _poller = setup()
    with caplog.at_level(logging.WARNING, logger="gateway.host"):
        host.handle_exception(_game_started(3, 100))
        host.handle_exception(_game_started(4, 103))
        host.handle_exception(f.ExceptionReport(0x7F, f.game_ended_data(0)))
    assert caplog.messages == [
        "VEN-0007: game started before the last one ended (its 7F was lost on the line); "
        "the meters will carry the last one"
    ]
    assert [(e["wager"], e["win"]) for e in out.events if e["type"] == "game"] == [(8, 0)]


def test_games_in_turn_say_nothing_lost(caplog):
    _egm, _wire, out, host, _poller = setup()
    with caplog.at_level(logging.WARNING, logger="gateway.host"):
        for credits, coin_in in ((3, 100), (4, 103)):
            host.handle_exception(_game_started(credits, coin_in))
            host.handle_exception(f.ExceptionReport(0x7F, f.game_ended_data(1)))
    assert caplog.messages == []
    assert [(e["wager"], e["win"]) for e in out.events if e["type"] == "game"] == [(6, 2), (8, 2)]
