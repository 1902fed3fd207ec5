"""Every benchmark script imports: they run by hand and in bench/interleave.py, never in the suite, so a
helper renamed under them (bench/flood.py imported ingest's _database_url after it became
bench.stack.url_with_database) went unseen until a benchmark was run."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.mark.parametrize("name", sorted(path.stem for path in BENCH.glob("*.py") if path.stem != "__init__"))
def test_the_benchmark_imports(name: str) -> None:
    module = importlib.import_module(f"bench.{name}")
    assert module.__doc__, f"bench/{name}.py says what it measures"
