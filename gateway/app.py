"""The gateway assembled from its configuration: lines, machines, store, forwarder, server channel."""

from __future__ import annotations

import logging
import threading
import tomllib
from dataclasses import dataclass, field, replace
from typing import Any

from gateway.broadcast import FRESH_FOR_SECONDS, GroupBroadcaster, ProgressiveBoard, ServerChannel
from gateway.forward import Forwarder
from gateway.host import MachineHost
from gateway.host_io import Callbacks, Kept, MachineConfig
from gateway.link import QUIET_RESTART, LinePoller, Link, check_intervals
from gateway.queue import EventStore
from gateway.sas import frames as f
from gateway.sas.meters import EXTENDED_METER_LPS
from gateway.servermap import MapUnavailable, current_map, map_copy_path
from gateway.transport import Transport, open_transport

log = logging.getLogger(__name__)


SERVER_MACHINE_FIELDS = ("code", "address", "denomination", "group", "handpay_limit")
METERS_LPS = (f.LP_SELECTED_METERS, *EXTENDED_METER_LPS)


class ConfigError(ValueError):
    """The configuration file says something the gateway cannot do; the message says what."""


@dataclass
class GroupConfig:
    group: int
    levels: dict[int, int]  # SAS level -> server level id
    broadcast_lp: int = f.LP_MULTI_BROADCAST


@dataclass
class LineConfig:
    device: str
    wakeup: str = "parity"
    name: str = ""  # the line's name on the server (machines' `line`); needed with config = "api"
    machines: list[MachineConfig] = field(default_factory=list)
    first_byte: float = 0.05  # s to the first answer byte (SAS says 20 ms; USB adapters need slack)
    gap: float = 0.05


@dataclass
class GatewayConfig:
    server_url: str
    key: str
    store: str
    websocket: str | None = None
    groups: dict[int, GroupConfig] = field(default_factory=dict)
    lines: list[LineConfig] = field(default_factory=list)
    # The periodic refresh: a change goes out at once, this repeats the amounts well inside the machines'
    # 5 s rule and mends a broadcast a machine missed (type G polls are never acknowledged) within 0.5 s.
    broadcast_every: float = 0.5
    fresh_for: float = FRESH_FOR_SECONDS
    source: str = "file"  # "api": machines and groups from GET /api/v1/gateway/config
    config_every: float = 300.0  # s between fetches of the server's map (and on every reconnect)
    machine_defaults: dict[str, Any] = field(default_factory=dict)  # local settings of API machines


def _machine(raw: dict[str, Any], groups: dict[int, GroupConfig]) -> MachineConfig:
    try:
        group = int(raw.get("group", 0))
        if group and group not in groups:
            raise ConfigError(f"machine {raw['code']}: progressive group {group} is not configured")
        if not 1 <= int(raw["address"]) <= 127:
            raise ConfigError(f"machine {raw['code']}: SAS address must be 1-127")
        if int(raw.get("meters_lp", f.LP_SELECTED_METERS)) not in METERS_LPS:
            raise ConfigError(f"machine {raw['code']}: meters_lp must be 0x2F, 0x6F or 0xAF")
        known = set(MachineConfig.__dataclass_fields__) - {"levels"}
        unknown = set(raw) - known
        if unknown:  # a misspelt setting would otherwise silently fall back to its default
            raise ConfigError(f"machine {raw['code']}: unknown settings {', '.join(sorted(unknown))}")
        fields = {**raw, "group": group, "levels": groups[group].levels if group else {}}
        return MachineConfig(**fields)
    except KeyError as exc:
        raise ConfigError(f"machine entry without {exc}") from exc
    except TypeError as exc:  # a required setting missing
        raise ConfigError(f"machine {raw.get('code', '?')}: {exc}") from exc


def parse_groups(raw_groups: list[dict[str, Any]]) -> dict[int, GroupConfig]:
    """`[[groups]]` of the file, or `groups` of the server's map: the same shape."""
    try:
        return {
            int(g["group"]): GroupConfig(
                int(g["group"]),
                {int(k): int(v) for k, v in g["levels"].items()},
                int(g.get("broadcast_lp", 0x86)),
            )
            for g in raw_groups
        }
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ConfigError(f"a progressive group without a valid {exc}") from exc


def _line(raw: dict[str, Any], groups: dict[int, GroupConfig], source: str) -> LineConfig:
    if source == "api" and (raw.get("machines") or not raw.get("name")):
        raise ConfigError(
            f'line {raw.get("device")}: with config = "api" a line has a name and no machines '
            "(the server says which machines are on it)"
        )
    return LineConfig(
        device=raw["device"],
        wakeup=raw.get("wakeup", "parity"),
        name=raw.get("name", ""),
        machines=[_machine(m, groups) for m in raw.get("machines", [])],
        first_byte=float(raw.get("first_byte", 0.05)),
        gap=float(raw.get("gap", 0.05)),
    )


