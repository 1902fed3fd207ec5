"""On the real PostgreSQL: approvals of one proposal at the same moment apply it once (the proposal's row
lock, then the level's)."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connections

from jackpots.audit import jackpots_audit
from jackpots.models import ChangeProposal, LedgerEntry
from jackpots.services import EngineError, change_approve, change_propose
from jackpots.services.levels import level_create
from tests.jackpots.helpers import GRAND, progressive_with_machines

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_concurrent_approvals_apply_once():
    progressive, _machines = progressive_with_machines(2)
    level = level_create(progressive, name="Grand", position=1, params=GRAND)
    users = [get_user_model().objects.create_user(f"u{i}") for i in range(5)]
    proposal = change_propose(kind="topup", user=users[0], reason="Promotion", level=level, amount_mc=12_345)
    barrier = threading.Barrier(4)
    outcomes: list[str] = []

    def approve(user) -> None:
        try:
            barrier.wait()
            change_approve(proposal, user)
            outcomes.append("approved")
        except EngineError as error:
            outcomes.append(error.code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=approve, args=(user,)) for user in users[1:]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == ["approved", "decided_already", "decided_already", "decided_already"]
    level.refresh_from_db()
    assert level.current_mc == GRAND.reset_mc + 12_345
    assert LedgerEntry.objects.filter(kind=LedgerEntry.Kind.TOPUP).count() == 1
    assert ChangeProposal.objects.get().state == ChangeProposal.State.APPROVED
    assert jackpots_audit()[1] == []
