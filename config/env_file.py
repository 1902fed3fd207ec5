"""The local settings file: ``.env`` at the repository root, written by the demo on its first run.

It holds what a developer's machine needs and a deployment takes from its real environment: DEBUG on and a
SECRET_KEY generated for this checkout, so every ``manage.py`` command, the worker and the server start
without exporting anything. config.settings reads it first thing; a variable already in the environment
wins over the file. ``ENV_FILE`` names another file, or none when empty (the test suite's choice).

The format is strict, as config.env is: one ``NAME=value`` a line, ``#`` comments and blank lines, a
value optionally in matching single or double quotes. Anything else stops start-up with
ImproperlyConfigured naming the file and the line, instead of a setting silently missing.

``python -m config.env_file`` creates the file when it is missing and prints the shell assignments of
its variables that the environment does not already set, for scripts/run to ``eval``.
"""

from __future__ import annotations

import os
import re
import secrets
import shlex
import sys
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
NAME = re.compile(r"[A-Z_][A-Z0-9_]*")

TEMPLATE = """\
# Local settings of this checkout, written by the demo's first run (scripts/run). Never committed.
# One NAME=value a line; a variable set in the real environment wins over this file.
# The variables are listed in README.md, "Settings".
DEBUG=1
SECRET_KEY={secret_key}
# DEMO_VERBOSE=1 prints every request and task (off: only warnings, and the summary stays on screen).
DEMO_VERBOSE=0
# DATABASE_URL=postgres://postgres@127.0.0.1:5432/progressivo
# REDIS_URL=redis://127.0.0.1:6379/0
"""


def env_file_path() -> Path | None:
    """The file ``ENV_FILE`` names (relative to the repository root), ``.env`` by default, None if empty."""
    raw = os.environ.get("ENV_FILE")
    if raw is None:
        return BASE_DIR / ".env"
    if not raw.strip():
        return None
    path = Path(raw)
    return path if path.is_absolute() else BASE_DIR / path


def _value_parse(raw: str, where: str) -> str:
    value = raw.strip()
    if value[:1] in {'"', "'"}:
        if len(value) < 2 or value[-1] != value[0]:
            raise ImproperlyConfigured(f"{where}: the value opens a quote it does not close.")
        return value[1:-1]
    if any(c.isspace() for c in value):
        raise ImproperlyConfigured(f"{where}: a value with spaces must be in quotes.")
    return value


def env_file_parse(text: str, source: str) -> dict[str, str]:
    """The variables of an env file's text; ImproperlyConfigured naming ``source`` and the line if bad."""
    variables: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        where = f"{source} line {number}"
        name, equals, raw = stripped.partition("=")
        name = name.strip()
        if not equals or not NAME.fullmatch(name):
            raise ImproperlyConfigured(
                f"{where} must be NAME=value (a name in capitals, digits and _), not {stripped[:60]!r}."
            )
        if name in variables:
            raise ImproperlyConfigured(f"{where} sets {name} a second time.")
        variables[name] = _value_parse(raw, where)
    return variables


def env_file_read(path: Path) -> dict[str, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ImproperlyConfigured(f"{path} is not UTF-8 text.") from None
    return env_file_parse(text, str(path))


def env_file_apply(path: Path | None) -> dict[str, str]:
    """Puts the file's variables into the environment where it does not set them already; returns those
    it put. A missing file is no error: a deployment has none."""
    if path is None or not path.is_file():
        return {}
    applied = {}
    for name, value in env_file_read(path).items():
        if name not in os.environ:
            os.environ[name] = value
            applied[name] = value
    return applied


def env_file_create(path: Path) -> bool:
    """Writes the local settings file with a new SECRET_KEY unless it exists; True if it wrote it. Only
    its owner may read it (it holds the signing key)."""
    if path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(TEMPLATE.format(secret_key=secrets.token_urlsafe(50)))
    return True


def main() -> int:
    path = env_file_path()
    if path is None:
        return 0
    # Messages on stderr: stdout is the shell's to evaluate.
    if env_file_create(path):
        sys.stderr.write(f"Created {path.name}: DEBUG on and a new SECRET_KEY (local, not committed).\n")
    try:
        applied = env_file_apply(path)
    except ImproperlyConfigured as exc:
        sys.stderr.write(f"ImproperlyConfigured: {exc}\n")
        return 1
    sys.stdout.write("".join(f"export {name}={shlex.quote(value)}\n" for name, value in applied.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