def parse_config(raw: dict[str, Any]) -> GatewayConfig:
    server = raw.get("server", {})
    source = server.get("config", "file")
    if source not in ("file", "api"):
        raise ConfigError(f'[server] config must be "file" or "api", not {source!r}')
    groups = parse_groups(raw.get("groups", []))
    lines = [_line(line, groups, source) for line in raw.get("lines", [])]
    try:
        return GatewayConfig(
            server_url=server["url"],
            key=server["key"],
            store=server.get("store", "gateway-events.sqlite3"),
            websocket=server.get("websocket"),
            groups=groups,
            lines=lines,
            broadcast_every=float(raw.get("broadcast_every", 0.5)),
            fresh_for=float(raw.get("fresh_for", FRESH_FOR_SECONDS)),
            source=source,
            config_every=float(server.get("config_every", 300.0)),
            machine_defaults=dict(raw.get("machine_defaults", {})),
        )
    except KeyError as exc:
        raise ConfigError(f"[server] needs {exc}") from exc


def with_server_map(config: GatewayConfig, answer: dict[str, Any]) -> GatewayConfig:
    """The configuration with the groups and machines of the server's map, on the lines named here.

    A machine on a line this gateway does not drive belongs to another gateway of the venue: skipped.
    Local settings the server does not know (rte, interval, meters_lp, ...) come from
    `[machine_defaults]`; the server's handpay limit wins when it has one.
    """
    groups = parse_groups(answer.get("groups", []))
    by_name: dict[str, list[MachineConfig]] = {line.name: [] for line in config.lines}
    for entry in answer.get("machines", []):
        if entry.get("line") not in by_name:
            log.debug("machine %s is on line %r, not one of ours", entry.get("code"), entry.get("line"))
            continue
        raw = {**config.machine_defaults, **{k: entry[k] for k in SERVER_MACHINE_FIELDS if k in entry}}
        if entry.get("handpay_limit") is None:
            raw.pop("handpay_limit", None)
            raw.update({k: v for k, v in config.machine_defaults.items() if k == "handpay_limit"})
        by_name[entry["line"]].append(_machine(raw, groups))
    lines = [replace(line, machines=by_name[line.name]) for line in config.lines]
    return replace(config, groups=groups, lines=lines)


def load_config(path: str, from_server: bool = False) -> GatewayConfig:
    with open(path, "rb") as fh:
        raw = tomllib.load(fh)
    if from_server:
        raw.setdefault("server", {})["config"] = "api"
    return parse_config(raw)


class GatewayCallbacks(Callbacks):
    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway

    def event(self, machine: str, event: dict[str, Any], kept: Kept | None = None) -> None:
        self.gateway.store.put(machine, event, kept)

    def answer_events(self, machine: str, events: list[dict[str, Any]], kept: Kept | None = None) -> None:
        self.gateway.store.put_all(machine, events, kept)

    def progressive_hit(self, group: int, level: int) -> None:
        self.gateway.board.hit(group, level)

    def open_game_set(self, machine: str, credits: int | None, kept: Kept | None = None) -> None:
        self.gateway.store.open_game_set(machine, credits, kept)

    def open_game(self, machine: str) -> int | None:
        return self.gateway.store.open_game(machine)

    def wins_due_set(self, machine: str, due: bool, kept: Kept | None = None) -> None:
        self.gateway.store.wins_due_set(machine, due, kept)

    def wins_due(self, machine: str) -> bool:
        return self.gateway.store.wins_due(machine)

    def kept(self, machine: str) -> dict[str, bytes]:
        return self.gateway.store.kept(machine)

    def settled(self, machine: str, kind: str) -> None:
        self.gateway.store.settled(machine, kind)

    def last_meters(self, machine: str) -> dict[str, int] | None:
        return self.gateway.store.last_meters(machine)

    def award_received(self, machine: str, award: dict[str, Any]) -> bool:
        new = self.gateway.store.award_add(machine, award)
        if not new or award["state"] == "done":  # a known award: its outcome again, if it has one
            self.send_results(award["award"])
        return new

    def award_saved(self, machine: str, award: dict[str, Any], kept: Kept | None = None) -> None:
        self.gateway.store.award_save(machine, award, kept)
        if award["state"] == "done":
            self.send_results(award["award"])

    def awards(self, machine: str) -> list[dict[str, Any]]:
        return self.gateway.store.awards_open(machine)

    def send_results(self, award: int | None = None) -> None:
        """`award_result` from the store: of `award`, or every one the server has not acknowledged."""
        for result in self.gateway.store.award_results(award):
            self.award_done(result.pop("machine"), result)

    def award_done(self, machine: str, result: dict[str, Any]) -> None:
        if self.gateway.channel is not None:
            self.gateway.channel.send({"type": "award_result", "machine": machine, **result})


class GatewayChannel(ServerChannel):
    """The server channel, with the awards' answers kept in the store until the server recorded them."""

    def __init__(self, url: str, gateway: Gateway) -> None:
        super().__init__(url, gateway.board, gateway.command, self.connected)
        self.gateway = gateway

    def connected(self) -> None:
        self.gateway.map_due.set()  # the machine map may have changed meanwhile
        self.gateway.callbacks.send_results()

    def handle(self, message: dict[str, Any]) -> None:
        kind, award = message.get("type"), message.get("award")
        if kind == "award_recorded" and isinstance(award, int):
            self.gateway.store.award_answered(award)
        elif kind == "error" and isinstance(award, int):
            # Refused (the sentence says why): sent again it would be refused again; a person looks.
            log.error("the server refused the result of award %d: %s", award, message.get("detail"))
            self.gateway.store.award_answered(award)
        super().handle(message)


