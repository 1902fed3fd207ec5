"""The approval queue and the level page's proposals: one person proposes, another approves or rejects;
the proposer sees their own but cannot decide it; refusals answer 400 with a sentence and a code."""

from __future__ import annotations

import pytest
from django.urls import reverse

from jackpots.models import ChangeProposal, LedgerEntry, Level
from jackpots.services import change_propose
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory
from tests.floor.staff import level_seeded

pytestmark = pytest.mark.django_db
QUEUE = "/approvals/"


@pytest.fixture
def grand(db):
    progressive = ProgressiveFactory(name="Grease")
    ProgressiveMachineFactory(progressive=progressive, machine=SlotMachineFactory(asset_number="NOG-0005"))
    return level_seeded(progressive=progressive, name="Grand", reset_mc=100_000_000)


def _propose_url(level, kind: str) -> str:
    return reverse("workspace:level-propose", args=[level.pk, kind])


def _current(level) -> int:
    level.refresh_from_db()
    return level.current_mc


def test_a_correction_proposed_on_the_level_page_waits_then_another_manager_approves_it(
    client, manager, manager2, grand
):
    client.force_login(manager)
    data = {"correction-amount_eur": "12.34567", "correction-reason": "Ticket 88: double count"}
    response = client.post(_propose_url(grand, "correction"), data)
    assert response.status_code == 302
    proposal = ChangeProposal.objects.get()
    assert (proposal.kind, proposal.amount_mc, proposal.proposed_by) == ("correction", 1_234_567, manager)
    assert _current(grand) == 100_000_000

    page = client.get(QUEUE).content.decode()
    assert "Yours: another person decides it." in page
    assert "proposal-decide" not in page and f"/approvals/{proposal.pk}/approve/" not in page
    own = client.post(f"/approvals/{proposal.pk}/approve/")
    assert own.status_code == 400
    assert "(same_person)" in own.content.decode()
    assert _current(grand) == 100_000_000

    client.force_login(manager2)
    page = client.get(QUEUE).content.decode()
    assert f"/approvals/{proposal.pk}/approve/" in page
    assert "+€\xa012.34" in page  # rounded down, as every amount people read
    assert client.post(f"/approvals/{proposal.pk}/approve/").status_code == 302
    assert _current(grand) == 100_000_000 + 1_234_567
    assert LedgerEntry.objects.get(proposal=proposal).corrected_mc == 1_234_567
    again = client.post(f"/approvals/{proposal.pk}/approve/")
    assert again.status_code == 400 and "(decided_already)" in again.content.decode()
    assert _current(grand) == 100_000_000 + 1_234_567


def test_a_rejection_needs_a_reason_and_moves_nothing(client, manager, manager2, grand):
    proposal = change_propose(
        kind="topup", user=manager, reason="Promotion", level=grand, amount_mc=5_000_000
    )
    client.force_login(manager2)
    refused = client.post(f"/approvals/{proposal.pk}/reject/", {"reason": ""})
    assert refused.status_code == 400 and "(reason_required)" in refused.content.decode()
    assert client.post(f"/approvals/{proposal.pk}/reject/", {"reason": "No ticket"}).status_code == 302
    proposal.refresh_from_db()
    assert (proposal.state, proposal.decided_by, proposal.decision_reason) == (
        "rejected",
        manager2,
        "No ticket",
    )
    assert _current(grand) == 100_000_000
    assert "No ticket" in client.get(QUEUE).content.decode()


@pytest.mark.parametrize(
    ("data", "shown"),
    [
        ({"correction-amount_eur": "0", "correction-reason": "x"}, "(zero_amount)"),
        ({"correction-amount_eur": "5", "correction-reason": ""}, "This field is required."),
        (
            {"correction-amount_eur": "-1000.00001", "correction-reason": "x"},
            "(amount_negative)",
        ),
        ({"correction-amount_eur": "-0.00001", "correction-reason": "x"}, "(below_reset)"),
        ({"topup-amount_eur": "abc", "topup-reason": "x"}, "Enter a number."),
        ({"transfer-amount_eur": "5", "transfer-reason": "x"}, "This field is required."),
    ],
)
def test_bad_proposals_answer_400_and_change_nothing(client, manager, grand, data, shown):
    kind = next(iter(data)).split("-")[0]
    client.force_login(manager)
    response = client.post(_propose_url(grand, kind), data)
    assert response.status_code == 400
    assert shown in response.content.decode()
    assert ChangeProposal.objects.count() == 0
    assert _current(grand) == 100_000_000


def test_an_unknown_kind_is_not_found(client, manager, grand):
    client.force_login(manager)
    assert client.post(_propose_url(grand, "jackpot"), {}).status_code == 404
    assert client.post("/approvals/1/steal/").status_code == 404


def test_who_may_see_propose_and_decide(client, attendant, auditor, manager, grand):
    proposal = change_propose(kind="topup", user=manager, reason="Promotion", level=grand, amount_mc=5_000)
    client.force_login(attendant)
    assert client.get(QUEUE).status_code == 403
    assert client.post(_propose_url(grand, "topup"), {}).status_code == 403
    client.force_login(auditor)
    page = client.get(QUEUE)
    assert page.status_code == 200 and "You may not decide it." in page.content.decode()
    assert client.post(f"/approvals/{proposal.pk}/approve/").status_code == 403
    assert 'id="propose-topup"' not in client.get(f"/progressives/levels/{grand.pk}/").content.decode()


def test_the_level_page_proposes_a_retirement_to_the_register(client, manager, manager2, grand):
    client.force_login(manager)
    page = client.get(f"/progressives/levels/{grand.pk}/").content.decode()
    for kind in ("correction", "topup", "transfer", "parameters", "retirement"):
        assert f'id="propose-{kind}"' in page
    response = client.post(_propose_url(grand, "retirement"), {"retirement-reason": "Bank replaced"})
    assert response.status_code == 302
    proposal = ChangeProposal.objects.get()
    client.force_login(manager2)
    assert client.post(f"/approvals/{proposal.pk}/approve/").status_code == 302
    grand.refresh_from_db()
    assert grand.state == Level.State.RETIRED
    page = client.get(f"/progressives/levels/{grand.pk}/").content.decode()
    assert 'id="propose-' not in page and "Retired" in page


def test_a_parameter_change_from_the_level_page(client, manager, grand):
    client.force_login(manager)
    data = {
        "parameters-reset_eur": "1000",
        "parameters-rate": "0.02",
        "parameters-reserve_rate": str(grand.reserve_rate),
        "parameters-limit_eur": "",
        "parameters-min_wager_cents": "0",
        "parameters-reason": "New pay table",
    }
    assert client.post(_propose_url(grand, "parameters"), data).status_code == 302
    assert ChangeProposal.objects.get().params == {"rate": "0.02"}
    assert "rate: 0.02" in client.get(QUEUE).content.decode()


def test_the_navigation_links_the_queue_for_who_may_see_it(client, manager, attendant):
    client.force_login(manager)
    assert 'href="/approvals/"' in client.get("/progressives/").content.decode()
    client.force_login(attendant)
    assert 'href="/approvals/"' not in client.get("/hits/").content.decode()
