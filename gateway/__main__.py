"""python -m gateway --config gateway.toml: poll the configured SAS lines until stopped (SIGINT/SIGTERM)."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

from gateway.app import ConfigError, Gateway, load_config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gateway", description=__doc__)
    parser.add_argument("--config", required=True, help="TOML file: server, groups, lines and machines")
    parser.add_argument(
        "--line",
        action="append",
        default=[],
        metavar="DEVICE",
        help="only these lines of the configuration (device paths); default: all",
    )
    parser.add_argument(
        "--from-server",
        action="store_true",
        help='machines and groups from GET /api/v1/gateway/config (as [server] config = "api")',
    )
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        config = load_config(args.config, from_server=args.from_server)
    except (OSError, ValueError, ConfigError) as exc:
        print(f"gateway: {exc}", file=sys.stderr)
        return 2
    if args.line:
        unknown = set(args.line) - {line.device for line in config.lines}
        if unknown:
            print(
                f"gateway: no such line in the configuration: {', '.join(sorted(unknown))}", file=sys.stderr
            )
            return 2
        config.lines = [line for line in config.lines if line.device in args.line]
    gateway = Gateway(config)
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    gateway.start()
    done.wait()
    gateway.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
