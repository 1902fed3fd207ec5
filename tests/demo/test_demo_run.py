"""The demo as a newcomer meets it, in a fresh clone of this commit: the README's operator commands work
as written, and a restart of the demo keeps the admin password and a sign's URL working."""

from __future__ import annotations

import os
import queue
import re
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
RULE = "=" * 78


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh clone of the commit under test, with the shared virtual environment and nothing else."""
    target = tmp_path_factory.mktemp("fresh") / "progressivo"
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(ROOT), str(target)], check=True)
    subprocess.run(["git", "checkout", "-q", head], cwd=target, check=True)
    (target / ".venv").symlink_to((ROOT / ".venv").resolve())
    return target


def newcomer_env(**extra: str) -> dict[str, str]:
    """A shell with no settings exported: no DEBUG, SECRET_KEY, database or ENV_FILE."""
    keep = {name: os.environ[name] for name in ("PATH", "HOME", "LANG", "TMPDIR") if name in os.environ}
    return {**keep, **extra}


def readme_commands(readme: str) -> list[str]:
    block = readme.split("<!-- operator-commands -->")[1].split("<!-- /operator-commands -->", maxsplit=1)[0]
    return [line for line in block.strip().splitlines() if not line.startswith("```")]


def test_the_readmes_operator_commands_work_as_written_in_a_fresh_clone(clone: Path) -> None:
    commands = readme_commands((clone / "README.md").read_text())
    assert len(commands) == 10
    assert not (clone / ".env").exists()

    outputs, errors = [], []
    for command in commands:
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", command],
            cwd=clone,
            env=newcomer_env(),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert result.returncode == 0, (command, result.stderr)
        outputs.append(result.stdout)
        errors.append(result.stderr)

    # Nothing on stderr but the note that .env was written.
    assert errors == ["Created .env: DEBUG on and a new SECRET_KEY (local, not committed).\n"] + [""] * 9
    assert (clone / ".env").stat().st_mode & 0o777 == 0o600
    by_command = dict(zip(commands, outputs, strict=True))
    key_pattern = r"pv_{}_[A-Za-z0-9_-]{{43}}\n"
    assert re.fullmatch(key_pattern.format("mach"), by_command[commands[3]])
    assert re.fullmatch(key_pattern.format("gw"), by_command[commands[4]])
    assert re.fullmatch(key_pattern.format("tbl"), by_command[commands[5]])
    assert re.fullmatch(key_pattern.format("scr"), by_command[commands[6]])
    assert by_command[commands[2]] == "Seeded the Casinò di Venezia.\n"
    assert re.fullmatch(r"Admin user: admin   password: \S{16}\n", by_command[commands[8]])
    assert by_command[commands[9]] == "1 tick(s) done.\n"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Demo:
    """``scripts/run`` in the clone, its output read line by line until the summary's closing rule."""

    def __init__(self, clone: Path, port: int) -> None:
        env = newcomer_env(PORT=str(port), SIMULATE="0", DEMO_MACHINES_PER_ROOM="2")
        self.process = subprocess.Popen(
            ["scripts/run"],
            cwd=clone,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group: stopped as a whole, like Ctrl-C
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.output: list[str] = []

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def summary(self, timeout: float = 240) -> list[str]:
        deadline = time.monotonic() + timeout
        rules = 0
        while rules < 2:
            line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            assert line is not None, "\n".join(self.output)
            self.output.append(line)
            rules += line == RULE
        return self.output[self.output.index(RULE) :]

    def stop(self) -> list[str]:
        os.killpg(self.process.pid, signal.SIGINT)
        self.process.wait(timeout=60)
        while (line := self.lines.get(timeout=10)) is not None:
            self.output.append(line)
        return self.output


def admin_login_works(base: str, password: str) -> bool:
    with httpx.Client(base_url=base, timeout=30) as client:
        page = client.get("/admin/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        answer = client.post(
            "/admin/login/?next=/admin/",
            data={"username": "admin", "password": password, "csrfmiddlewaretoken": token, "next": "/admin/"},
        )
        return answer.status_code == 302 and answer.headers["location"] == "/admin/"


def test_a_restart_keeps_the_admin_password_and_a_signs_url_working(clone: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    seen = []
    for _start in range(2):
        demo = Demo(clone, port)
        try:
            summary = demo.summary()
            password = re.search(r"Admin +\S+ +user admin +password (\S+)$", summary[3]).group(1)
            sign = next(line.split()[1] for line in summary if line.strip().startswith("nog-1 "))
            assert summary[1] == f"Progressivo demo on {base}/   (Ctrl-C stops it)"
            assert sign.startswith(f"{base}/signage/nog-1/?token=pv_scr_")
            assert admin_login_works(base, password)
            assert httpx.get(sign, timeout=30).status_code == 200
            if seen:
                # The sign opened before the restart still loads (not "Schermo non autorizzato").
                assert httpx.get(seen[0][1], timeout=30).status_code == 200
        finally:
            output = demo.stop()
        seen.append((password, sign))
        # Quiet by default: the requests above left no access-log line.
        assert not [line for line in output if "GET /" in line or "POST /" in line]
    assert seen[0] == seen[1]
