"""Settings come from the environment; a bad value stops start-up with a sentence naming the variable."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_choice, env_database, env_decimal, env_int, env_list, env_redis

ROOT = Path(__file__).resolve().parents[2]


def _manage(args: list[str], env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    """Runs manage.py with only the given environment (plus PATH and an SQLite file in tmp_path)."""
    base = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "SQLITE_PATH": str(tmp_path / "db.sqlite3"),
        "ENV_FILE": "",  # not the checkout's local settings file: only what the test gives
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "progressivo.casinovenezia.example",
}


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("DATABASE_URL", "mysql://root@127.0.0.1/progressivo", "DATABASE_URL must be a postgres:// URL"),
        ("REDIS_URL", "http://127.0.0.1:6379/0", "REDIS_URL must be a redis:// URL"),
        ("DEBUG", "maybe", "DEBUG must be true or false"),
        ("MACHINE_OFFLINE_AFTER_SECONDS", "thirty", "MACHINE_OFFLINE_AFTER_SECONDS must be a whole number"),
        ("LOG_LEVEL", "LOUD", "LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL, not 'LOUD'"),
    ],
)
def test_a_bad_value_stops_start_up_naming_the_variable(
    tmp_path: Path, variable: str, value: str, message: str
) -> None:
    result = _manage(["check"], {**PRODUCTION, variable: value}, tmp_path)

    assert result.returncode == 1
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr


def test_production_settings_pass_the_deployment_checks(tmp_path: Path) -> None:
    result = _manage(["check", "--deploy", "--fail-level", "WARNING"], PRODUCTION, tmp_path)

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "System check identified no issues (0 silenced)."


def test_secret_key_is_required_when_debug_is_off(tmp_path: Path) -> None:
    result = _manage(["check"], {"DEBUG": "0", "ALLOWED_HOSTS": "x.example"}, tmp_path)
    assert result.returncode == 1
    assert "SECRET_KEY must be set" in result.stderr


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("mysql://root@db/progressivo", "DATABASE_URL must be a postgres:// URL"),
        ("progressivo", "DATABASE_URL must be a postgres:// URL"),
        ("postgres://postgres@127.0.0.1:5432/", "DATABASE_URL must name a database"),
        ("postgres://postgres@127.0.0.1:port/progressivo", "DATABASE_URL is not a valid database URL"),
    ],
)
def test_bad_database_urls(monkeypatch: pytest.MonkeyPatch, raw: str, message: str) -> None:
    monkeypatch.setenv("DATABASE_URL", raw)
    with pytest.raises(ImproperlyConfigured, match=message):
        env_database("DATABASE_URL")


def test_database_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres://postgres:secret@db.internal:5433/progressivo")
    config = env_database("DATABASE_URL")
    assert (config["ENGINE"], config["NAME"], config["USER"], config["PASSWORD"]) == (
        "django.db.backends.postgresql", "progressivo", "postgres", "secret"
    )  # fmt: skip
    assert (config["HOST"], config["PORT"]) == ("db.internal", 5433)
    monkeypatch.setenv("DATABASE_URL", "")
    assert env_database("DATABASE_URL") is None


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("http://127.0.0.1:6379/0", "REDIS_URL must be a redis:// URL"),
        ("redis://", "REDIS_URL must be a redis:// URL"),
        ("redis://127.0.0.1:sixty/0", "REDIS_URL has an invalid port"),
    ],
)
def test_bad_redis_urls(monkeypatch: pytest.MonkeyPatch, raw: str, message: str) -> None:
    monkeypatch.setenv("REDIS_URL", raw)
    with pytest.raises(ImproperlyConfigured, match=message):
        env_redis("REDIS_URL")


def test_redis_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", "rediss://cache.internal:6380/3")
    assert env_redis("REDIS_URL") == "rediss://cache.internal:6380/3"
    monkeypatch.delenv("REDIS_URL")
    assert env_redis("REDIS_URL") is None


def test_booleans(monkeypatch: pytest.MonkeyPatch) -> None:
    for raw, value in (("1", True), ("YES", True), ("on", True), ("0", False), ("off", False), ("", False)):
        monkeypatch.setenv("DEBUG", raw)
        assert env_bool("DEBUG") is value
    monkeypatch.delenv("DEBUG")
    assert env_bool("DEBUG", default=True) is True
    monkeypatch.setenv("DEBUG", "perhaps")
    with pytest.raises(ImproperlyConfigured, match="DEBUG must be true or false"):
        env_bool("DEBUG")


def test_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECURE_HSTS_SECONDS", "3600")
    assert env_int("SECURE_HSTS_SECONDS", 0, minimum=0) == 3600
    monkeypatch.setenv("SECURE_HSTS_SECONDS", "1.5")
    with pytest.raises(ImproperlyConfigured, match=r"SECURE_HSTS_SECONDS must be a whole number, not '1.5'"):
        env_int("SECURE_HSTS_SECONDS", 0)
    monkeypatch.setenv("MACHINE_OFFLINE_AFTER_SECONDS", "0")
    with pytest.raises(ImproperlyConfigured, match="MACHINE_OFFLINE_AFTER_SECONDS must be at least 1, not 0"):
        env_int("MACHINE_OFFLINE_AFTER_SECONDS", 30, minimum=1)
    monkeypatch.setenv("SIGNAGE_MAX_UPDATES_PER_SECOND", "2.5")
    assert env_decimal("SIGNAGE_MAX_UPDATES_PER_SECOND", "4") == Decimal("2.5")
    monkeypatch.setenv("SIGNAGE_MAX_UPDATES_PER_SECOND", "fast")
    with pytest.raises(ImproperlyConfigured, match="SIGNAGE_MAX_UPDATES_PER_SECOND must be a decimal number"):
        env_decimal("SIGNAGE_MAX_UPDATES_PER_SECOND", "4")


def test_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALLOWED_HOSTS", " progressivo.example , ,10.0.0.5")
    assert env_list("ALLOWED_HOSTS") == ["progressivo.example", "10.0.0.5"]


def test_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGUAGE_CODE", "it")
    assert env_choice("LANGUAGE_CODE", "en", ("en", "it")) == "it"
    monkeypatch.setenv("LANGUAGE_CODE", "")
    assert env_choice("LANGUAGE_CODE", "en", ("en", "it")) == "en"
    monkeypatch.setenv("LANGUAGE_CODE", "fr")
    with pytest.raises(ImproperlyConfigured, match="LANGUAGE_CODE must be one of en, it, not 'fr'"):
        env_choice("LANGUAGE_CODE", "en", ("en", "it"))


def test_pooled_connections_are_checked_before_they_are_handed_out(tmp_path) -> None:
    """After a PostgreSQL restart the pool holds dead connections: each is checked when taken."""
    code = (
        "from django.db import connection; from psycopg_pool import ConnectionPool as P; "
        "print(connection.pool._check is P.check_connection)"
    )
    env = {**PRODUCTION, "DATABASE_URL": "postgres://u@127.0.0.1:1/p", "DATABASE_POOL_SIZE": "3"}
    result = _manage(["shell", "--no-imports", "-c", code], env, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"
