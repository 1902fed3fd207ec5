"""The hits queue: who may do what, each action through the engine, each step in the admin log."""

from __future__ import annotations

from unittest import mock

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from jackpots import services
from jackpots.models import Hit
from jackpots.services import level_hit
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory, VenueFactory
from tests.floor.staff import level_seeded

CHANGELIST = reverse("admin:jackpots_hit_changelist")


@pytest.fixture
def machine(db):
    return SlotMachineFactory(asset_number="NOG-0104", room__venue=VenueFactory())


def _hit(machine, reset_mc: int) -> Hit:
    progressive = ProgressiveFactory(name="Diamond Vault")
    ProgressiveMachineFactory(progressive=progressive, machine=machine)
    level = level_seeded(progressive=progressive, reset_mc=reset_mc)
    return level_hit(level.pk, machine_id=machine.pk)


@pytest.fixture
def small_hit(machine) -> Hit:
    """€500: one verifier is enough."""
    return _hit(machine, 50_000_000)


@pytest.fixture
def big_hit(machine) -> Hit:
    """€1,500: at or above the €1,200 threshold, two people verify."""
    return _hit(machine, 150_000_000)


def _act(client, user, action: str, hits: list[Hit], **extra):
    client.force_login(user)
    data = {"action": action, "_selected_action": [hit.pk for hit in hits], **extra}
    return client.post(CHANGELIST, data, follow=True)


def _log(hit: Hit) -> list[tuple[str, str]]:
    return [
        (entry.user.username, entry.change_message)
        for entry in LogEntry.objects.filter(object_id=str(hit.pk), content_type__model="hit").order_by("id")
    ]


@pytest.mark.parametrize(
    ("who", "status"),
    [("manager", 200), ("attendant", 200), ("auditor", 200), ("plain_staff", 403)],
)
def test_queue_and_hit_page_by_role(client, request, small_hit, who, status):
    client.force_login(request.getfixturevalue(who))
    assert client.get(CHANGELIST).status_code == status
    assert client.get(reverse("admin:jackpots_hit_change", args=[small_hit.pk])).status_code == status


def test_queue_shows_machine_level_amount_age_newest_first(client, manager, machine, small_hit):
    later = _hit(SlotMachineFactory(asset_number="NOG-0105", room=machine.room), 60_000_000)
    client.force_login(manager)
    body = client.get(CHANGELIST).content.decode()
    assert body.index("NOG-0105") < body.index("NOG-0104")
    assert "500.00" in body and "600.00" in body
    assert "Diamond Vault Grand" in body
    assert "0\xa0minutes" in body
    assert later.state == Hit.State.HIT


@pytest.mark.parametrize(
    ("who", "actions"),
    [
        ("manager", {"verify_selected", "pay_selected", "void_selected"}),
        ("attendant", {"verify_selected"}),
        ("auditor", set()),
    ],
)
def test_actions_offered_by_role(client, request, small_hit, who, actions):
    client.force_login(request.getfixturevalue(who))
    response = client.get(CHANGELIST)
    form = response.context["action_form"]
    offered = {value for value, _ in form.fields["action"].choices if value} if form else set()
    assert offered == actions


def test_verify_then_pay_calls_the_engine_and_is_logged(client, manager, small_hit):
    with mock.patch("jackpots.admin.hits.hit_verify", wraps=services.hit_verify) as spy:
        _act(client, manager, "verify_selected", [small_hit])
    assert spy.call_count == 1
    assert spy.call_args.args[0].pk == small_hit.pk
    assert spy.call_args.args[1] == manager
    with mock.patch("jackpots.admin.hits.hit_pay", wraps=services.hit_pay) as spy:
        _act(client, manager, "pay_selected", [small_hit])
    assert spy.call_count == 1
    small_hit.refresh_from_db()
    assert small_hit.state == Hit.State.PAID
    assert (small_hit.verified_by, small_hit.paid_by) == (manager, manager)
    assert small_hit.verified_at is not None and small_hit.paid_at is not None
    assert _log(small_hit) == [("manager", "Verified"), ("manager", "Paid")]


