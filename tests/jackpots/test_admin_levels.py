"""Progressives and levels in the admin: meters, last wins, parameter changes through the engine, history,
mystery triggers for auditors only."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse
from django.utils import timezone

from jackpots.admin.common import eur_mc
from jackpots.models import ChangeProposal, Hit, LevelChange
from jackpots.services import change_approve, hit_verify, hit_void, level_hit
from tests.factories import ProgressiveFactory, SlotMachineFactory
from tests.floor.staff import level_seeded


@pytest.fixture
def level(db):
    return level_seeded(
        progressive=ProgressiveFactory(name="Grease"),
        name="Mega",
        reset_mc=100_000_000,
        limit_mc=300_000_000,
        mystery=True,
    )


def _params_url(level) -> str:
    return reverse("admin:jackpots_level_parameters", args=[level.pk])


@pytest.mark.parametrize(
    ("who", "status"), [("manager", 200), ("attendant", 200), ("auditor", 200), ("plain_staff", 403)]
)
def test_level_and_progressive_pages_by_role(client, request, level, who, status):
    client.force_login(request.getfixturevalue(who))
    for url in (
        reverse("admin:jackpots_level_changelist"),
        reverse("admin:jackpots_level_change", args=[level.pk]),
        reverse("admin:jackpots_progressive_changelist"),
        reverse("admin:jackpots_progressive_change", args=[level.progressive_id]),
    ):
        assert client.get(url).status_code == status


@pytest.mark.parametrize(("who", "status"), [("manager", 200), ("attendant", 403), ("auditor", 403)])
def test_parameter_page_by_role(client, request, level, who, status):
    client.force_login(request.getfixturevalue(who))
    assert client.get(_params_url(level)).status_code == status
    response = client.post(_params_url(level), {"reset_eur": "1", "reason": "x"})
    assert response.status_code == (400 if status == 200 else 403)


def _form(level, **changes) -> dict:
    data = {
        "reset_eur": "1000.00000",
        "rate": str(level.rate),
        "reserve_rate": str(level.reserve_rate),
        "limit_eur": "3000.00000",
        "min_wager_cents": "0",
        "mystery": "on",
        "reason": "",
    }
    data.update(changes)
    return data


def test_parameter_change_is_proposed_then_staged_on_approval_with_reason_and_history(
    client, manager, manager2, level
):
    client.force_login(manager)
    refused = client.post(_params_url(level), _form(level, rate="0.02"))
    assert refused.status_code == 400
    assert "This field is required." in refused.content.decode()
    assert LevelChange.objects.count() == 0

    response = client.post(_params_url(level), _form(level, rate="0.02", reason="New pay table"))
    assert response.status_code == 302
    # One person only proposes: nothing is staged until another approves (maker-checker).
    proposal = ChangeProposal.objects.get()
    assert (proposal.kind, proposal.params, proposal.proposed_by) == ("parameters", {"rate": "0.02"}, manager)
    assert LevelChange.objects.count() == 0
    assert (
        LogEntry.objects.get(object_id=str(level.pk)).change_message
        == "Parameters proposed: {'rate': '0.02'}"
    )
    change_approve(proposal, manager2)
    change = LevelChange.objects.get()
    assert (change.state, change.user, change.reason) == (LevelChange.State.STAGED, manager, "New pay table")
    assert change.old == {"rate": "0.01000000"} and change.new == {"rate": "0.02"}
    level.refresh_from_db()
    assert level.rate == Decimal("0.01")  # staged until the next reset (rule 4)

    page = client.get(reverse("admin:jackpots_level_change", args=[level.pk])).content.decode()
    assert "New pay table" in page
    assert "Staged until the next reset" in page


def test_engine_refusal_is_shown_and_changes_nothing(client, manager, level):
    client.force_login(manager)
    response = client.post(_params_url(level), _form(level, limit_eur="500", reason="lower"))
    assert response.status_code == 400
    assert "The limit must be above the reset value. (invalid_parameter)" in response.content.decode()
    assert (LevelChange.objects.count(), ChangeProposal.objects.count()) == (0, 0)


def test_nothing_changed_is_refused(client, manager, level):
    client.force_login(manager)
    response = client.post(_params_url(level), _form(level, reason="nothing"))
    assert response.status_code == 400
    assert "Nothing differs" in response.content.decode()


def test_level_page_shows_meters_and_last_25_wins(client, manager, level):
    machine = SlotMachineFactory(asset_number="NOG-0301")
    for _ in range(27):
        level_hit(level.pk, machine_id=machine.pk)
    client.force_login(manager)
    page = client.get(reverse("admin:jackpots_level_change", args=[level.pk])).content.decode()
    wins = page[page.index('id="level-wins"') : page.index('id="level-changes"')]
    assert wins.count("NOG-0301") == 25
    assert "<td>27</td>" in wins and "<td>3</td>" in wins and "<td>2</td>" not in wins


def _wins_rows(page: str) -> list[tuple[int, str, str]]:
    """(number, machine, state) of each row of the level page's wins table, in page order."""
    table = page[page.index('id="level-wins"') : page.index('id="level-changes"')]
    rows = re.findall(
        r"<tr><td>(\d+)</td><td>[^<]*</td><td>([^<]*)</td><td[^>]*>[^<]*</td><td>([^<]*)</td></tr>", table
    )
    return [(int(number), machine, state) for number, machine, state in rows]


