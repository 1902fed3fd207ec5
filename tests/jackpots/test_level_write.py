"""The one level-write operation: no other module writes a level's amounts, and a write publishes after
commit (nothing at all when its step fails)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.utils import timezone

from jackpots import hooks
from jackpots.models import LedgerEntry
from jackpots.services import core
from jackpots.services.errors import EngineError
from jackpots.services.level_write import Locked, Written, levels_write
from jackpots.services.levels import ledger_entry

ROOT = Path(__file__).resolve().parents[2]
APPS = ["common", "floor", "slots", "jackpots", "workspace", "config"]
# The operation itself, and the module under it that turns states into the one UPDATE it sends.
ALLOWED = {"jackpots/services/level_write.py", "jackpots/services/levels.py"}
AMOUNTS = {"current_mc", "reserve_mc", "overflow_mc"}
WRITERS = {"levels_state_save", "_level_state_save", "level_state_set"}


def _updates_levels(sql: str) -> bool:
    return "update jackpots_level " in " ".join(sql.lower().split()) + " "


def level_writes(source: str) -> list[str]:
    """What in ``source`` writes a level's amounts other than through ``levels_write``: a call of the
    state writers, an assignment to a state attribute, an ``update``/``bulk_update`` naming one, or SQL
    updating the levels' table."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in WRITERS:
                found.append(f"line {node.lineno}: {name}()")
            if name in {"update", "bulk_update"}:
                named = {k.arg for k in node.keywords} | {
                    a.value
                    for arg in node.args
                    if isinstance(arg, ast.List)
                    for a in arg.elts
                    if isinstance(a, ast.Constant)
                }
                if named & AMOUNTS:
                    found.append(f"line {node.lineno}: {name}() of an amount")
        targets = node.targets if isinstance(node, ast.Assign) else []
        targets = [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else targets
        for target in targets:
            # an amount of something named like a level (a report's own rows have amounts too)
            named_level = isinstance(target, ast.Attribute) and "level" in ast.unparse(target.value).lower()
            if named_level and target.attr in AMOUNTS:
                found.append(f"line {node.lineno}: .{target.attr} =")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _updates_levels(node.value):
            found.append(f"line {node.lineno}: SQL UPDATE of jackpots_level")
    return sorted(found, key=lambda text: int(text.split(":")[0].removeprefix("line ")))


def test_the_scan_finds_each_kind_of_level_write() -> None:
    source = """
level.current_mc = 5
self.levels[1].reserve_mc += 1
total.current_mc += row.current_mc
levels_state_save([level], states)
Level.objects.filter(pk=1).update(overflow_mc=0)
Level.objects.bulk_update(levels, ["current_mc"])
cursor.execute("UPDATE jackpots_level SET current_mc = 0")
hit.amount_cents = 5
"""
    assert level_writes(source) == [
        "line 2: .current_mc =",
        "line 3: .reserve_mc =",
        "line 5: levels_state_save()",
        "line 6: update() of an amount",
        "line 7: bulk_update() of an amount",
        "line 8: SQL UPDATE of jackpots_level",
    ]


def test_no_module_but_the_level_write_writes_a_levels_amounts() -> None:
    offenders = {}
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" in relative or relative in ALLOWED:
                continue
            found = level_writes(path.read_text())
            if found:
                offenders[relative] = found
    assert offenders == {}


@pytest.fixture
def published(monkeypatch) -> list[tuple[str, list[int] | int]]:
    calls: list[tuple[str, list[int] | int]] = []
    monkeypatch.setattr(hooks.hooks, "levels_changed", [lambda ids: calls.append(("levels", list(ids)))])
    monkeypatch.setattr(hooks.hooks, "hit_announced", [lambda hit_id: calls.append(("hit", hit_id))])
    return calls


def _add_wager(level_id: int, cents: int):
    def step(locked: Locked) -> Written[int]:
        level = locked.levels[level_id]
        state, movement = core.contribute(locked.params(level_id), locked.state(level_id), cents)
        entry = ledger_entry(level, LedgerEntry.Kind.CONTRIBUTION, movement, state, at=timezone.now())
        return Written({level_id: state}, [entry], result=movement.current_delta_mc)

    return step


def test_a_write_saves_the_level_and_its_ledger_row_and_publishes_after_commit(
    linked, published, django_capture_on_commit_callbacks
) -> None:
    _, _, level = linked
    with django_capture_on_commit_callbacks(execute=True):
        written = levels_write([level.pk], _add_wager(level.pk, 100_000))
        assert published == []  # not before the commit
    assert written.result == 1_000_000  # 1% of €1,000 in millicents
    level.refresh_from_db()
    assert (level.current_mc, level.reserve_mc) == (100_000_000 + 1_000_000, 200_000)
    assert LedgerEntry.objects.filter(level=level, kind=LedgerEntry.Kind.CONTRIBUTION).count() == 1
    assert published == [("levels", [level.pk])]


def test_a_step_that_fails_writes_and_publishes_nothing(
    linked, published, django_capture_on_commit_callbacks
) -> None:
    _, _, level = linked

    def step(locked: Locked) -> Written[None]:
        _add_wager(level.pk, 100_000)(locked)
        raise EngineError("refused", "No.")

    with django_capture_on_commit_callbacks(execute=True), pytest.raises(EngineError):
        levels_write([level.pk], step)
    level.refresh_from_db()
    assert (level.current_mc, level.reserve_mc) == (100_000_000, 0)
    assert not LedgerEntry.objects.filter(level=level, kind=LedgerEntry.Kind.CONTRIBUTION).exists()
    assert published == []
