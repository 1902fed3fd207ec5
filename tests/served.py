"""uvicorn started as the Dockerfile starts it (its CMD and ENV), on a free loopback port, serving the test
database: for the tests that must see what a browser or a client sees over the real server."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests
from django.db import connection

from bench.stack import BIN, ROOT, free_port


def dockerfile_command_and_env() -> tuple[list[str], dict[str, str]]:
    """The Dockerfile's CMD (JSON form, continued lines joined) and the variables its ENV lines set."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    command = json.loads(re.search(r"^CMD (\[.*\])$", text, re.MULTILINE).group(1))
    env: dict[str, str] = {}
    for line in re.findall(r"^ENV (.*)$", text, re.MULTILINE):
        env |= dict(re.findall(r"(\w+)=(\S+)", line))
    return command, env


@pytest.fixture
def dockerfile_server(transactional_db, tmp_path: Path) -> Iterator[str]:
    """The server's URL; what the test writes to the database is committed, so the server sees it."""
    with dockerfile_served(tmp_path) as url:
        yield url


@contextmanager
def dockerfile_served(log_dir: Path) -> Iterator[str]:
    """uvicorn as the Dockerfile starts it, serving the test database, for as long as the block lasts (a
    module's tests that only read share one: tests/workspace/test_floor_socket_path.py)."""
    command, image_env = dockerfile_command_and_env()
    port = free_port()
    args = [str(BIN / command[0]), *command[1:]]
    args[args.index("--host") + 1] = "127.0.0.1"
    args[args.index("--port") + 1] = str(port)
    db = connection.settings_dict
    env = {
        **os.environ,
        **image_env,
        "DJANGO_SETTINGS_MODULE": "config.test_settings",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "DATABASE_POOL_SIZE": "0",
    }
    log_path = log_dir / "uvicorn.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(args, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                assert process.poll() is None, log_path.read_text()
                try:
                    requests.get(f"{url}/healthz", timeout=2)
                    break
                except requests.RequestException:
                    assert time.monotonic() < deadline, "uvicorn did not answer in 30 s"
                    time.sleep(0.2)
            yield url
        finally:
            process.terminate()
            process.wait(timeout=10)


def admin_login(
    url: str, username: str, password: str, forwarded_for: str | None = None
) -> tuple[int, requests.Session]:
    """One admin login (through a proxy that wrote ``forwarded_for``): the answer's status and the session."""
    session = requests.Session()
    page = session.get(f"{url}/admin/login/", timeout=10)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    headers = {"Referer": f"{url}/admin/login/"}
    if forwarded_for is not None:
        headers["X-Forwarded-For"] = forwarded_for
    answer = session.post(
        f"{url}/admin/login/?next=/admin/",
        data={"csrfmiddlewaretoken": token, "username": username, "password": password, "next": "/admin/"},
        headers=headers,
        allow_redirects=False,
        timeout=10,
    )
    return answer.status_code, session
