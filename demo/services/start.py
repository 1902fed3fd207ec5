"""The demo's start (scripts/run): its database, and the admin password and screen tokens it keeps.

A demo is restarted often. Each start used to issue a new admin password and new screen tokens, so a sign
left open on a TV showed "Schermo non autorizzato" after every restart and the password scrolled away.
Now both are written under ``var/demo/`` (never committed, readable by its owner only) and reused while
they still work: a password someone changed in the admin, or a token revoked or reissued there, is
replaced by a new one, never forced back.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import OperationalError, connection, connections
from django.db.utils import ProgrammingError

from common.credentials import screen_token_issue, screen_token_matches
from floor.models import SignageScreen

# The SQLSTATE PostgreSQL answers a connection to a database that does not exist with.
INVALID_CATALOG_NAME = "3D000"


class DemoStartRefused(Exception):
    """The demo cannot start; the message is one sentence saying what to do."""


@dataclass(frozen=True)
class DemoAccess:
    username: str
    password: str
    screens: dict[str, str]  # slug -> token


def demo_state_dir() -> Path:
    return Path(settings.BASE_DIR) / "var" / "demo"


def _state_read(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none yet, or damaged: new credentials are issued and written over it


def _state_write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(data, file, indent=1, sort_keys=True)
    temporary.replace(path)


# --- the database ------------------------------------------------------------------------------------


def _missing_database(exc: BaseException) -> bool:
    cause = exc.__cause__ or exc
    return getattr(cause, "sqlstate", None) == INVALID_CATALOG_NAME or "does not exist" in str(cause)


def database_ensure() -> bool:
    """Creates the PostgreSQL database DATABASE_URL names when it is missing and the server lets its user
    create it; True if it did. DemoStartRefused (one sentence) when it cannot be reached or created."""
    if connection.vendor != "postgresql":
        return False  # SQLite creates its file on first use
    params = connection.settings_dict
    where = f"{params.get('HOST') or 'localhost'}:{params.get('PORT') or 5432}"
    name = params["NAME"]
    try:
        connection.ensure_connection()
        return False
    except OperationalError as exc:
        if not _missing_database(exc):
            raise DemoStartRefused(
                f"PostgreSQL at {where} does not accept the connection ({_first_line(exc)}): start it, or "
                "correct DATABASE_URL."
            ) from None
    finally:
        connection.close()
    try:
        with connection._nodb_cursor() as cursor:
            cursor.execute(f"CREATE DATABASE {connection.ops.quote_name(name)}")
    except (OperationalError, ProgrammingError) as exc:
        host, port = params.get("HOST") or "localhost", params.get("PORT") or 5432
        raise DemoStartRefused(
            f"The database {name} does not exist at {where} and {params.get('USER') or 'this user'} may not "
            f"create it ({_first_line(exc)}): create it with `createdb -h {host} -p {port} -U <a user "
            f"allowed to> {name}`, then start the demo again."
        ) from None
    finally:
        connections.close_all()
    return True


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


# --- what the demo keeps across restarts ------------------------------------------------------------


def demo_admin_keep(username: str = "admin") -> str:
    """The superuser ``username``'s password kept from the last start if it still logs in, else a new one
    (the user created or reset); either way it is what ``var/demo/admin.json`` holds afterwards."""
    path = demo_state_dir() / "admin.json"
    stored = _state_read(path)
    User = get_user_model()
    user = User.objects.filter(username=username).first()
    password = stored.get("password") if stored.get("username") == username else None
    if not (user and user.is_active and user.is_superuser and password and user.check_password(password)):
        password = secrets.token_urlsafe(12)
        user = user or User(username=username)
        user.is_staff = user.is_superuser = user.is_active = True
        user.set_password(password)
        user.save()
    _state_write(path, {"username": username, "password": password})
    return password


def demo_screen_tokens_keep() -> dict[str, str]:
    """Every signage screen's token kept from the last start while the screen still accepts it; a screen
    without one (new, or its token revoked or reissued in the admin) gets a new token."""
    path = demo_state_dir() / "screens.json"
    stored = _state_read(path)
    tokens = {}
    for screen in SignageScreen.objects.order_by("venue__code", "slug"):
        token = stored.get(screen.slug)
        if not (isinstance(token, str) and screen_token_matches(screen, token)):
            token = screen_token_issue(screen)
        tokens[screen.slug] = token
    _state_write(path, tokens)
    return tokens


def demo_access_keep(username: str = "admin") -> DemoAccess:
    return DemoAccess(username, demo_admin_keep(username), demo_screen_tokens_keep())


def demo_summary(access: DemoAccess, base_url: str) -> str:
    """The block the demo prints last, once the server answers: where everything is and how to log in."""
    base = base_url.rstrip("/")
    rule = "=" * 78
    lines = [
        rule,
        f"Progressivo demo on {base}/   (Ctrl-C stops it)",
        f"  Workspace      {base}/",
        f"  Admin          {base}/admin/   user {access.username}   password {access.password}",
        f"  API docs       {base}/api/docs/",
        f"  Health         {base}/healthz",
        "  Signs (kept across restarts while their token is valid):",
    ]
    lines += [f"    {slug:<8} {base}/signage/{slug}/?token={token}" for slug, token in access.screens.items()]
    lines += [
        "  Simulator log  var/simulate_floor.log   (DEMO_VERBOSE=1 prints every request and task)",
        rule,
    ]
    return "\n".join(lines)


def admin_user_ensure(username: str = "admin") -> str:
    """Creates or updates the superuser ``username`` with a freshly generated password and returns it."""
    password = secrets.token_urlsafe(12)
    User = get_user_model()
    user, _created = User.objects.get_or_create(username=username)
    user.is_staff = True
    user.is_superuser = True
    user.is_active = True
    user.set_password(password)
    user.save()
    return password
