"""Shared fixtures. Factories live in tests/factories.py; app-specific ones in tests/<app>/."""

from __future__ import annotations

import pytest
from django.conf import settings

# Staff in each role and raw events, for the floor, workspace and common tests alike.
pytest_plugins = ["tests.staff_fixtures"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that need the real services are skipped on the embedded default (CI fails on any skip)."""
    skip_pg = pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL")
    skip_redis = pytest.mark.skip(reason="needs Redis: set REDIS_URL")
    for item in items:
        if "postgres" in item.keywords and not settings.USING_POSTGRES:
            item.add_marker(skip_pg)
        if "redis" in item.keywords and not settings.USING_REDIS:
            item.add_marker(skip_redis)
