"""The one-way house: each app imports only the apps below it (README, "Architecture").

import-linter checks every import, at module level or inside a function, against the layers written in
pyproject.toml; these tests run it and make sure the README's chain is the one it checks.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def house_layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (house,) = [contract for contract in config["contracts"] if contract["id"] == "house"]
    return house["layers"]


def test_no_import_runs_upward_and_the_gateway_stands_apart():
    run = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Contracts: 3 kept, 0 broken." in run.stdout


def test_an_upward_import_breaks_the_check(tmp_path):
    """The check can fail: a copy of the tree where floor imports workspace is refused."""
    for name in ("common", "floor", "slots", "jackpots", "workspace", "gateway"):
        (tmp_path / name).symlink_to(ROOT / name)
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    # A real package "floor" with one module more, importing upward.
    (tmp_path / "floor").unlink()
    floor = tmp_path / "floor"
    floor.mkdir()
    for source in (ROOT / "floor").glob("*.py"):
        (floor / source.name).symlink_to(source)
    (floor / "upward.py").write_text("from workspace.models import MachineHourStat  # noqa\n")
    run = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert run.returncode == 1
    assert "floor is not allowed to import workspace" in run.stdout
    assert "floor.upward -> workspace.models" in run.stdout


def test_the_readme_chain_is_the_checked_one():
    readme = (ROOT / "README.md").read_text()
    chain = re.search(r"`(common(?: ← \w+)+)`", readme)
    assert chain is not None, "README states the chain as `common ← floor ← ...`"
    assert chain.group(1).split(" ← ") == list(reversed(house_layers()))
