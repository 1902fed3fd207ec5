"""Maker-checker (jackpots.services.proposals): one person proposes, another approves; until then nothing
moves; each move is its own ledger kind naming both people; the audit holds after every one."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from floor.models import SignificantEvent
from jackpots.audit import jackpots_audit
from jackpots.models import ChangeProposal, LedgerEntry, Level, LevelChange, RetiredLiability
from jackpots.services import (
    EngineError,
    change_approve,
    change_propose,
    change_reject,
    core,
    level_hit,
    level_wager_add,
    progressive_retire,
)
from jackpots.services.levels import level_create
from tests.jackpots.helpers import progressive_with_machines

pytestmark = pytest.mark.django_db

# The target of transfers: no reserve rate, so its reserve is only what is transferred in.
PLAIN = core.Params(reset_mc=50_000_000, rate=Decimal("0.01"))
METERS = ("current_mc", "reserve_mc", "overflow_mc", "seq", "cycle", "state")


@pytest.fixture
def maker():
    return get_user_model().objects.create_user("maker", password="x", first_name="Mara", last_name="Rossi")


@pytest.fixture
def checker():
    return get_user_model().objects.create_user(
        "checker", password="x", first_name="Carlo", last_name="Bianchi"
    )


@pytest.fixture
def played(linked):
    """The linked Grand after €1,234.56 of wagers: 1% to the amount, 0.2% to the reserve."""
    _progressive, _machines, level = linked
    level_wager_add(level.pk, 123_456)
    level.refresh_from_db()
    return level


@pytest.fixture
def target(db):
    progressive, _machines = progressive_with_machines(2, name="Venice Gold")
    return level_create(progressive, name="Gold", position=1, params=PLAIN)


def meters(level: Level) -> tuple:
    level.refresh_from_db()
    return tuple(getattr(level, name) for name in METERS)


def audit_clean() -> None:
    assert jackpots_audit()[1] == []


def test_one_person_cannot_approve_their_own_proposal(played, maker):
    before = meters(played)
    proposal = change_propose(
        kind="correction", user=maker, reason="Lost contribution", level=played, amount_mc=5_000
    )
    with pytest.raises(EngineError) as refused:
        change_approve(proposal, maker)
    assert refused.value.code == "same_person"
    assert refused.value.message == "You proposed this change: another person must approve or reject it."
    with pytest.raises(EngineError) as refused:
        change_reject(proposal, maker, "Changed my mind")
    assert refused.value.code == "same_person"
    proposal.refresh_from_db()
    assert (proposal.state, proposal.decided_by) == (ChangeProposal.State.PENDING, None)
    assert meters(played) == before


def test_nothing_moves_until_approved(played, maker, checker):
    before = meters(played)
    rows = LedgerEntry.objects.count()
    proposal = change_propose(
        kind="correction", user=maker, reason="Fault on bank 3, ticket 88", level=played, amount_mc=-1_234
    )
    assert meters(played) == before
    assert LedgerEntry.objects.count() == rows
    change_approve(proposal, checker)
    assert meters(played) == (
        before[0] - 1_234,
        before[1],
        before[2],
        before[3] + 1,
        before[4],
        Level.State.ACTIVE,
    )
    assert LedgerEntry.objects.count() == rows + 1


@pytest.mark.parametrize("amount", [7_654_321, -300_001])
def test_a_correction_moves_exactly_its_signed_amount_and_the_audit_passes(played, maker, checker, amount):
    current, reserve, overflow, seq, cycle, _state = meters(played)
    proposal = change_propose(
        kind="correction", user=maker, reason="Reconciliation of 2026-11-26", level=played, amount_mc=amount
    )
    approved = change_approve(proposal, checker)
    assert (approved.state, approved.decided_by, approved.proposed_by) == ("approved", checker, maker)
    assert meters(played) == (current + amount, reserve, overflow, seq + 1, cycle, "active")
    row = LedgerEntry.objects.get(proposal=proposal)
    assert (
        row.kind,
        row.corrected_mc,
        row.current_delta_mc,
        row.reserve_delta_mc,
        row.overflow_delta_mc,
    ) == (LedgerEntry.Kind.CORRECTION, amount, amount, 0, 0)
    assert (row.proposal.proposed_by, row.proposal.decided_by) == (maker, checker)
    audit_clean()
    kinds = list(SignificantEvent.objects.order_by("id").values_list("kind", "user__username", "level_id"))
    assert kinds == [
        ("change_proposed", "maker", played.pk),
        ("change_approved", "checker", played.pk),
        ("correction", "checker", played.pk),
    ]


def test_a_correction_above_the_limit_goes_to_overflow(db, maker, checker):
    progressive, _machines = progressive_with_machines(1)
    level = level_create(
        progressive,
        name="Capped",
        position=1,
        params=core.Params(1_000_000, Decimal("0.01"), limit_mc=1_500_000),
    )
    change_approve(
        change_propose(kind="correction", user=maker, reason="x", level=level, amount_mc=700_000), checker
    )
    assert meters(level)[:3] == (1_500_000, 0, 200_000)
    audit_clean()


def test_a_house_top_up(played, maker, checker):
    current, reserve, overflow, seq, *_ = meters(played)
    proposal = change_propose(
        kind="topup", user=maker, reason="Promotion: +€500", level=played, amount_mc=50_000_000
    )
    change_approve(proposal, checker)
    assert meters(played)[:4] == (current + 50_000_000, reserve, overflow, seq + 1)
    row = LedgerEntry.objects.get(proposal=proposal)
    assert (row.kind, row.seeded_mc, row.corrected_mc, row.current_delta_mc) == (
        "topup",
        50_000_000,
        0,
        50_000_000,
    )
    audit_clean()


def test_a_transfer_out_and_in_sum_to_zero(played, target, maker, checker):
    reserve = played.reserve_mc  # 246_912: 0.2% of 123_456 cents
    assert reserve == 246_912
    amount = reserve + 1_000_000  # the whole reserve, then from the amount above the reset value
    src_before, tgt_before = meters(played), meters(target)
    proposal = change_propose(
        kind="transfer",
        user=maker,
        reason="Merge the pools",
        level=played,
        amount_mc=amount,
        target_level=target,
    )
    assert (meters(played), meters(target)) == (src_before, tgt_before)
    change_approve(proposal, checker)
    rows = list(LedgerEntry.objects.filter(proposal=proposal).order_by("id"))
    assert [(r.level_id, r.kind, r.transferred_mc) for r in rows] == [
        (played.pk, "transfer_out", -amount),
        (target.pk, "transfer_in", amount),
    ]
    assert sum(r.transferred_mc for r in rows) == 0
    assert meters(played)[:3] == (src_before[0] - 1_000_000, 0, 0)
    assert meters(target)[:3] == (tgt_before[0], amount, 0)
    audit_clean()


def test_a_transfer_beyond_the_liability_is_refused(played, target, maker):
    too_much = played.current_mc - played.reset_mc + played.reserve_mc + 1
    with pytest.raises(EngineError) as refused:
        change_propose(
            kind="transfer", user=maker, reason="x", level=played, amount_mc=too_much, target_level=target
        )
    assert refused.value.code == "exceeds_liability"
    assert ChangeProposal.objects.count() == 0


def test_a_retirement_lands_exactly_on_the_targets_next_start(played, target, maker, checker):
    liability = played.current_mc - played.reset_mc + played.reserve_mc + played.overflow_mc
    assert liability == 1_234_560 + 246_912
    proposal = progressive_retire(played.progressive, maker, "Bank replaced", target_level=target)
    assert meters(played)[5] == "active"
    change_approve(proposal, checker)
    assert meters(played)[:3] + meters(played)[5:] == (played.reset_mc, 0, 0, "retired")
    rows = LedgerEntry.objects.filter(proposal=proposal)
    assert sorted(rows.values_list("kind", "transferred_mc")) == [
        ("transfer_in", liability),
        ("transfer_out", -liability),
    ]
    level_hit(target.pk)  # the target's cycle ends; the next starts at reset + what was transferred
    target.refresh_from_db()
    assert (target.cycle, target.current_mc, target.reserve_mc) == (2, PLAIN.reset_mc + liability, 0)
    assert RetiredLiability.objects.count() == 0
    audit_clean()
    assert SignificantEvent.objects.filter(kind="retirement", user=checker).count() == 1


def test_a_retirement_without_a_target_goes_to_the_register(played, maker, checker):
    liability = played.current_mc - played.reset_mc + played.reserve_mc
    proposal = progressive_retire(played.progressive, maker, "Closed for good")
    change_approve(proposal, checker)
    register = RetiredLiability.objects.get()
    assert (
        register.level,
        register.amount_mc,
        register.proposal.proposed_by,
        register.proposal.decided_by,
    ) == (played, liability, maker, checker)
    out = LedgerEntry.objects.get(proposal=proposal)
    assert (out.kind, out.transferred_mc) == ("transfer_out", -liability)
    assert meters(played)[5] == "retired"
    audit_clean()
    with pytest.raises(EngineError) as refused:
        change_propose(kind="topup", user=maker, reason="x", level=played, amount_mc=1)
    assert refused.value.code == "level_retired"
    with pytest.raises(EngineError) as refused:
        progressive_retire(played.progressive, maker, "again")
    assert refused.value.code == "already_retired"


def test_approving_twice_or_a_rejected_one_is_refused(played, maker, checker):
    other = get_user_model().objects.create_user("third")
    proposal = change_propose(kind="topup", user=maker, reason="x", level=played, amount_mc=1_000)
    change_approve(proposal, checker)
    after = meters(played)
    with pytest.raises(EngineError) as refused:
        change_approve(proposal, other)
    assert refused.value.code == "decided_already"
    assert "approved already by Carlo Bianchi" in refused.value.message
    assert meters(played) == after
    rejected = change_propose(kind="topup", user=maker, reason="y", level=played, amount_mc=2_000)
    change_reject(rejected, checker, "Not documented")
    with pytest.raises(EngineError) as refused:
        change_approve(rejected, other)
    assert refused.value.code == "decided_already"
    rejected.refresh_from_db()
    assert (rejected.state, rejected.decision_reason) == ("rejected", "Not documented")
    assert meters(played) == after
    assert (
        SignificantEvent.objects.filter(kind="change_rejected", detail__contains="Not documented").count()
        == 1
    )


def test_a_rejection_needs_a_reason(played, maker, checker):
    proposal = change_propose(kind="topup", user=maker, reason="x", level=played, amount_mc=1_000)
    with pytest.raises(EngineError) as refused:
        change_reject(proposal, checker, "  ")
    assert refused.value.code == "reason_required"
    proposal.refresh_from_db()
    assert proposal.state == "pending"


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"kind": "correction", "amount_mc": 0}, "zero_amount"),
        ({"kind": "topup", "amount_mc": 0}, "zero_amount"),
        ({"kind": "topup", "amount_mc": -5}, "negative_amount"),
        ({"kind": "correction", "amount_mc": 5, "reason": ""}, "reason_required"),
        ({"kind": "correction", "amount_mc": 5, "reason": "   "}, "reason_required"),
        ({"kind": "jackpot", "amount_mc": 5}, "unknown_kind"),
        ({"kind": "correction", "amount_mc": -(10**11)}, "amount_negative"),
        ({"kind": "correction", "amount_mc": -1_234_561}, "below_reset"),
        ({"kind": "correction", "amount_mc": "5"}, "invalid_amount"),
        ({"kind": "correction", "amount_mc": True}, "invalid_amount"),
        ({"kind": "parameters", "params": {}}, "no_changes"),
        ({"kind": "parameters", "params": {"rate": "2"}}, "invalid_parameter"),
        ({"kind": "parameters", "params": {"colour": "red"}}, "unknown_parameter"),
        ({"kind": "transfer", "amount_mc": 5}, "target_required"),
    ],
)
def test_bad_input_is_refused_with_a_code_and_nothing_changes(played, maker, checker, fields, code):
    before = meters(played)
    rows = LedgerEntry.objects.count()
    arguments = {"user": maker, "reason": "Because", "level": played, **fields}
    with pytest.raises(EngineError) as refused:
        change_propose(**arguments)
    assert refused.value.code == code
    assert refused.value.message.endswith(".")
    assert (ChangeProposal.objects.count(), SignificantEvent.objects.count()) == (0, 0)
    assert (meters(played), LedgerEntry.objects.count()) == (before, rows)


def test_a_correction_that_no_longer_holds_at_approval_is_refused_and_nothing_moves(played, maker, checker):
    first = change_propose(kind="correction", user=maker, reason="a", level=played, amount_mc=-1_000_000)
    second = change_propose(kind="correction", user=maker, reason="b", level=played, amount_mc=-1_000_000)
    change_approve(first, checker)
    before = meters(played)
    with pytest.raises(EngineError) as refused:
        change_approve(second, checker)
    assert refused.value.code == "below_reset"
    second.refresh_from_db()
    assert (second.state, meters(played)) == ("pending", before)


def test_a_parameter_change_is_staged_on_approval_in_the_proposers_name(played, maker, checker):
    proposal = change_propose(
        kind="parameters", user=maker, reason="New pay table", level=played, params={"rate": "0.02"}
    )
    assert LevelChange.objects.count() == 0
    change_approve(proposal, checker)
    proposal.refresh_from_db()
    change = proposal.level_change
    assert (change.state, change.user, change.new, change.old) == (
        "staged",
        maker,
        {"rate": "0.02"},
        {"rate": "0.01000000"},
    )
    played.refresh_from_db()
    assert played.rate == Decimal("0.01")


def test_a_stopped_levels_parameter_change_names_the_proposal_in_its_seed_row(played, maker, checker):
    Level.objects.filter(pk=played.pk).update(state=Level.State.SUSPENDED)
    played.refresh_from_db()
    proposal = change_propose(
        kind="parameters", user=maker, reason="Higher reset", level=played, params={"reset_mc": 200_000_000}
    )
    change_approve(proposal, checker)
    row = LedgerEntry.objects.get(proposal=proposal)
    assert (row.kind, row.seeded_mc) == ("seed", 200_000_000 - played.current_mc)
    audit_clean()


def test_the_identity_holds_through_every_kind(played, target, maker, checker):
    """opening + contributions + top-ups and resets put in - awards ± corrections ± transfers = closing,
    for each level, from its ledger alone, after a mix of every kind and a hit on each level."""
    for kind, level, amount, to in [
        ("correction", played, 2_345_678, None),
        ("topup", target, 10_000_001, None),
        ("transfer", played, 777_777, target),
        ("correction", target, -3_000_000, None),
    ]:
        proposal = change_propose(
            kind=kind, user=maker, reason="mix", level=level, amount_mc=amount, target_level=to
        )
        change_approve(proposal, checker)
    level_wager_add(target.pk, 99_999)
    level_hit(played.pk)
    level_hit(target.pk)
    change_approve(progressive_retire(played.progressive, maker, "end", target_level=target), checker)
    for level in (played, target):
        level.refresh_from_db()
        rows = LedgerEntry.objects.filter(level=level)
        flows = sum(
            r.contributed_mc + r.seeded_mc - r.awarded_mc + r.corrected_mc + r.transferred_mc for r in rows
        )
        assert flows == level.current_mc + level.reserve_mc + level.overflow_mc
    transfers = LedgerEntry.objects.filter(kind__in=["transfer_out", "transfer_in"])
    assert sum(transfers.values_list("transferred_mc", flat=True)) == 0
    assert SignificantEvent.objects.filter(kind="transfer").count() == 1
    audit_clean()


def test_a_level_that_does_not_exist_is_refused(db, maker):
    with pytest.raises(EngineError) as refused:
        change_propose(kind="topup", user=maker, reason="x", level=Level(pk=987_654), amount_mc=5)
    assert refused.value.code == "level_required"
    with pytest.raises(EngineError) as refused:
        change_propose(kind="topup", user=maker, reason="x", amount_mc=5)
    assert refused.value.code == "level_required"
    assert ChangeProposal.objects.count() == 0
