"""The processes' objects from their start kept out of the collector's full passes (common.heap)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref
from pathlib import Path

import pytest
from celery.signals import worker_process_init, worker_ready

from common.heap import YOUNG_THRESHOLD, heap_freeze

ROOT = Path(__file__).resolve().parents[2]


class Node:
    pass


@pytest.fixture(autouse=True)
def _collector_restored():
    thresholds = gc.get_threshold()
    yield
    gc.set_threshold(*thresholds)


def test_the_young_generation_is_collected_less_often_and_the_older_ones_as_before():
    gc.set_threshold(700, 10, 10)
    try:
        heap_freeze()
    finally:
        gc.unfreeze()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
    assert YOUNG_THRESHOLD == 10_000


def test_what_is_alive_when_frozen_is_out_of_the_collectors_passes_and_later_objects_are_not():
    kept = Node()
    assert gc.is_tracked(kept)
    try:
        frozen = heap_freeze()
        made_after = Node()
        assert frozen == gc.get_freeze_count()
        assert not any(found is kept for found in gc.get_objects())
        assert any(found is made_after for found in gc.get_objects())
    finally:
        gc.unfreeze()
    assert any(found is kept for found in gc.get_objects())


def test_garbage_is_collected_before_the_freeze_not_kept_for_ever():
    cycle = Node()
    cycle.itself = cycle
    gone = weakref.ref(cycle)
    del cycle
    try:
        heap_freeze()
    finally:
        gc.unfreeze()
    assert gone() is None


def test_a_server_process_freezes_what_it_built_once_the_application_is_made():
    # A process of its own: this one imported the application long ago.
    script = (
        "import gc, config.asgi; print(gc.get_freeze_count(), len(gc.get_objects()), gc.get_threshold()[0])"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.test_settings"}
    # A failure raises, with the process's stderr in the test's captured output.
    out = subprocess.check_output([sys.executable, "-c", script], cwd=ROOT, env=env, text=True, timeout=60)
    frozen, left, young = map(int, out.split())
    assert young == YOUNG_THRESHOLD
    # Django and the apps: well over a hundred thousand objects, nearly all of the process's.
    assert frozen > 100_000
    assert left < frozen / 10


@pytest.mark.parametrize("started", [worker_process_init, worker_ready], ids=["pool process", "worker"])
def test_the_worker_and_each_of_its_pool_processes_freeze_what_they_hold_at_their_start(started):
    import config.celery  # noqa: F401 - connects the worker's and its pool processes' start

    gc.unfreeze()
    try:
        gc.set_threshold(700, 10, 10)
        started.send(sender=None)
        assert gc.get_freeze_count() > 100_000
        assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
    finally:
        gc.unfreeze()
