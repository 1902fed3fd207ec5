"""A jackpot pending at the link: from the claim written with its round until the award naming the claim
is recorded here, the progressive's signs are told (live, after commit, and to a sign connecting
meanwhile), in the screen's language."""

from __future__ import annotations

import pytest
from django.utils import translation

from jackpots.hooks import hooks
from linksite.models import OutboxEntry
from linksite.selectors import progressives_pending
from linksite.services.mirror import awards_store
from signage.selectors import declaration_frames
from signage.views import sign_strings
from tests.linksite.factories import COMMUNITY, linked_site
from tests.linksite.services.test_award_parts import AWARD
from tests.tables.factories import body, seat

pytestmark = pytest.mark.django_db


@pytest.fixture
def told(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, dict]]:
    """What the engine's ``progressive_news`` listeners (the signs, the gateways) are told."""
    heard: list[tuple[int, dict]] = []
    monkeypatch.setattr(hooks, "progressive_news", [lambda pid, message: heard.append((pid, message))])
    return heard


def _frame(pid: int, pending: bool) -> tuple[int, dict]:
    frame = {"type": "pending", "jackpot": pid, "pending": pending}
    return pid, {"type": "declaration.changed", "frame": frame}


def _claim_round(django_capture_on_commit_callbacks, round_id: str = "L-1"):
    t, _table, key, membership = linked_site()
    seats = [seat(1, "3H 5H", 1_000), seat(2, "KC KD", 2_000), seat(3, "9S 9D", 500)]
    with django_capture_on_commit_callbacks(execute=True):
        response = t.post("LUG-CHE-1", body(round_id, seats, COMMUNITY, 5), key=key)
    assert response.status_code == 201, response.json()
    return membership


def test_a_claim_makes_the_jackpot_pending_and_its_award_ends_it(told, django_capture_on_commit_callbacks):
    membership = _claim_round(django_capture_on_commit_callbacks)
    pid = membership.progressive_id
    assert progressives_pending([pid]) == {pid}
    assert told == [_frame(pid, True)]
    assert declaration_frames([pid]) == [{"type": "pending", "jackpot": pid, "pending": True}]

    with django_capture_on_commit_callbacks(execute=True):
        awards_store(membership, [AWARD])  # its parts name the claim, seq 2
    assert progressives_pending([pid]) == set()
    assert told == [_frame(pid, True), _frame(pid, False)]
    assert declaration_frames([pid]) == []
    claim = OutboxEntry.objects.get(kind="claim")
    assert (claim.seq, claim.awarded_at is not None) == (2, True)


def test_an_award_for_another_claim_leaves_the_jackpot_pending(told, django_capture_on_commit_callbacks):
    membership = _claim_round(django_capture_on_commit_callbacks)
    pid = membership.progressive_id
    other = dict(AWARD, id=18, parts=[dict(part, seq=7) for part in AWARD["parts"]])
    with django_capture_on_commit_callbacks(execute=True):
        awards_store(membership, [other])
    assert progressives_pending([pid]) == {pid}
    assert told[-1] == _frame(pid, True)


def test_an_award_heard_again_tells_nothing_more(told, django_capture_on_commit_callbacks):
    membership = _claim_round(django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        awards_store(membership, [AWARD])
    with django_capture_on_commit_callbacks(execute=True):
        awards_store(membership, [AWARD])
    assert len(told) == 2


def test_a_round_without_a_claim_tells_the_signs_nothing(told, django_capture_on_commit_callbacks):
    t, _table, key, membership = linked_site()
    with django_capture_on_commit_callbacks(execute=True):
        t.post("LUG-CHE-1", body("L-2", [seat(1, "KC KD", 1_000)], COMMUNITY, 5), key=key)
    assert OutboxEntry.objects.filter(kind="contribution").count() == 1
    assert (told, progressives_pending([membership.progressive_id])) == ([], set())


def test_a_switched_off_membership_is_not_pending(django_capture_on_commit_callbacks):
    membership = _claim_round(django_capture_on_commit_callbacks)
    type(membership).objects.filter(pk=membership.pk).update(active=False)
    assert progressives_pending([membership.progressive_id]) == set()


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("it", "Jackpot vinto: in attesa di conferma dal collegamento"),
        ("en", "Jackpot won: awaiting the link's confirmation"),
    ],
)
def test_the_signs_words_for_it_are_in_the_screens_language(language, text):
    with translation.override(language):
        assert sign_strings()["link_pending"] == text
