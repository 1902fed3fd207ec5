"""The gateway assembled from its configuration: lines, machines, store, forwarder, server channel."""

from __future__ import annotations

import logging
import threading
import tomllib
from dataclasses import dataclass, field
from typing import Any

from gateway.broadcast import GroupBroadcaster, ProgressiveBoard, ServerChannel
from gateway.forward import Forwarder
from gateway.host import Callbacks, MachineConfig, MachineHost
from gateway.link import LinePoller, Link
from gateway.queue import EventStore
from gateway.sas import frames as f
from gateway.transport import Transport, open_transport

log = logging.getLogger(__name__)


METERS_LPS = (f.LP_SELECTED_METERS, *f.EXTENDED_METER_LPS)


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
    broadcast_every: float = 1.0
    fresh_for: float = 12.0


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


def parse_config(raw: dict[str, Any]) -> GatewayConfig:
    server = raw.get("server", {})
    groups = {
        int(g["group"]): GroupConfig(
            int(g["group"]),
            {int(k): int(v) for k, v in g["levels"].items()},
            int(g.get("broadcast_lp", 0x86)),
        )
        for g in raw.get("groups", [])
    }
    lines = [
        LineConfig(
            device=line["device"],
            wakeup=line.get("wakeup", "parity"),
            machines=[_machine(m, groups) for m in line.get("machines", [])],
            first_byte=float(line.get("first_byte", 0.05)),
            gap=float(line.get("gap", 0.05)),
        )
        for line in raw.get("lines", [])
    ]
    try:
        return GatewayConfig(
            server_url=server["url"],
            key=server["key"],
            store=server.get("store", "gateway-events.sqlite3"),
            websocket=server.get("websocket"),
            groups=groups,
            lines=lines,
            broadcast_every=float(raw.get("broadcast_every", 1.0)),
            fresh_for=float(raw.get("fresh_for", 12.0)),
        )
    except KeyError as exc:
        raise ConfigError(f"[server] needs {exc}") from exc


def load_config(path: str) -> GatewayConfig:
    with open(path, "rb") as fh:
        return parse_config(tomllib.load(fh))


class GatewayCallbacks(Callbacks):
    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway

    def event(self, machine: str, event: dict[str, Any]) -> None:
        self.gateway.store.put(machine, event)

    def progressive_hit(self, group: int, level: int) -> None:
        self.gateway.board.hit(group, level)

    def award_done(self, machine: str, award: dict[str, Any]) -> None:
        if self.gateway.channel is not None:
            self.gateway.channel.send({"type": "award_result", "machine": machine, **award})


class Gateway:
    def __init__(self, config: GatewayConfig, transports: dict[str, Transport] | None = None) -> None:
        self.config = config
        self.store = EventStore(config.store)
        self.forwarder = Forwarder(self.store, config.server_url, config.key)
        mapping = {lid: (g.group, lvl) for g in config.groups.values() for lvl, lid in g.levels.items()}
        self.board = ProgressiveBoard(mapping, config.fresh_for)
        self.channel = ServerChannel(config.websocket, self.board, self.command) if config.websocket else None
        callbacks = GatewayCallbacks(self)
        self.hosts: dict[str, MachineHost] = {}
        self.pollers: list[LinePoller] = []
        for line in config.lines:
            transport = (transports or {}).get(line.device) or open_transport(line.device, line.wakeup)
            hosts = [MachineHost(m, callbacks) for m in line.machines]
            self.hosts.update({h.config.code: h for h in hosts})
            groups = {m.group: config.groups[m.group].broadcast_lp for m in line.machines if m.group}
            broadcaster = GroupBroadcaster(self.board, groups, config.broadcast_every) if groups else None
            self.pollers.append(LinePoller(Link(transport, line.first_byte, line.gap), hosts, broadcaster))
        self.threads: list[threading.Thread] = []

    def command(self, message: dict[str, Any]) -> None:
        """A command from the server: pay a mystery award, or reset a handpay remotely."""
        host = self.hosts.get(message.get("machine", ""))
        if host is None:
            log.error("command for unknown machine: %s", message)
            return
        if message["type"] == "award":
            host.award({"award": message.get("award"), "amount": int(message["amount"])})
        else:
            host.handpay_reset()

    def start(self, forward: bool = True) -> None:
        runners = [p.run for p in self.pollers] + ([self.forwarder.run] if forward else [])
        runners += [self.channel.run] if self.channel else []
        for run in runners:
            thread = threading.Thread(target=run, daemon=True)
            thread.start()
            self.threads.append(thread)

    def stop(self) -> None:
        for poller in self.pollers:
            poller.stop.set()
        self.forwarder.stop.set()
        if self.channel:
            self.channel.stop.set()
        for thread in self.threads:
            thread.join(timeout=5)
        self.forwarder.close()
        self.store.close()