class Gateway:
    def __init__(self, config: GatewayConfig, transports: dict[str, Transport] | None = None) -> None:
        self.store = EventStore(config.store)
        self.forwarder = Forwarder(self.store, config.server_url, config.key)
        self.board = ProgressiveBoard({}, config.fresh_for)
        self.map_due = threading.Event()  # set on every reconnect of the channel: fetch the map again
        self.map_ok = config.source == "file"
        self.stop_event = threading.Event()
        self.callbacks = GatewayCallbacks(self)
        self.channel = GatewayChannel(config.websocket, self) if config.websocket else None
        self.hosts: dict[str, MachineHost] = {}
        self.pollers: dict[str, LinePoller] = {}  # by device
        self.broadcasters: dict[str, GroupBroadcaster] = {}
        quiet = 0.0 if self.store.run_started() else QUIET_RESTART
        if quiet:
            log.warning("the previous run did not stop cleanly: lines silent for %.1f s", quiet)
        for line in config.lines:
            transport = (transports or {}).get(line.device) or open_transport(line.device, line.wakeup)
            broadcaster = GroupBroadcaster(self.board, {}, config.broadcast_every)
            self.broadcasters[line.device] = broadcaster
            self.pollers[line.device] = LinePoller(
                Link(transport, line.first_byte, line.gap), [], broadcaster, quiet
            )
        self.config = replace(config, groups={}, lines=[replace(line, machines=[]) for line in config.lines])
        if config.source == "api":
            self.refresh_map()
        else:
            self.apply(config)
        self.threads: list[threading.Thread] = []

    def apply(self, config: GatewayConfig) -> None:
        """Put a machine map in place. A machine whose settings did not change keeps its session."""
        for line in config.lines:
            check_intervals(line.machines)
        mapping = {lid: (g.group, lvl) for g in config.groups.values() for lvl, lid in g.levels.items()}
        self.board.set_mapping(mapping, {})
        hosts: dict[str, MachineHost] = {}
        for line in config.lines:
            poller = self.pollers[line.device]
            kept = [self.hosts.get(m.code) for m in line.machines]
            line_hosts = [
                host if host is not None and host.config == m else MachineHost(m, self.callbacks)
                for host, m in zip(kept, line.machines, strict=True)
            ]
            groups = {m.group: config.groups[m.group].broadcast_lp for m in line.machines if m.group}
            self.broadcasters[line.device].groups = groups
            poller.machines = line_hosts
            hosts.update({h.config.code: h for h in line_hosts})
        self.hosts = hosts
        self.config = config

    def refresh_map(self) -> bool:
        """Fetch the server's map (or its local copy) and apply it; False when neither was usable."""
        copy = map_copy_path(self.config.store)
        try:
            answer = current_map(self.config.server_url, self.config.key, copy)
            self.apply(with_server_map(self.config, answer))
        except (MapUnavailable, ConfigError, ValueError) as exc:
            log.error("machine map not applied: %s", exc)
            return False
        self.map_ok = True
        return True

    def map_loop(self) -> None:
        while not self.stop_event.is_set():
            # Until a first map is in place, ask again soon: the gateway has no machines to poll.
            self.map_due.wait(self.config.config_every if self.map_ok else 5.0)
            if self.stop_event.is_set():
                return
            self.map_due.clear()
            self.refresh_map()

    def command(self, message: dict[str, Any]) -> None:
        """A command from the server: pay a mystery award, or reset a handpay remotely."""
        host = self.hosts.get(message.get("machine", ""))
        if host is None:
            log.error("command for unknown machine: %s", message)
            return
        if message["type"] == "award":
            if not isinstance(message.get("award"), int) or not isinstance(message.get("amount"), int):
                log.error("award without an integer id and amount: %s", message)
                return
            host.award({"award": message["award"], "amount": message["amount"]})
        else:
            host.handpay_reset()

    def start(self, forward: bool = True) -> None:
        runners = [p.run for p in self.pollers.values()] + ([self.forwarder.run] if forward else [])
        runners += [self.channel.run] if self.channel else []
        runners += [self.map_loop] if self.config.source == "api" else []
        for run in runners:
            thread = threading.Thread(target=run, daemon=True)
            thread.start()
            self.threads.append(thread)

    def stop(self) -> None:
        self.stop_event.set()
        self.map_due.set()
        for poller in self.pollers.values():
            poller.stop.set()
        self.forwarder.stop.set()
        if self.channel:
            self.channel.stop.set()
        for thread in self.threads:
            thread.join(timeout=5)
        if not any(thread.is_alive() for thread in self.threads):  # no exchange cut in the middle
            self.store.run_stopped()
        self.forwarder.close()
        self.store.close()
