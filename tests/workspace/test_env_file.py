"""The local settings file (.env): written once with DEBUG on and a new SECRET_KEY, read by every
manage.py command, the real environment winning, and a bad line stopping start-up with its place named."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env_file import env_file_apply, env_file_create, env_file_parse, env_file_read

ROOT = Path(__file__).resolve().parents[2]


def manage(args: list[str], env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    """manage.py with only PATH, an SQLite file in tmp_path and ``env``: no DEBUG, no SECRET_KEY."""
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SQLITE_PATH": str(tmp_path / "db.sqlite3")}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_file_is_written_once_with_debug_and_a_new_secret_key_readable_by_its_owner(
    tmp_path: Path,
) -> None:
    path = tmp_path / ".env"

    assert env_file_create(path) is True
    first = env_file_read(path)
    assert env_file_create(path) is False  # a second run keeps it, and so the key
    assert env_file_read(path) == first
    assert first["DEBUG"] == "1"
    assert first["DEMO_VERBOSE"] == "0"
    assert len(first["SECRET_KEY"]) == 67  # token_urlsafe(50)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    other = tmp_path / "other.env"
    env_file_create(other)
    assert env_file_read(other)["SECRET_KEY"] != first["SECRET_KEY"]


def test_values_comments_and_quotes_are_read_as_written() -> None:
    text = "# a comment\n\nDEBUG=1\nNAME='two words'\nOTHER=\"x=y\"\nEMPTY=\n  PADDED = v  \n"

    assert env_file_parse(text, ".env") == {
        "DEBUG": "1",
        "NAME": "two words",
        "OTHER": "x=y",
        "EMPTY": "",
        "PADDED": "v",
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "DEBUG=1\nexport X=1\n",
            ".env line 2 must be NAME=value (a name in capitals, digits and _), not 'export X=1'.",
        ),
        ("DEBUG\n", ".env line 1 must be NAME=value (a name in capitals, digits and _), not 'DEBUG'."),
        ("debug=1\n", ".env line 1 must be NAME=value (a name in capitals, digits and _), not 'debug=1'."),
        ("DEBUG=1\n# x\nDEBUG=0\n", ".env line 3 sets DEBUG a second time."),
        ("NAME='open\n", ".env line 1: the value opens a quote it does not close."),
        ("NAME=two words\n", ".env line 1: a value with spaces must be in quotes."),
    ],
)
def test_a_bad_line_is_refused_naming_the_file_and_the_line(text: str, message: str) -> None:
    with pytest.raises(ImproperlyConfigured) as refused:
        env_file_parse(text, ".env")

    assert str(refused.value) == message


def test_the_environment_wins_over_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / ".env"
    path.write_text("PROGRESSIVO_TEST_A=from-file\nPROGRESSIVO_TEST_B=from-file\n")
    monkeypatch.setenv("PROGRESSIVO_TEST_A", "from-environment")
    monkeypatch.delenv("PROGRESSIVO_TEST_B", raising=False)

    applied = env_file_apply(path)

    assert applied == {"PROGRESSIVO_TEST_B": "from-file"}
    assert os.environ["PROGRESSIVO_TEST_A"] == "from-environment"
    assert os.environ["PROGRESSIVO_TEST_B"] == "from-file"
    monkeypatch.delenv("PROGRESSIVO_TEST_B")
    assert env_file_apply(tmp_path / "missing.env") == {}


def test_every_manage_py_command_reads_the_file_instead_of_asking_for_a_secret_key(tmp_path: Path) -> None:
    without = manage(["check"], {"ENV_FILE": ""}, tmp_path)
    assert without.returncode == 1
    assert "SECRET_KEY must be set (a long random string) when DEBUG is off." in without.stderr

    path = tmp_path / "local.env"
    env_file_create(path)
    result = manage(["diffsettings", "--all"], {"ENV_FILE": str(path)}, tmp_path)

    assert result.returncode == 0, result.stderr
    assert "DEBUG = True" in result.stdout
    assert f"SECRET_KEY = '{env_file_read(path)['SECRET_KEY']}'" in result.stdout
    # The environment wins over the file: DEBUG off there, and production asks for its hosts.
    production = manage(["check"], {"ENV_FILE": str(path), "DEBUG": "0"}, tmp_path)
    assert production.returncode == 1
    assert "ALLOWED_HOSTS must list the host names served when DEBUG is off." in production.stderr


def test_a_bad_file_stops_start_up_with_a_sentence_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "local.env"
    path.write_text("DEBUG=1\nSECRET KEY=x\n")

    result = manage(["check"], {"ENV_FILE": str(path)}, tmp_path)

    assert result.returncode == 1
    assert (
        f"ImproperlyConfigured: {path} line 2 must be NAME=value (a name in capitals, digits and _), "
        "not 'SECRET KEY=x'." in result.stderr
    )


def test_the_demo_writes_the_file_and_hands_its_variables_to_the_shell(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    env = {"PATH": os.environ.get("PATH", ""), "ENV_FILE": str(path), "DEBUG": "0"}

    result = subprocess.run(
        [sys.executable, "-m", "config.env_file"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )

    secret = env_file_read(path)["SECRET_KEY"]
    assert result.stderr == "Created .env: DEBUG on and a new SECRET_KEY (local, not committed).\n"
    # DEBUG is in the environment already: it is not exported over it.
    assert result.stdout == f"export SECRET_KEY={secret}\nexport DEMO_VERBOSE=0\n"
