"""Login lockouts hold behind a proxy (issue 28, finding 1): uvicorn started as the Dockerfile starts it
believes X-Forwarded-For only from FORWARDED_ALLOW_IPS and takes its right-most untrusted entry, and
django-axes locks a username across addresses and an address across usernames."""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.db import connection

from bench.stack import BIN, ROOT, free_port
from config.env import env_proxies

pytestmark = pytest.mark.postgres
PASSWORD = "the-right-password-17"


def dockerfile_command_and_env() -> tuple[list[str], dict[str, str]]:
    """The Dockerfile's CMD (JSON form, continued lines joined) and the variables its ENV lines set."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    command = json.loads(re.search(r"^CMD (\[.*\])$", text, re.MULTILINE).group(1))
    env: dict[str, str] = {}
    for line in re.findall(r"^ENV (.*)$", text, re.MULTILINE):
        env |= dict(re.findall(r"(\w+)=(\S+)", line))
    return command, env


@pytest.fixture
def server(transactional_db, tmp_path: Path) -> Iterator[str]:
    """uvicorn as the Dockerfile starts it, on a free loopback port, serving the test database."""
    command, image_env = dockerfile_command_and_env()
    port = free_port()
    args = [str(BIN / command[0]), *command[1:]]
    args[args.index("--host") + 1] = "127.0.0.1"
    args[args.index("--port") + 1] = str(port)
    db = connection.settings_dict
    env = {
        **__import__("os").environ,
        **image_env,
        "DJANGO_SETTINGS_MODULE": "config.test_settings",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "DATABASE_POOL_SIZE": "0",
    }
    log = open(tmp_path / "uvicorn.log", "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen(args, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, (tmp_path / "uvicorn.log").read_text()
            try:
                requests.get(f"{url}/healthz", timeout=2)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline, "uvicorn did not answer in 30 s"
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


def login(url: str, username: str, password: str, forwarded_for: str) -> int:
    """One admin login through a proxy that wrote ``forwarded_for``; the answer's status."""
    session = requests.Session()
    page = session.get(f"{url}/admin/login/", timeout=10)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    answer = session.post(
        f"{url}/admin/login/?next=/admin/",
        data={"csrfmiddlewaretoken": token, "username": username, "password": password, "next": "/admin/"},
        headers={"X-Forwarded-For": forwarded_for, "Referer": f"{url}/admin/login/"},
        allow_redirects=False,
        timeout=10,
    )
    return answer.status_code


def staff(username: str) -> None:
    get_user_model().objects.create_user(username, password=PASSWORD, is_staff=True, is_superuser=True)


def test_a_client_written_forwarded_for_is_not_its_address_the_proxy_appended_one_is(server) -> None:
    # The client writes a new address each time; the proxy (loopback, trusted) appends the one it saw.
    staff("manager")
    answers = [login(server, "manager", f"wrong-{i}", f"198.51.100.{i}, 203.0.113.7") for i in range(8)]
    assert answers == [200] * 4 + [429] * 4
    assert list(AccessAttempt.objects.values_list("ip_address", flat=True).distinct()) == ["203.0.113.7"]
    assert login(server, "manager", PASSWORD, "198.51.100.99, 203.0.113.7") == 429


def test_a_username_is_locked_across_addresses(server) -> None:
    # A guesser with many real addresses: each attempt from a new one.
    staff("manager")
    answers = [login(server, "manager", f"wrong-{i}", f"198.51.100.{i}") for i in range(8)]
    assert answers == [200] * 4 + [429] * 4
    assert login(server, "manager", PASSWORD, "192.0.2.250") == 429
    # Another manager is not locked (nor is that address).
    staff("deputy")
    assert login(server, "deputy", PASSWORD, "192.0.2.251") == 302


def test_a_spray_of_30_usernames_from_one_address_locks_the_address(server) -> None:
    for i in range(30):
        staff(f"clerk{i}")
    answers = [login(server, f"clerk{i}", "Venezia2026!", "203.0.113.8") for i in range(30)]
    assert answers == [200] * 4 + [429] * 26
    # The right password from that address is refused too; from another address it logs in.
    assert login(server, "clerk29", PASSWORD, "203.0.113.8") == 429
    assert login(server, "clerk29", PASSWORD, "203.0.113.9") == 302


@pytest.mark.parametrize("raw", ["*", "127.0.0.1,*", "proxy.local", "10.0.0.0/33", " , "])
def test_forwarded_allow_ips_refuses_a_wildcard_and_what_is_not_an_address(monkeypatch, raw) -> None:
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", raw)
    with pytest.raises(ImproperlyConfigured, match="FORWARDED_ALLOW_IPS must list"):
        env_proxies()


def test_forwarded_allow_ips_takes_addresses_and_networks(monkeypatch) -> None:
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "10.0.0.5, 172.18.0.0/16,::1")
    assert env_proxies() == ["10.0.0.5", "172.18.0.0/16", "::1"]


def test_nothing_shipped_trusts_every_address() -> None:
    for name in ("Dockerfile", "docker-compose.yml", "scripts/run", "scripts/demo-gateway", "Makefile"):
        text = (ROOT / name).read_text()
        assert not re.search(r"forwarded-allow-ips\W+\*|FORWARDED_ALLOW_IPS\W+\*", text), name
