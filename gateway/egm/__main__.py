"""python -m gateway.egm: emulate SAS slot machines on a serial port or a new pseudo-terminal.

Commands on standard input, one a line (ADDR is the machine's SAS address):
  play ADDR BET | hit ADDR LEVEL | door ADDR open|close | power ADDR off|on | key ADDR | show ADDR
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import tomllib
import tty
from collections.abc import Callable

from gateway.egm.config import EgmConfig
from gateway.egm.line import EgmLine
from gateway.egm.machine import Egm
from gateway.transport import FdTransport, SerialTransport, Transport


def machines_from(path: str) -> list[Egm]:
    with open(path, "rb") as fh:
        raw = tomllib.load(fh)
    machines = []
    for raw_entry in raw.get("machines", []):
        entry = dict(raw_entry)
        # TOML has arrays, the config wants (credits, weight) pairs
        entry["bet_mix"] = [tuple(pair) for pair in entry.get("bet_mix", [(1, 1.0)])]
        if "pays" in entry:
            entry["pays"] = [tuple(pair) for pair in entry["pays"]]
        machines.append(Egm(EgmConfig(**entry), now=time.monotonic()))
    return machines


def command(machines: dict[int, Egm], words: list[str]) -> str:
    verb, address, *rest = words
    egm = machines[int(address)]
    now = time.monotonic()
    actions: dict[str, Callable[[], object]] = {
        "play": lambda: egm.play(int(rest[0])),
        "hit": lambda: egm.hit(int(rest[0])),
        "door": lambda: egm.open_door() if rest[0] == "open" else egm.close_door(),
        "power": lambda: egm.power_off() if rest[0] == "off" else egm.power_on(now),
        "key": egm.reset_handpay,
        "show": lambda: {"meters": egm.meters, "displayed": egm.displayed, "handpay": egm.handpay},
    }
    return str(actions[verb]())


def open_line(args: argparse.Namespace) -> Transport:
    if args.device:
        return SerialTransport(args.device) if args.wakeup == "parity" else FdTransport.open(args.device)
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    print(f"line: {os.ttyname(slave)}", flush=True)  # give this path to the gateway (wakeup = "none")
    return FdTransport(master)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gateway.egm",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", required=True, help="TOML file with [[machines]] (EgmConfig fields)")
    parser.add_argument("--device", help="serial port; without it a pseudo-terminal is created")
    parser.add_argument("--wakeup", choices=["parity", "none"], default="parity")
    args = parser.parse_args(argv)
    machines = machines_from(args.config)
    line = EgmLine(open_line(args), machines)
    threading.Thread(target=line.run, daemon=True).start()
    by_address = {m.address: m for m in machines}
    for text in sys.stdin:
        if text.split():
            try:
                print(command(by_address, text.split()), flush=True)
            except (KeyError, IndexError, ValueError) as exc:
                print(f"? {exc!r}: {__doc__.splitlines()[-1].strip()}", flush=True)
    line.stop.set()
    return 0


if __name__ == "__main__":
    sys.exit(main())
