"""The machine map from the server (GET /api/v1/gateway/config): applied to the named local lines,
kept as a local copy for a start without the server, fetched again when it changes."""

from __future__ import annotations

import copy
import os

import pytest

from gateway.app import ConfigError, Gateway, parse_config, with_server_map
from gateway.egm.config import EgmConfig
from gateway.egm.machine import Egm
from gateway.servermap import MapUnavailable, current_map, map_copy_path
from gateway.tests.fake_server import FakeEventsServer
from gateway.tests.helpers import wait_for

SERVER_MAP = {
    "machines": [
        {
            "code": "NOG-0101",
            "line": "line-1",
            "address": 1,
            "denomination": 50,
            "group": 1,
            "max_bet": 500,
            "handpay_limit": 100000,
        },
        {
            "code": "NOG-0102",
            "line": "line-1",
            "address": 2,
            "denomination": 2,
            "group": 0,
            "max_bet": 500,
            "handpay_limit": None,
        },
        {
            "code": "NOG-0201",
            "line": "line-9",  # another gateway's line
            "address": 1,
            "denomination": 1,
            "group": 0,
            "max_bet": 100,
            "handpay_limit": None,
        },
    ],
    "groups": [
        {
            "group": 1,
            "progressive": 3,
            "broadcast_lp": 134,
            "levels": {"1": 17, "2": 18},
            "reset_eur": {"1": "1000.00", "2": "20.00"},
        }
    ],
}


def api_config(device: str, store: str, url: str = "http://127.0.0.1:9") -> dict:
    return {
        "server": {"url": url, "key": "gw-key", "store": store, "config": "api"},
        "machine_defaults": {"meters_every": 3600, "handpay_limit": 50000, "interval": 0.2},
        "lines": [{"name": "line-1", "device": device, "wakeup": "none", "first_byte": 0.2, "gap": 0.1}],
    }


def test_the_server_map_fills_the_named_lines_with_local_defaults():
    config = with_server_map(parse_config(api_config("/dev/null", "x")), SERVER_MAP)
    (line,) = config.lines
    assert [
        (m.code, m.address, m.denomination, m.group, m.levels, m.handpay_limit) for m in line.machines
    ] == [
        ("NOG-0101", 1, 50, 1, {1: 17, 2: 18}, 100000),
        ("NOG-0102", 2, 2, 0, {}, 50000),  # no limit on the server: the local default
    ]
    assert {m.meters_every for m in line.machines} == {3600}
    assert config.groups[1].broadcast_lp == 0x86


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda raw: raw["lines"][0].pop("name"), "a line has a name and no machines"),
        (lambda raw: raw["lines"][0].update(machines=[{"code": "A"}]), "a line has a name and no machines"),
        (lambda raw: raw["server"].update(config="ldap"), 'config must be "file" or "api"'),
    ],
)
def test_api_mode_configuration_errors_say_what_is_wrong(change, message):
    raw = api_config("/dev/null", "x")
    change(raw)
    with pytest.raises(ConfigError, match=message):
        parse_config(raw)


def test_a_map_naming_an_unknown_group_is_refused():
    bad = copy.deepcopy(SERVER_MAP)
    bad["machines"][0]["group"] = 7
    with pytest.raises(ConfigError, match="group 7 is not configured"):
        with_server_map(parse_config(api_config("/dev/null", "x")), bad)


def test_the_map_is_kept_locally_and_used_when_the_server_is_away(store_path):
    server = FakeEventsServer()
    copy_path = map_copy_path(store_path)
    try:
        with pytest.raises(MapUnavailable, match=r"503.*no local copy"):
            current_map(server.url, "gw-key", copy_path)
        assert not os.path.exists(copy_path)
        server.gateway_map = SERVER_MAP
        answered = {**SERVER_MAP, "machines": [{**m, "last_seq": 0} for m in SERVER_MAP["machines"]]}
        assert current_map(server.url, "gw-key", copy_path) == answered
        server.gateway_map = None
        assert current_map(server.url, "gw-key", copy_path) == answered  # the local copy
        with pytest.raises(MapUnavailable, match="401"):
            current_map(server.url, "wrong-key", copy_path + ".other")
    finally:
        server.close()


def test_a_gateway_polls_the_machines_the_server_names_and_follows_a_new_map(pty_line, store_path):
    server = FakeEventsServer()
    server.gateway_map = copy.deepcopy(SERVER_MAP)
    first, later = Egm(EgmConfig(address=1, denomination=50)), Egm(EgmConfig(address=3, denomination=10))
    line = pty_line([first, later])
    gateway = Gateway(parse_config(api_config(line.device, store_path, server.url)))
    gateway.start(forward=False)
    try:
        assert sorted(gateway.hosts) == ["NOG-0101", "NOG-0102"]
        wait_for(lambda: first.rte, what="the mapped machine's session")
        kept = gateway.hosts["NOG-0101"]
        changed = copy.deepcopy(SERVER_MAP)
        changed["machines"][1].update(code="NOG-0103", address=3, denomination=10)
        server.gateway_map = changed
        gateway.map_due.set()  # what a reconnect of the server channel does
        wait_for(lambda: "NOG-0103" in gateway.hosts, what="the new map")
        assert sorted(gateway.hosts) == ["NOG-0101", "NOG-0103"]
        assert gateway.hosts["NOG-0101"] is kept  # unchanged machines keep their session
        wait_for(lambda: later.rte, what="the added machine's session")  # games before it: meters only
        later.play(4)
        wait_for(
            lambda: [
                e for _, e in gateway.store.oldest(100) if e["machine"] == "NOG-0103" and e["type"] == "game"
            ],
            what="a game of the machine the new map added",
        )
        games = [e for _, e in gateway.store.oldest(100) if e["type"] == "game"]
        assert [(e["machine"], e["wager"]) for e in games] == [("NOG-0103", 40)]
    finally:
        gateway.stop()
        server.close()


def test_from_server_flag_turns_a_file_configuration_into_api_mode(tmp_path):
    path = tmp_path / "gateway.toml"
    path.write_text(
        '[server]\nurl = "http://x"\nkey = "k"\n\n[[lines]]\nname = "line-1"\ndevice = "/dev/null"\n'
    )
    from gateway.app import load_config

    assert load_config(str(path)).source == "file"
    assert load_config(str(path), from_server=True).source == "api"


def test_the_api_mode_example_loads():
    from gateway.app import load_config

    config = load_config("gateway/examples/gateway-api.toml")
    assert (config.source, config.config_every) == ("api", 300.0)
    assert [(line.name, line.device, line.machines) for line in config.lines] == [
        ("line-1", "/dev/ttyUSB0", []),
        ("line-2", "/dev/ttyUSB1", []),
    ]
    machines = with_server_map(config, SERVER_MAP).lines[0].machines
    assert [(m.code, m.meters_lp, m.meters_every, m.handpay_limit) for m in machines] == [
        ("NOG-0101", 0x2F, 20, 100000),
        ("NOG-0102", 0x2F, 20, 120000),
    ]
