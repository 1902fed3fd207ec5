"""On the embedded default the signs hear the floor ticker (the ticker runs inside the server).

A real server process on SQLite with no Redis, started as ``make run`` starts it (``FLOOR_TICKER_IN_SERVER``,
uvicorn's lifespan on): one game at a time on a quiet floor, and the sign sees each one's new amount.
With the ticker in a process of its own, the amounts went to a channel layer no sign listened to."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import websockets

from bench.stack import BIN, ROOT, free_port

GAMES = 3
SPACING_SECONDS = 4.0


MANAGE_EACH = """
import io, json, sys
import django
from django.core.management import call_command
django.setup()
outputs = []
for args in json.loads(sys.argv[1]):
    out = io.StringIO()
    call_command(*args, stdout=out)
    outputs.append(out.getvalue().strip())
print(json.dumps(outputs))
"""


def _manage_each(env: dict[str, str], *commands: list[str]) -> list[str]:
    """Runs each management command in turn in one process; returns what each printed."""
    done = subprocess.run(
        [str(BIN / "python"), "-c", MANAGE_EACH, json.dumps(commands)],
        cwd=ROOT,
        env=env | {"DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def embedded_server(tmp_path: Path):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")
    }
    env |= {
        "DEBUG": "1",
        "SECRET_KEY": "test-ticker-in-server-" + "x" * 40,
        "SQLITE_PATH": str(tmp_path / "floor.sqlite3"),
        "ENGINE_SETTLE_MILLISECONDS": "250",
    }
    # The four commands in one process: each would pay Django's start again.
    key, token = _manage_each(
        env, ["migrate", "-v0"], ["seed_venezia", "--machines-per-room", "1"], ["issue_key", "NOG-0001"],
        ["issue_screen_token", "nog-1"],
    )[-2:]  # fmt: skip
    port = free_port()
    log = open(tmp_path / "uvicorn.log", "wb")  # noqa: SIM115 - closed below, after the process
    process = subprocess.Popen(
        [
            *(str(BIN / "uvicorn"), "config.asgi:application", "--host", "127.0.0.1"),
            *("--port", str(port), "--lifespan", "on"),
        ],
        cwd=ROOT,
        env=env | {"FLOOR_TICKER_IN_SERVER": "1"},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, (tmp_path / "uvicorn.log").read_text()
            try:
                httpx.get(f"{url}/healthz", timeout=2)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "the server did not answer in 30 s"
                time.sleep(0.2)
        yield url, key, token
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


async def _play_and_watch(url: str, key: str, token: str) -> list[tuple[int, list[int]]]:
    """Posts GAMES max-bet games of NOG-0001 one after another, each once the sign has heard the one before
    (or after SPACING_SECONDS without a word); returns, for each, the level seqs of the first update frame
    the sign received after it."""
    seen: list[tuple[int, list[int]]] = []
    socket_url = url.replace("http", "ws") + f"/ws/signage/nog-1/?token={token}"
    async with websockets.connect(socket_url) as sign, httpx.AsyncClient(base_url=url) as client:
        snapshot = json.loads(await asyncio.wait_for(sign.recv(), 10))
        assert snapshot["type"] == "snapshot"
        for seq in range(1, GAMES + 1):
            event = {
                "machine": "NOG-0001",
                "seq": seq,
                "at": datetime.now(UTC).isoformat(),
                "type": "game",
                "wager": 450,
                "win": 0,
            }
            answer = await client.post(
                "/api/v1/events", json={"events": [event]}, headers={"Authorization": f"Bearer {key}"}
            )
            assert answer.json()["accepted"] == 1
            updates: list[int] = []
            deadline = time.monotonic() + SPACING_SECONDS
            while time.monotonic() < deadline:
                try:
                    frame = json.loads(await asyncio.wait_for(sign.recv(), deadline - time.monotonic()))
                except TimeoutError:
                    break
                if frame["type"] == "update":
                    updates.extend(level["seq"] for level in frame["levels"])
                    break  # heard: the next game may follow (the floor stays quiet: one game at a time)
            seen.append((seq, updates))
    return seen


def test_a_sign_on_the_embedded_default_sees_every_game_of_a_quiet_floor(embedded_server) -> None:
    url, key, token = embedded_server
    seen = asyncio.run(_play_and_watch(url, key, token))
    assert [seq for seq, updates in seen if not updates] == []
    assert len(seen) == GAMES
