"""From POST /api/v1/events to the levels: the ingest's on-commit task applies the events exactly once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import orjson
import pytest
from django.test import Client

from common.credentials import credential_issue
from jackpots.audit import jackpots_audit
from jackpots.models import Hit
from slots.models import MachineKey

pytestmark = pytest.mark.django_db


def _at(seconds: int) -> str:
    moment = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1) + timedelta(seconds=seconds)
    return moment.isoformat().replace("+00:00", "Z")


def test_posted_events_feed_the_level_once_even_when_retried(
    linked, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    _, machines, level = linked
    key = credential_issue(MachineKey, kind="mach", machine=machines[0])[1]
    machine = machines[0].asset_number
    events = [
        {"machine": machine, "seq": seq, "at": _at(seq), "type": "game", "wager": 450, "win": 0}
        for seq in range(1, 11)
    ]
    events.append(
        {"machine": machine, "seq": 11, "at": _at(11), "type": "jackpot", "level": level.id, "amount": 1}
    )
    body = orjson.dumps({"events": events})
    client = Client()
    for _ in range(2):  # the machine's retry: duplicates, applied once
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(
                "/api/v1/events",
                data=body,
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Bearer {key}",
            )
        assert response.status_code == 200
    assert response.json() == {"accepted": 0, "duplicates": 11, "rejected": []}
    hit = Hit.objects.get(level=level)
    # 10 x 450 cents x 1% = 45,000 mc over the reset; the reserve (9,000 mc) starts the next cycle.
    assert (hit.amount_cents, hit.machine_id, hit.discrepancy_cents) == (100_045, machines[0].id, 1 - 100_045)
    level.refresh_from_db()
    assert (level.wagered_cents, level.current_mc, level.cycle) == (4_500, 100_009_000, 2)
    assert jackpots_audit()[1] == []