def test_attendant_verifies_but_cannot_pay_or_void(client, attendant, small_hit):
    _act(client, attendant, "verify_selected", [small_hit])
    small_hit.refresh_from_db()
    assert (small_hit.state, small_hit.verified_by) == (Hit.State.VERIFIED, attendant)
    for action in ("pay_selected", "void_selected"):
        response = _act(client, attendant, action, [small_hit], reason="x", confirm="1")
        assert "No action selected." in response.content.decode()
    small_hit.refresh_from_db()
    assert small_hit.state == Hit.State.VERIFIED
    assert _log(small_hit) == [("attendant", "Verified")]


def test_auditor_changes_nothing(client, auditor, small_hit):
    for action in ("verify_selected", "pay_selected", "void_selected"):
        _act(client, auditor, action, [small_hit], reason="x", confirm="1")
    small_hit.refresh_from_db()
    assert small_hit.state == Hit.State.HIT
    assert _log(small_hit) == []


def test_two_person_rule_at_threshold(client, manager, manager2, attendant, big_hit):
    response = _act(client, attendant, "verify_selected", [big_hit])
    assert "a second person must verify" in response.content.decode()
    big_hit.refresh_from_db()
    assert (big_hit.state, big_hit.verified_by) == (Hit.State.HIT, attendant)
    # The same person again is refused by the engine, and the refusal is shown.
    response = _act(client, attendant, "verify_selected", [big_hit])
    assert "second_verifier_required" in response.content.decode()
    # Nobody pays before the second verification.
    response = _act(client, manager, "pay_selected", [big_hit])
    assert "hit_not_verified" in response.content.decode()
    _act(client, manager2, "verify_selected", [big_hit])
    _act(client, manager, "pay_selected", [big_hit])
    big_hit.refresh_from_db()
    assert (big_hit.state, big_hit.second_verified_by, big_hit.paid_by) == (Hit.State.PAID, manager2, manager)
    assert _log(big_hit) == [
        ("attendant", "First verification (two-person rule)"),
        ("manager2", "Verified"),
        ("manager", "Paid"),
    ]


def test_void_asks_for_a_reason_then_calls_the_engine(client, manager, small_hit):
    response = _act(client, manager, "void_selected", [small_hit])
    assert response.status_code == 200
    assert "These hits will be voided" in response.content.decode()
    small_hit.refresh_from_db()
    assert small_hit.state == Hit.State.HIT
    response = _act(client, manager, "void_selected", [small_hit], confirm="1", reason="")
    assert "This field is required." in response.content.decode()
    with mock.patch("jackpots.admin.hits.hit_void", wraps=services.hit_void) as spy:
        _act(client, manager, "void_selected", [small_hit], confirm="1", reason="Reel malfunction")
    assert spy.call_args.args[1:] == (manager, "Reel malfunction")
    small_hit.refresh_from_db()
    assert (small_hit.state, small_hit.voided_by, small_hit.void_reason) == (
        Hit.State.VOIDED,
        manager,
        "Reel malfunction",
    )
    assert _log(small_hit) == [("manager", "Voided: Reel malfunction")]


def test_paid_hit_cannot_be_voided(client, manager, small_hit):
    _act(client, manager, "verify_selected", [small_hit])
    _act(client, manager, "pay_selected", [small_hit])
    response = _act(client, manager, "void_selected", [small_hit], confirm="1", reason="late")
    assert "hit_not_voidable" in response.content.decode()
    small_hit.refresh_from_db()
    assert small_hit.state == Hit.State.PAID


def test_mystery_snapshot_only_for_auditors(client, manager, auditor, small_hit):
    url = reverse("admin:jackpots_hit_change", args=[small_hit.pk])
    client.force_login(manager)
    assert "trigger_mc" not in client.get(url).content.decode()
    client.force_login(auditor)
    assert "trigger_mc" in client.get(url).content.decode()


def test_hit_page_reads_in_euros_without_engine_internals(client, manager, big_hit):
    """The hit's page showed the machine's figure as raw cents ("500060") and the engine's "level value
    sequence"; people read euros, and the sequence is for the audit trail."""
    Hit.objects.filter(pk=big_hit.pk).update(machine_amount_cents=150_001, discrepancy_cents=-1)
    client.force_login(manager)
    page = client.get(reverse("admin:jackpots_hit_change", args=[big_hit.pk])).content.decode()
    assert "1,500.00" in page  # the amount paid
    assert "1,500.01" in page  # what the machine showed
    assert "-0.01" in page
    assert "150001" not in page
    assert "value sequence" not in page
