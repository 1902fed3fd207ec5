"""Reading settings from the environment.

Every reader raises ImproperlyConfigured with a sentence that names the variable, so a bad deployment
stops at start-up instead of failing on the first request.
"""

from __future__ import annotations

import ipaddress
import os
from decimal import Decimal, InvalidOperation
from urllib.parse import urlparse

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false (1/0, yes/no, on/off), not {raw!r}.")


def env_int(name: str, default: int, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {raw!r}.") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}.")
    return value


def env_decimal(name: str, default: str) -> Decimal:
    raw = os.environ.get(name, default)
    try:
        return Decimal(raw)
    except InvalidOperation:
        raise ImproperlyConfigured(f"{name} must be a decimal number, not {raw!r}.") from None


def env_choice(name: str, default: str, choices: list[str] | tuple[str, ...]) -> str:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if raw not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, not {raw!r}.")
    return raw


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_proxies(name: str = "FORWARDED_ALLOW_IPS", default: str = "127.0.0.1,::1") -> list[str]:
    """The addresses or networks of the proxies whose X-Forwarded-For and X-Forwarded-Proto are believed.

    uvicorn --proxy-headers reads the same variable and takes the right-most X-Forwarded-For entry that is
    not one of these: the address the last trusted proxy saw. ``*`` is refused, because with it uvicorn
    believes the left-most entry, which the client writes itself (a login lockout by address is then
    bypassed by changing the header on every attempt)."""
    raw = os.environ.get(name, default)
    entries = [item.strip() for item in raw.split(",") if item.strip()]
    if not entries:
        raise ImproperlyConfigured(f"{name} must list at least one proxy address, such as 127.0.0.1.")
    for entry in entries:
        if entry == "*":
            raise ImproperlyConfigured(
                f"{name} must list the proxies' addresses or networks, not '*': with '*' a client "
                "chooses its own address by writing X-Forwarded-For."
            )
        try:
            ipaddress.ip_network(entry, strict=False) if "/" in entry else ipaddress.ip_address(entry)
        except ValueError:
            raise ImproperlyConfigured(
                f"{name} must list IP addresses or networks (10.0.0.5, 10.0.0.0/24), not {entry!r}."
            ) from None
    return entries


def env_database(name: str = "DATABASE_URL") -> dict | None:
    """The PostgreSQL database from NAME, or None when unset (the embedded SQLite default)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    scheme = urlparse(raw).scheme
    if scheme not in {"postgres", "postgresql", "pgsql"}:
        raise ImproperlyConfigured(
            f"{name} must be a postgres:// URL such as postgres://user@127.0.0.1:5432/progressivo, "
            f"not one with scheme {scheme or '(none)'!r}."
        )
    try:
        config = dj_database_url.parse(raw, conn_max_age=60, conn_health_checks=True)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} is not a valid database URL: {exc}.") from None
    if not config.get("NAME"):
        raise ImproperlyConfigured(f"{name} must name a database after the host, as in .../progressivo.")
    return config


def env_redis(name: str = "REDIS_URL") -> str | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    parsed = urlparse(raw)
    if parsed.scheme not in {"redis", "rediss"} or not parsed.hostname:
        raise ImproperlyConfigured(
            f"{name} must be a redis:// URL such as redis://127.0.0.1:6379/0, not {raw!r}."
        )
    try:
        parsed.port  # noqa: B018 - urlparse validates the port lazily
    except ValueError:
        raise ImproperlyConfigured(f"{name} has an invalid port: {raw!r}.") from None
    return raw


def channel_layer_prefix(redis_url: str, installation: str) -> str:
    """The channel layer's name prefix for one installation. Redis pub/sub channels ignore the database
    number, so two installations sharing a Redis server would otherwise hear each other's group messages:
    the prefix carries the URL's database (``/1`` or ``?db=1``) and the installation's name."""
    from redis.connection import parse_url

    return f"{installation}.db{parse_url(redis_url).get('db', 0)}."
