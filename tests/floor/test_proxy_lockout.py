"""Login lockouts hold behind a proxy (issue 28, finding 1): uvicorn started as the Dockerfile starts it
believes X-Forwarded-For only from FORWARDED_ALLOW_IPS and takes its right-most untrusted entry, and
django-axes locks a username across addresses and an address across usernames."""

from __future__ import annotations

import re

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured

from bench.stack import ROOT
from config.env import env_proxies
from tests.served import admin_login, dockerfile_server  # noqa: F401

pytestmark = pytest.mark.postgres
PASSWORD = "the-right-password-17"


def login(url: str, username: str, password: str, forwarded_for: str) -> int:
    return admin_login(url, username, password, forwarded_for)[0]


def staff(username: str) -> None:
    get_user_model().objects.create_user(username, password=PASSWORD, is_staff=True, is_superuser=True)


def test_a_client_written_forwarded_for_is_not_its_address_but_the_appended_one(dockerfile_server) -> None:  # noqa: F811
    # The client writes a new address each time; the proxy (loopback, trusted) appends the one it saw.
    staff("manager")
    proxied = [f"198.51.100.{i}, 203.0.113.7" for i in range(8)]
    answers = [login(dockerfile_server, "manager", f"wrong-{i}", proxied[i]) for i in range(8)]
    assert answers == [200] * 4 + [429] * 4
    assert list(AccessAttempt.objects.values_list("ip_address", flat=True).distinct()) == ["203.0.113.7"]
    assert login(dockerfile_server, "manager", PASSWORD, "198.51.100.99, 203.0.113.7") == 429


def test_a_username_is_locked_across_addresses(dockerfile_server) -> None:  # noqa: F811
    # A guesser with many real addresses: each attempt from a new one.
    staff("manager")
    answers = [login(dockerfile_server, "manager", f"wrong-{i}", f"198.51.100.{i}") for i in range(8)]
    assert answers == [200] * 4 + [429] * 4
    assert login(dockerfile_server, "manager", PASSWORD, "192.0.2.250") == 429
    # Another manager is not locked (nor is that address).
    staff("deputy")
    assert login(dockerfile_server, "deputy", PASSWORD, "192.0.2.251") == 302


def test_a_spray_of_30_usernames_from_one_address_locks_the_address(dockerfile_server) -> None:  # noqa: F811
    for i in range(30):
        staff(f"clerk{i}")
    answers = [login(dockerfile_server, f"clerk{i}", "Venezia2026!", "203.0.113.8") for i in range(30)]
    assert answers == [200] * 4 + [429] * 26
    # The right password from that address is refused too; from another address it logs in.
    assert login(dockerfile_server, "clerk29", PASSWORD, "203.0.113.8") == 429
    assert login(dockerfile_server, "clerk29", PASSWORD, "203.0.113.9") == 302


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
