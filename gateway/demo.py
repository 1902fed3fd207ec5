"""The SAS demo: emulated machines for every SAS machine in the server's map, each line on a pty pair,
and the gateway polling them, until stopped (SIGTERM/SIGINT) or until the process that started it dies.

    python -m gateway.demo --url http://127.0.0.1:8000 --key-file var/gateway-key-nog --folder var/gateway

The machines are the ones the server lists in GET /api/v1/gateway/config (their address, line,
denomination, progressive group, max bet and handpay limit); they play on their own and now and then hit
a progressive level. The gateway runs as its own process with `config = "api"`, logging to the folder.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import tty
from pathlib import Path
from typing import Any

from gateway.egm.config import EgmConfig
from gateway.egm.line import EgmLine
from gateway.egm.machine import Egm
from gateway.servermap import MapUnavailable, fetch_map
from gateway.transport import FdTransport

log = logging.getLogger("gateway.demo")


def map_when_up(url: str, key_file: Path, key_command: str | None, wait: float = 120.0) -> dict[str, Any]:
    """The server's map; the server may still be starting (the demo starts everything at once). A key
    the server refuses (a demo database made anew) is replaced by the output of `key_command`, once."""
    deadline = time.monotonic() + wait
    while True:
        try:
            return fetch_map(url, key_file.read_text().strip())
        except MapUnavailable as exc:
            if "answered 401" in str(exc) and key_command:
                log.warning("the server refused the kept key: issuing a new one")
                key = subprocess.run(key_command, shell=True, check=True, capture_output=True, text=True)
                key_file.write_text(key.stdout.strip() + "\n")
                key_command = None
                continue
            if time.monotonic() > deadline:
                raise
            log.info("waiting for the server: %s", exc)
            time.sleep(2)


def sas_levels(group: dict[str, Any], rule: str) -> list[int]:
    """The group's SAS levels for which the map's `rule` (max_bet_only, mystery) holds."""
    return sorted(int(level) for level, holds in group.get(rule, {}).items() if holds)


def machine_for(entry: dict[str, Any], group: dict[str, Any] | None, seed: int) -> Egm:
    """An emulated machine as the map describes it. Its random hits are on the levels its game can win
    (the group's max_bet_only, min_wager and mystery): a win the server's rules exclude is refused."""
    denomination = int(entry["denomination"])
    group = group or {}
    levels = sorted(int(level) for level in group.get("levels", {}))
    # Bets in whole credits within the machine's range: a bet below its minimum is refused by the server
    # (wager_out_of_range), so the lowest bet is the minimum rounded up to a credit.
    lowest = max(1, -(-int(entry.get("min_bet") or denomination) // denomination))
    top = max(lowest, int(entry.get("max_bet") or denomination) // denomination)
    config = EgmConfig(
        address=int(entry["address"]),
        denomination=denomination,
        games_per_minute=8,
        bet_mix=[(lowest, 3.0), (max(lowest, top // 3), 2.0), (top, 1.0)],
        group=int(entry.get("group") or 0) if levels else 0,
        levels=levels,
        hit_chance=0.002,  # a progressive hit every few minutes on a bank
        max_bet_levels=sas_levels(group, "max_bet_only"),
        min_wager={int(level): int(cents) for level, cents in group.get("min_wager", {}).items()},
        mystery_levels=sas_levels(group, "mystery"),
        handpay_limit=int(entry.get("handpay_limit") or 120_000),
        seed=seed,
    )
    return Egm(config, now=time.monotonic())


def lines_from(answer: dict[str, Any]) -> dict[str, list[Egm]]:
    groups = {int(g["group"]): g for g in answer["groups"]}
    lines: dict[str, list[Egm]] = {}
    for seed, entry in enumerate(answer["machines"]):
        group = groups.get(int(entry.get("group") or 0))
        lines.setdefault(entry["line"], []).append(machine_for(entry, group, seed))
    return lines


def pty_line(machines: list[Egm]) -> tuple[str, EgmLine]:
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    line = EgmLine(FdTransport(master), machines)
    threading.Thread(target=line.run, daemon=True).start()
    return os.ttyname(slave), line


def gateway_toml(url: str, key: str, folder: Path, devices: dict[str, str]) -> str:
    websocket = url.replace("http://", "ws://").replace("https://", "wss://") + f"/ws/gateway/?token={key}"
    text = (
        f'[server]\nurl = "{url}"\nkey = "{key}"\nwebsocket = "{websocket}"\n'
        f'store = "{folder / "events.sqlite3"}"\nconfig = "api"\nconfig_every = 60\n'
    )
    for name, device in devices.items():
        text += f'\n[[lines]]\nname = "{name}"\ndevice = "{device}"\nwakeup = "none"\n'
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gateway.demo", description=__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--key-file", required=True, help="file holding the venue's gateway key")
    parser.add_argument("--folder", default="var/gateway", help="configuration, store and log")
    parser.add_argument("--key-command", help="prints a new gateway key when the kept one is refused")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    parent, folder = os.getppid(), Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    answer = map_when_up(args.url, Path(args.key_file), args.key_command)
    key = Path(args.key_file).read_text().strip()
    if not answer["machines"]:
        log.error("the server lists no SAS machine for this venue: nothing to emulate")
        return 1
    devices = {name: pty_line(machines)[0] for name, machines in lines_from(answer).items()}
    (folder / "gateway.toml").write_text(gateway_toml(args.url, key, folder, devices))
    log.info("%d machines on %d lines: %s", len(answer["machines"]), len(devices), devices)
    with open(folder / "gateway.log", "ab") as out:
        gateway = subprocess.Popen(
            [sys.executable, "-m", "gateway", "--config", str(folder / "gateway.toml")],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    # Stops with its parent even when that one is killed outright (its children are reparented).
    while not done.wait(1.0) and os.getppid() == parent and gateway.poll() is None:
        pass
    gateway.terminate()
    gateway.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
