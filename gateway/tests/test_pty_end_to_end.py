"""The gateway and the emulator over a real pseudo-terminal pair: SAS bytes in, API events out."""

from __future__ import annotations

import time
from typing import Any

import pytest

from gateway.app import Gateway, GatewayConfig, parse_config
from gateway.egm.config import COIN_OUT, EgmConfig
from gateway.egm.machine import Egm
from gateway.sas import frames as f
from gateway.tests.helpers import EGM_VARIANTS, SentMessages, wait_for


def make_gateway(device: str, store: str, rte: bool = True) -> Gateway:
    config = parse_config(
        {
            "server": {"url": "http://127.0.0.1:9", "key": "k", "store": store},
            "fresh_for": 3600,
            "broadcast_every": 0.5,
            "groups": [{"group": 1, "levels": {"1": 17, "2": 18}}],
            "lines": [
                {
                    "device": device,
                    "wakeup": "none",
                    "first_byte": 0.2,
                    "gap": 0.1,
                    "machines": [
                        {
                            "code": "NOG-0101",
                            "address": 1,
                            "denomination": 50,
                            "group": 1,
                            "rte": rte,
                            "meters_every": 3600,
                            "handpay_limit": 120000,
                        },
                    ],
                }
            ],
        }
    )
    gateway = Gateway(config)
    gateway.channel = SentMessages()  # type: ignore[assignment]
    gateway.board.set_level(17, 150000, reset=100000)
    gateway.board.set_level(18, 5000, reset=2000)
    gateway.board.heard_from_server()
    return gateway


def events(gateway: Gateway, kind: str | None = None) -> list[dict[str, Any]]:
    rows = [event for _, event in gateway.store.oldest(1000)]
    return [e for e in rows if kind is None or e["type"] == kind]


def _games_and_doors(egm: Egm, gateway: Gateway) -> None:
    for bet in (3, 9, 1):
        assert egm.play(bet)
    wait_for(lambda: len(events(gateway, "game")) == 3, what="three games")
    assert [(e["wager"], e["win"]) for e in events(gateway, "game")] == [
        (w * 50, p * 50) for w, p in egm.games
    ]

    egm.open_door()
    egm.close_door()
    wait_for(lambda: len(events(gateway, "status")) == 2, what="door events")
    assert [e["status"] for e in events(gateway, "status")] == ["door_open", "door_closed"]


def _hits_and_handpay(egm: Egm, gateway: Gateway) -> None:
    assert egm.hit(2)
    wait_for(lambda: events(gateway, "jackpot"), what="the level 2 hit")
    assert [(e["level"], e["amount"]) for e in events(gateway, "jackpot")] == [(18, 5000)]
    wait_for(lambda: egm.displayed[2] == 2000, what="the reset amount on the machine")

    assert egm.hit(1)  # 1,500.00 is above the machine's 1,200.00 limit: a handpay
    wait_for(lambda: len(events(gateway, "jackpot")) == 2, what="the level 1 hit")
    wait_for(lambda: any(e["status"] == "handpay_lockup" for e in events(gateway, "status")), what="51")
    lockup = next(e for e in events(gateway, "status") if e["status"] == "handpay_lockup")
    assert (lockup["amount"], lockup["sas_level"], lockup["group"]) == (150000, 1, 1)
    assert not egm.play(1)  # locked up

    gateway.command({"type": "handpay_reset", "machine": "NOG-0101"})
    wait_for(lambda: egm.handpay is None, what="the remote reset")
    wait_for(lambda: events(gateway, "status")[-1]["status"] == "handpay_reset", what="52")


def _award_and_meters(egm: Egm, gateway: Gateway) -> None:
    before = egm.meters[COIN_OUT]
    gateway.command({"type": "award", "machine": "NOG-0101", "award": 5, "amount": 1025})
    wait_for(lambda: gateway.channel.sent, what="the award confirmation")
    assert gateway.channel.sent == [
        {
            "type": "award_result",
            "machine": "NOG-0101",
            "award": 5,
            "amount": 1025,
            "status": "paid",
            "paid": 1000,
        }
    ]
    assert egm.meters[COIN_OUT] - before == 20

    wait_for(
        lambda: events(gateway, "meters")[-1]["meters"]["coin_out"] == egm.meters[COIN_OUT] * 50,
        what="meters after the award",
    )
    last = events(gateway, "meters")[-1]["meters"]
    assert last["games_played"] == 3
    assert last["coin_in"] == 13 * 50
    assert last["jackpot"] == 150000
    assert last["progressive_attendant_paid"] == 150000
    assert last["progressive_machine_paid"] == 5000


@pytest.mark.parametrize("variant", list(EGM_VARIANTS))
def test_games_meters_statuses_and_progressives_over_a_pty(pty_line, store_path, variant):
    readings = EGM_VARIANTS[variant]  # how the machine reads SAS where the standard leaves a choice
    egm = Egm(
        EgmConfig(
            address=1,
            denomination=50,
            group=1,
            levels=[1, 2],
            handpay_limit=120000,
            seed=7,
            spin=0.0,
            **readings,
        )
    )
    line = pty_line([egm])
    gateway = make_gateway(line.device, store_path)
    gateway.start(forward=False)
    try:
        wait_for(lambda: egm.rte and egm.progressive_enabled, what="RTE on and a broadcast shown")
        assert egm.displayed == {1: 150000, 2: 5000}
        _games_and_doors(egm, gateway)
        _hits_and_handpay(egm, gateway)
        _award_and_meters(egm, gateway)
        seqs = [e["seq"] for e in events(gateway)]
        assert seqs == list(range(1, len(seqs) + 1))
    finally:
        gateway.stop()


