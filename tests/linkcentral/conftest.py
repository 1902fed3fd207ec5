"""The link's API tests: a link with its pool and sites, and the apply task faked."""

from __future__ import annotations

import sys
import types

import pytest

from tests.linkcentral.api_factories import Link, link_ready


@pytest.fixture
def applied(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pools the apply task was sent (``linkcentral.tasks`` is another helper's: faked here)."""
    sent: list[int] = []
    task = types.SimpleNamespace(delay=sent.append)
    monkeypatch.setitem(sys.modules, "linkcentral.tasks", types.SimpleNamespace(link_entries_apply_task=task))
    return sent


@pytest.fixture
def link(applied: list[int]) -> Link:
    return link_ready()
