"""The suite under pytest-xdist (make test runs it so): each worker has a Redis database of its own, as
pytest-django gives it a test database of its own, so no worker reads another's queue, cache or groups."""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.db import connection

from config.test_settings import redis_url_of_worker


def test_a_worker_moves_the_redis_database_by_its_number() -> None:
    assert redis_url_of_worker("redis://127.0.0.1:6379/7", 0) == "redis://127.0.0.1:6379/7"
    assert redis_url_of_worker("redis://127.0.0.1:6379/7", 2) == "redis://127.0.0.1:6379/9"
    assert redis_url_of_worker("redis://127.0.0.1:6379", 1) == "redis://127.0.0.1:6379/1"
    assert redis_url_of_worker("redis://:secret@cache:6380/0", 3) == "redis://:secret@cache:6380/3"
    assert redis_url_of_worker("redis://cache:6379?db=4", 1) == "redis://cache:6379?db=5"


def test_a_worker_past_the_last_redis_database_is_refused() -> None:
    with pytest.raises(ValueError, match="leaves no Redis database free for pytest-xdist worker gw3"):
        redis_url_of_worker("redis://127.0.0.1:6379/14", 3)


@pytest.mark.django_db
def test_this_worker_has_its_own_database_and_redis_database() -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    before = os.environ.get("PROGRESSIVO_TEST_REDIS_OF_WORKER")
    if worker is None:  # a run without xdist: the Redis database the environment names
        assert before is None
        assert (os.environ.get("REDIS_URL") or None) == settings.REDIS_URL
        return
    assert connection.settings_dict["NAME"].endswith(f"_{worker}")
    if settings.USING_REDIS:
        assert settings.REDIS_URL == os.environ["REDIS_URL"] == redis_url_of_worker(before, int(worker[2:]))


@pytest.fixture(scope="module")
def shared_by_the_module() -> str:
    """A module-scoped fixture: its tests form one xdist group (tests/conftest.py)."""
    return "shared"


@pytest.mark.parametrize("n", [1, 2])
def test_the_tests_of_a_shared_fixture_are_scheduled_as_one_group(
    shared_by_the_module: str, n: int, request: pytest.FixtureRequest
) -> None:
    # xdist's loadgroup schedules by the "@<group>" end of the test's id; pytest 9 ignores the attribute
    # xdist 3.8 writes it to, so without tests/conftest.py's own id each shared stack started per worker.
    group = "@module:tests/test_suite_workers.py"
    if request.config.option.dist == "loadgroup" or getattr(request.config.option, "loadgroup", False):
        assert request.node.nodeid.endswith(group)
    else:  # no groups without xdist's loadgroup: the id is the test's own
        assert "@" not in request.node.nodeid
