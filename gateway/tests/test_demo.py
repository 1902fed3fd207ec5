"""The demo's machines and configuration follow the server's map."""

from __future__ import annotations

import tomllib
from pathlib import Path

from gateway.app import parse_config
from gateway.demo import gateway_toml, lines_from, machine_for
from gateway.tests.test_server_map import SERVER_MAP


def test_one_emulated_machine_per_mapped_machine_grouped_by_line():
    lines = lines_from(SERVER_MAP)
    assert sorted(lines) == ["line-1", "line-9"]
    first, second = lines["line-1"]
    assert (first.address, first.config.denomination, first.config.group, first.config.levels) == (
        1,
        50,
        1,
        [1, 2],
    )
    assert first.config.handpay_limit == 100000
    assert first.config.bet_mix[-1][0] == 10  # max bet 500 cents of 50-cent credits
    assert (second.address, second.config.group, second.config.levels, second.config.handpay_limit) == (
        2,
        0,
        [],
        120000,
    )


def test_the_demo_gateway_configuration_takes_the_map_from_the_server():
    text = gateway_toml("http://127.0.0.1:8000", "k", Path("/tmp/demo"), {"line-1": "/dev/pts/7"})
    config = parse_config(tomllib.loads(text))
    assert (config.source, config.websocket) == ("api", "ws://127.0.0.1:8000/ws/gateway/?token=k")
    assert [(line.name, line.device, line.wakeup) for line in config.lines] == [
        ("line-1", "/dev/pts/7", "none")
    ]
    assert config.store == "/tmp/demo/events.sqlite3"


def test_the_demo_machines_bet_within_the_machines_range():
    """A demo bank of 1-cent machines with a 60-cent minimum bet played 1-credit games, which the server
    refused (wager_out_of_range); every bet is now within [min bet, max bet] in whole credits."""
    entry = {"code": "NOG-0005", "address": 5, "denomination": 1, "min_bet": 60, "max_bet": 300, "group": 1}
    machine = machine_for(entry, {"levels": {"1": 17, "2": 18}}, seed=1)
    bets = [credits * machine.config.denomination for credits, _weight in machine.config.bet_mix]
    assert bets == [60, 100, 300]
    entry = {"code": "NOG-0101", "address": 1, "denomination": 50, "min_bet": 60, "max_bet": 450, "group": 1}
    bets = [
        credits * 50 for credits, _weight in machine_for(entry, {"levels": {"1": 17}}, seed=1).config.bet_mix
    ]
    assert bets == [100, 150, 450]  # 60 cents rounds up to 2 credits of 50


def test_the_demo_machines_hit_only_levels_their_game_can_win():
    """The demo's Diamond Vault (max bet only) and Venezia Mystery (drawn by the server) got random hits
    on any game, which the server refused (not_max_bet, mystery_level); the map says which levels are so."""
    group = {
        **SERVER_MAP["groups"][0],
        "levels": {"1": 17, "2": 18, "3": 19},
        "min_wager": {"1": 0, "2": 150, "3": 0},
        "max_bet_only": {"1": True, "2": False, "3": False},
        "mystery": {"1": False, "2": False, "3": True},
    }
    machine = lines_from({**SERVER_MAP, "groups": [group]})["line-1"][0]
    config = machine.config
    assert (config.levels, config.max_bet_levels, config.min_wager, config.mystery_levels) == (
        [1, 2, 3],
        [1],
        {1: 0, 2: 150, 3: 0},
        [3],
    )
    assert [(bet, machine.levels_won_by(bet)) for bet, _weight in config.bet_mix] == [
        (1, []),
        (3, [2]),
        (10, [1, 2]),
    ]
