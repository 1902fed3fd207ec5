"""/healthz latency against a running server.

    .venv/bin/python bench/healthz.py http://127.0.0.1:8000 [--requests N]

Prints the status answered and the latency's median, 95th percentile and maximum over N sequential
requests (after one warm-up), with the machine's load average (it is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import urllib.error
import urllib.request


def healthz_time(url: str) -> tuple[int, float, dict]:
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=10) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
    return status, (time.perf_counter() - started) * 1000, json.loads(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--requests", type=int, default=50)
    args = parser.parse_args()
    healthz_time(args.url)
    runs = [healthz_time(args.url) for _ in range(args.requests)]
    times = sorted(run[1] for run in runs)
    statuses = sorted({run[0] for run in runs})
    print(f"/healthz x {args.requests}: status {statuses}, median {statistics.median(times):.1f} ms, "
          f"p95 {times[int(len(times) * 0.95) - 1]:.1f} ms, max {times[-1]:.1f} ms "
          f"(load {os.getloadavg()[0]:.1f})")  # fmt: skip
    print(f"last answer: {json.dumps(runs[-1][2])}")


if __name__ == "__main__":
    main()
