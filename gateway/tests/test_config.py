"""The configuration file: what it accepts, and a clear error for what it cannot run."""

from __future__ import annotations

import pytest

from gateway.app import ConfigError, load_config, parse_config

BASE = {"server": {"url": "http://x", "key": "k"}, "groups": [{"group": 1, "levels": {"1": 17}}]}


def config_with(machine: dict) -> dict:
    return {**BASE, "lines": [{"device": "/dev/null", "wakeup": "none", "machines": [machine]}]}


def test_the_example_configuration_loads():
    config = load_config("gateway/examples/gateway.toml")
    machines = [m for line in config.lines for m in line.machines]
    assert [(m.code, m.address, m.denomination, m.rte, m.levels) for m in machines] == [
        ("NOG-0101", 1, 50, True, {1: 17, 2: 18}),
        ("NOG-0102", 2, 2, False, {}),
    ]
    assert config.groups[1].broadcast_lp == 0x86


@pytest.mark.parametrize(
    ("machine", "message"),
    [
        ({"code": "A", "address": 1, "denomination": 1, "denomnation": 2}, "unknown settings denomnation"),
        ({"code": "A", "address": 1}, "denomination"),
        ({"code": "A", "address": 128, "denomination": 1}, "1-127"),
        ({"code": "A", "address": 1, "denomination": 1, "group": 2}, "group 2 is not configured"),
        ({"address": 1, "denomination": 1}, "argument: 'code'"),
        ({"code": "A", "address": 1, "denomination": 1, "meters_lp": 0x1C}, "meters_lp must be 0x2F"),
    ],
)
def test_bad_machine_entries_are_refused_with_a_reason(machine, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(config_with(machine))


def test_server_section_is_required():
    with pytest.raises(ConfigError, match="url"):
        parse_config({"lines": []})
