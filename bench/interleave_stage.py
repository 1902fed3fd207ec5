"""What some benchmarks need around them, made in one checkout: run by bench/interleave.py with that
checkout's Python, in its directory, and with it on PYTHONPATH, so the checkout's own migrations, seed and
bench/stack.py are the ones used (this file may not exist in the older checkout).

    python bench/interleave_stage.py floor -- CMD...   # a database migrated and seeded with the demo floor
    python bench/interleave_stage.py server -- CMD...  # the same without the seed, served by uvicorn, a
                                                       # Celery worker and beat; {url} in CMD is the server

DATABASE_URL names the database to create (dropped first if a failed run left it, and at the end);
REDIS_URL the Redis db of the server. CMD runs with both and production's settings (DEBUG off), its
output passes through, and the exit status is CMD's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from urllib.parse import urlparse

# This file's directory holds modules named like the project's apps (tables.py, signage.py): off the path.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    sys.path.pop(0)

# Production settings for the served stack, as bench/ingest.py serves them.
SERVER_ENV = {
    "DJANGO_SETTINGS_MODULE": "config.settings",
    "DEBUG": "0",
    "SECRET_KEY": "benchmark-secret-key-0123456789-abcdefghijklmnop",
    "ALLOWED_HOSTS": "127.0.0.1",
    "SECURE_SSL_REDIRECT": "0",
    "LOG_LEVEL": "WARNING",
    "DATABASE_POOL_SIZE": "4",
}


def database_recreate(database_url: str, drop_only: bool = False) -> None:
    import psycopg

    name = urlparse(database_url).path.lstrip("/")
    admin = urlparse(database_url)._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            conn.execute(f'CREATE DATABASE "{name}"')


def manage(*args: str) -> None:
    env = {**os.environ, "DATABASE_STATEMENT_TIMEOUT_SECONDS": "0"}
    subprocess.run([sys.executable, "manage.py", *args], check=True, env=env, stdout=subprocess.DEVNULL)


def health_wait(url: str, timeout: float = 60) -> None:
    """Until /healthz says ok: the worker's and beat's first heartbeats are in."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    print(f"warning: {url}/healthz not ok after {timeout:.0f} s", file=sys.stderr)


def served(command: list[str], database_url: str, redis_url: str) -> int:
    from bench.stack import BIN, Stack

    stack = Stack(database_url=database_url, redis_url=redis_url, settings_module="config.settings")
    with tempfile.TemporaryDirectory() as work, stack:
        stack._spawn(
            "beat",
            [str(BIN / "celery"), "-A", "config", "beat", "--loglevel", "WARNING",
             "--schedule", os.path.join(work, "celerybeat-schedule")],
        )  # fmt: skip
        health_wait(stack.url)
        return subprocess.run([part.replace("{url}", stack.url) for part in command], check=False).returncode


def main() -> int:
    mode, separator, *command = sys.argv[1:]
    if mode not in ("floor", "server") or separator != "--" or not command:
        sys.exit(__doc__)
    # Stopped from outside (interleave.py's timeout, Ctrl-C): still stop the stack and drop the database.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    database_url, redis_url = os.environ["DATABASE_URL"], os.environ["REDIS_URL"]
    os.environ.update(SERVER_ENV)  # production's settings for the migration, the seed and CMD too
    database_recreate(database_url)
    try:
        manage("migrate", "--no-input", "-v0")
        if mode == "floor":
            manage("seed_venezia")
            return subprocess.run(command, check=False).returncode
        return served(command, database_url, redis_url)
    finally:
        database_recreate(database_url, drop_only=True)


if __name__ == "__main__":
    sys.exit(main())