def test_level_page_shows_the_latest_25_wins_newest_first_without_the_voided_hit(client, manager, level):
    machines = [SlotMachineFactory(asset_number=f"NOG-03{n:02d}") for n in range(1, 4)]
    hits = [level_hit(level.pk, machine_id=machines[n % 3].pk) for n in range(28)]
    hit_void(hits[-1], manager, "Door open during the spin")
    hits += [level_hit(level.pk, machine_id=machines[n % 3].pk) for n in range(28, 30)]
    hit_verify(hits[-1], manager)
    assert [hit.number for hit in hits] == list(range(1, 31))
    # Hit.Meta orders by time: make time disagree with the numbers, which decide.
    Hit.objects.filter(pk=hits[0].pk).update(at=timezone.now() + timedelta(hours=1))

    client.force_login(manager)
    page = client.get(reverse("admin:jackpots_level_change", args=[level.pk])).content.decode()

    expected_numbers = [30, 29, *range(27, 4, -1)]
    assert len(expected_numbers) == 25
    assert _wins_rows(page) == [
        (n, f"NOG-03{(n - 1) % 3 + 1:02d}", "Verified" if n == 30 else "Hit") for n in expected_numbers
    ]


def test_mystery_trigger_only_for_auditors(client, manager, attendant, auditor, level):
    level.refresh_from_db()
    assert level.trigger_mc is not None
    trigger = eur_mc(level.trigger_mc)
    assert trigger not in ("1,000.00", "3,000.00")  # a drawn value, distinct from reset and limit
    for user, shown in ((manager, False), (attendant, False), (auditor, True)):
        client.force_login(user)
        for url in (
            reverse("admin:jackpots_level_change", args=[level.pk]),
            reverse("admin:jackpots_level_changelist"),
        ):
            body = client.get(url).content.decode()
            assert ("Mystery trigger" in body) is shown
            assert (trigger in body) is shown


@pytest.mark.parametrize(("who", "shown"), [("manager", True), ("auditor", True), ("attendant", False)])
def test_level_page_links_to_its_history_for_report_readers(client, request, level, who, shown):
    client.force_login(request.getfixturevalue(who))
    body = client.get(reverse("admin:jackpots_level_change", args=[level.pk])).content.decode()
    assert (f"/floor/reports/level-history/?level={level.pk}&amp;first=" in body) is shown
