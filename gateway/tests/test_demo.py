"""The demo's machines and configuration follow the server's map."""

from __future__ import annotations

import tomllib
from pathlib import Path

from gateway.app import parse_config
from gateway.demo import gateway_toml, lines_from
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