def test_a_hit_right_after_start_comes_after_the_game_that_won_it(pty_line, store_path):
    """The demo's start: the gateway's broadcast enables progressive play, the machine answers its first
    general poll, and plays a game before the next poll turns real-time reporting on (LP 0E). That game
    reaches the host only in the meters: a hit on it reached the server with no game before it, and was
    refused (no_triggering_game). Every jackpot event must follow the game that won it."""
    egm = Egm(EgmConfig(address=1, denomination=50, group=1, levels=[2], hit_chance=1.0, seed=7, spin=0.0))
    played: list[bool] = []
    answer = egm.answer

    def play_before_rte(frame: bytes, now: float) -> bytes | None:
        if not played and frame[:2] == bytes([1, f.LP_ENABLE_RTE]):
            played.append(egm.play(3))
        return answer(frame, now)

    egm.answer = play_before_rte  # type: ignore[method-assign]
    line = pty_line([egm])
    gateway = make_gateway(line.device, store_path)
    gateway.start(forward=False)
    try:
        wait_for(lambda: egm.rte and len(events(gateway, "meters")) == 1, what="RTE on and the first meters")
        assert (played, egm.rte) == ([True], True)
        assert egm.play(3)
        wait_for(lambda: len(events(gateway, "meters")) == 2, what="the meters read after the hit")
        kinds = [e["type"] for e in events(gateway)]
        game = events(gateway, "game")
    finally:
        gateway.stop()
    assert kinds == ["meters", "game", "jackpot", "meters"]
    assert [(g["wager"], g["win"]) for g in game] == [(150, egm.games[1][1] * 50)]


def test_a_hit_on_a_machine_without_rte_arrives_as_its_game_then_the_jackpot_over_a_pty(pty_line, store_path):
    egm = Egm(EgmConfig(address=1, denomination=50, group=1, levels=[1, 2], handpay_limit=120000, seed=7))
    line = pty_line([egm])
    gateway = make_gateway(line.device, store_path, rte=False)
    gateway.start(forward=False)
    try:
        host = gateway.hosts["NOG-0101"]
        # Past the session start (its meters, then its wins read): a game and its hit, both in the time
        # between two polls, would fall between those two reads (README, "From SAS to events").
        wait_for(
            lambda: egm.progressive_enabled and events(gateway, "meters") and not host.pending, what="start"
        )
        assert egm.play(4) and egm.hit(2)
        wait_for(lambda: events(gateway, "jackpot"), what="the hit")
        posted = [
            (e["type"], e.get("wager"), e.get("level")) for e in events(gateway) if e["type"] != "meters"
        ]
    finally:
        gateway.stop()
    assert posted == [("game", 200, None), ("jackpot", None, 18)]  # the server's order: game, then its hit


def _two_machines_config(device: str, store: str) -> GatewayConfig:
    """NOG-0101 (address 1) reports its games one by one (RTE); NOG-0102 (address 2) only in meters."""
    timing = {"wakeup": "none", "first_byte": 0.2, "gap": 0.1}
    fast = {"code": "NOG-0101", "address": 1, "denomination": 50, "rte": True, "meters_every": 3600}
    slow = {"code": "NOG-0102", "address": 2, "denomination": 2, "rte": False, "meters_every": 1}
    return parse_config(
        {
            "server": {"url": "http://127.0.0.1:9", "key": "k", "store": store},
            "lines": [{"device": device, **timing, "machines": [fast, slow]}],
        }
    )


def test_two_machines_on_one_line_playing_at_their_own_rate(pty_line, store_path):
    """Multi-drop: each machine answers only its address; RTE games one by one, the other by meters."""
    fast = Egm(
        EgmConfig(
            address=1, denomination=50, games_per_minute=60, bet_mix=[(1, 3.0), (9, 1.0)], seed=3, spin=0.0
        )
    )
    meter_only = Egm(
        EgmConfig(address=2, denomination=2, games_per_minute=120, bet_mix=[(50, 1.0)], seed=4, spin=0.0)
    )
    line = pty_line([fast, meter_only])
    config = _two_machines_config(line.device, store_path)
    fast.next_game = float("inf")  # games before RTE is on are seen only in the meters: start after
    gateway = Gateway(config)
    gateway.start(forward=False)
    try:
        wait_for(lambda: fast.rte, what="RTE on")
        with fast.lock:
            fast.next_game = time.monotonic()
        wait_for(lambda: len(fast.games) >= 3 and len(meter_only.games) >= 6, what="games on both machines")
        with fast.lock, meter_only.lock:
            fast.next_game = meter_only.next_game = float("inf")  # stop playing
        wait_for(lambda: not fast.queue, what="the gateway to drain the exception queue")
        final = meter_only.meters[0x00] * 2

        def slow_meters() -> list[dict[str, Any]]:
            return [e for e in events(gateway, "meters") if e["machine"] == "NOG-0102"]

        wait_for(
            lambda: slow_meters()[-1]["meters"]["coin_in"] == final, timeout=5, what="a last meters read"
        )
        meter_events = slow_meters()
        fast_games = [(e["wager"], e["win"]) for e in events(gateway, "game") if e["machine"] == "NOG-0101"]
        slow_games = [e for e in events(gateway, "game") if e["machine"] == "NOG-0102"]
    finally:
        gateway.stop()
    assert fast_games == [(w * 50, p * 50) for w, p in fast.games]
    baseline = meter_events[0]["meters"]["coin_in"]
    assert sum(g["wager"] for g in slow_games) == meter_events[-1]["meters"]["coin_in"] - baseline
    assert sum(g["win"] for g in slow_games) == (
        meter_events[-1]["meters"]["coin_out"] - meter_events[0]["meters"]["coin_out"]
    )
