"""The forwarder against a fake link keeping the wire contract: every entry delivered once, in order,
through lost answers, 500s, a broken line, a forwarder killed mid-post and a link that lost entries."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from linksite.forwarder import LinkForwarder, Outcome
from linksite.models import LinkMembership, LinkPoolMirror, OutboxEntry
from tests.linksite.factories import entries_add, linked_site
from tests.linksite.fake_link import FakeLink, Killed
from tests.tables.factories import T0

pytestmark = pytest.mark.django_db

NOW = T0 + timedelta(hours=1)


def _forwarder(link: FakeLink, membership: LinkMembership, clock=lambda: NOW) -> LinkForwarder:
    return LinkForwarder(membership.pk, client=link.client(), clock=clock)


def _acked() -> list[int]:
    return list(
        OutboxEntry.objects.filter(acked_at__isnull=False).order_by("seq").values_list("seq", flat=True)
    )


def test_a_batch_is_marked_only_once_the_link_acknowledges_it() -> None:
    *_, membership = linked_site()
    entries_add(membership, 3)
    link = FakeLink()
    sent = _forwarder(link, membership).send_once()
    assert (sent.outcome, sent.entries, sent.acked) == (Outcome.ACKED, 3, 3)
    assert link.applied == [1, 2, 3]
    # The site's own books through the batch's last entry: 3 contributions of 1,500 cents.
    assert link.books == [{"seq": 3, "wagered_cents": 4_500}]
    assert _acked() == [1, 2, 3]
    assert set(OutboxEntry.objects.values_list("acked_at", flat=True)) == {NOW}
    membership.refresh_from_db()
    assert (membership.acked_seq, membership.last_sent_at, membership.last_error) == (3, NOW, "")
    # The ack's pool is what the link holds now: the mirror keeps it.
    mirror = LinkPoolMirror.objects.get()
    assert (mirror.amount_mc, mirror.currency, mirror.value_seq, mirror.heard_at) == (
        1_000_003,
        "EUR",
        13,
        NOW,
    )


def test_through_is_now_less_the_lag_a_table_may_take_to_post_its_round(settings) -> None:
    settings.LINK_THROUGH_LAG_SECONDS = 10
    *_, membership = linked_site()
    link = FakeLink()
    _forwarder(link, membership).send_once()
    # 19:00 less 10 s: the link applies the pool within seconds of play, not a settle window late.
    assert link.throughs == ["2036-11-21T18:59:50.000Z"]


def test_an_empty_outbox_says_through_every_link_through_seconds(settings) -> None:
    settings.LINK_THROUGH_SECONDS = 5
    *_, membership = linked_site()
    link = FakeLink()
    now = [NOW]
    forwarder = _forwarder(link, membership, clock=lambda: now[0])
    assert forwarder.send_once().outcome is Outcome.ACKED
    now[0] = NOW + timedelta(seconds=4)
    assert forwarder.send_once().outcome is Outcome.IDLE
    now[0] = NOW + timedelta(seconds=5)
    assert forwarder.send_once().outcome is Outcome.ACKED
    assert (link.requests, link.posted) == (2, [[], []])
    # A new entry goes at once, whatever the time.
    entries_add(membership, 1)
    now[0] = NOW + timedelta(seconds=6)
    assert forwarder.send_once().outcome is Outcome.ACKED
    assert link.posted == [[], [], [1]]
    assert link.books == [None, None, {"seq": 1, "wagered_cents": 1_500}]  # an empty batch has no books


def test_a_lost_answer_sends_the_same_entries_again_and_the_link_applies_them_once() -> None:
    *_, membership = linked_site()
    entries_add(membership, 3)
    link = FakeLink(faults=["lost"])
    forwarder = _forwarder(link, membership)
    sent = forwarder.send_once()
    assert sent.outcome is Outcome.RETRY
    assert (link.applied, _acked()) == ([1, 2, 3], [])  # stored at the link, nothing marked here
    membership.refresh_from_db()
    assert membership.last_error.startswith("The link is unreachable: ReadTimeout")
    entries_add(membership, 1, start=4)
    assert forwarder.send_once().outcome is Outcome.ACKED
    assert link.posted == [[1, 2, 3], [1, 2, 3, 4]]
    assert (link.applied, _acked()) == ([1, 2, 3, 4], [1, 2, 3, 4])
    membership.refresh_from_db()
    assert (membership.acked_seq, membership.last_error) == (4, "")


def test_a_forwarder_killed_mid_post_loses_nothing_and_the_next_sends_it_again() -> None:
    *_, membership = linked_site()
    entries_add(membership, 2)
    link = FakeLink(faults=["kill"])
    with pytest.raises(Killed):
        _forwarder(link, membership).send_once()
    assert (link.applied, _acked()) == ([1, 2], [])
    membership.refresh_from_db()
    assert membership.acked_seq == 0
    assert _forwarder(link, membership).send_once().outcome is Outcome.ACKED  # a new process
    assert (link.applied, _acked()) == ([1, 2], [1, 2])


def test_500s_and_a_broken_line_are_retried_and_mark_nothing() -> None:
    *_, membership = linked_site()
    entries_add(membership, 2)
    link = FakeLink(faults=["500", "connect"])
    forwarder = _forwarder(link, membership)
    assert forwarder.send_once().outcome is Outcome.RETRY
    membership.refresh_from_db()
    assert membership.last_error == "The link answered 500 server_error: Try again."
    assert forwarder.send_once().outcome is Outcome.RETRY
    membership.refresh_from_db()
    assert membership.last_error == "The link is unreachable: ConnectError: connection refused"
    assert (link.applied, _acked()) == ([], [])
    assert forwarder.send_once().outcome is Outcome.ACKED
    assert (link.applied, _acked()) == ([1, 2], [1, 2])


def test_a_link_that_lost_acknowledged_entries_gets_them_again_and_the_fault_is_recorded() -> None:
    *_, membership = linked_site()
    entries_add(membership, 3)
    link = FakeLink()
    forwarder = _forwarder(link, membership)
    forwarder.send_once()
    link.lose_after(1)  # the link's books restored from before entry 2
    entries_add(membership, 2, start=4)
    sent = forwarder.send_once()
    assert (sent.outcome, sent.acked) == (Outcome.GAP, 1)
    assert _acked() == [1]  # 2 and 3 are owed again
    membership.refresh_from_db()
    assert membership.acked_seq == 1
    assert (
        membership.last_error
        == "The link holds entries up to 1 only; 3 had been acknowledged. 2 entries are sent again."
    )
    assert forwarder.send_once().outcome is Outcome.ACKED
    assert link.posted == [[1, 2, 3], [4, 5], [2, 3, 4, 5]]
    assert (sorted(link.entries), _acked()) == ([1, 2, 3, 4, 5], [1, 2, 3, 4, 5])
    membership.refresh_from_db()
    assert (membership.acked_seq, membership.last_error) == (5, "")


def test_a_conflict_stops_the_forwarder_with_the_error_recorded() -> None:
    *_, membership = linked_site()
    entries_add(membership, 2)
    link = FakeLink()
    link.entries[1] = {"seq": 1, "kind": "contribution", "wagered_cents": 99}
    forwarder = _forwarder(link, membership)
    sent = forwarder.send_once()
    assert sent.outcome is Outcome.CONFLICT
    membership.refresh_from_db()
    assert membership.last_error == (
        "The link refused an entry as a conflict (staff must look): "
        "Entry 1 was already received with other content."
    )
    assert _acked() == []
    forwarder.run()  # returns at once: it does not send past a conflict
    assert link.requests == 2


def test_a_backlog_goes_in_batches_of_200(settings) -> None:
    settings.LINK_THROUGH_LAG_SECONDS = 10
    *_, membership = linked_site()
    entries_add(membership, 205)  # played at T0 + seq seconds
    link = FakeLink()
    forwarder = _forwarder(link, membership, clock=lambda: T0 + timedelta(seconds=400))
    assert forwarder.send_once().entries == 200
    assert forwarder.send_once().entries == 5
    assert [len(batch) for batch in link.posted] == [200, 5]
    # The first batch leaves #201 (played at 18:03:21) behind: through stops there, not at now less the
    # lag (18:06:30), which the second batch, with nothing left behind, says.
    assert link.throughs == ["2036-11-21T18:03:21.000Z", "2036-11-21T18:06:30.000Z"]
    assert link.applied == list(range(1, 206))


def test_the_loop_delivers_every_entry_once_in_order_through_every_fault(settings) -> None:
    settings.LINK_FORWARD_POLL_SECONDS = 0.001
    settings.LINK_BACKOFF_MAX_SECONDS = 0.004
    *_, membership = linked_site()
    entries_add(membership, 7)
    link = FakeLink(faults=["connect", "500", "lost", "500", "lost", "connect"])
    forwarder = LinkForwarder(membership.pk, client=link.client(), clock=timezone.now)

    def done(fake: FakeLink) -> None:
        if fake.acked == 7:
            forwarder.stop.set()

    link.on_answer = done
    forwarder.run()
    assert link.applied == [1, 2, 3, 4, 5, 6, 7]
    assert _acked() == [1, 2, 3, 4, 5, 6, 7]
    assert link.faults == []


def test_an_inactive_membership_sends_nothing() -> None:
    *_, membership = linked_site(active=False)
    entries_add(membership, 1)
    link = FakeLink()
    assert _forwarder(link, membership).send_once().outcome is Outcome.INACTIVE
    assert link.requests == 0


def test_link_forward_once_sends_one_batch_per_membership(monkeypatch) -> None:
    *_, membership = linked_site()
    entries_add(membership, 2)
    link = FakeLink()
    monkeypatch.setattr("linksite.forwarder.httpx.Client", lambda **_: link.client())
    out = StringIO()
    call_command("link_forward", "--once", stdout=out)
    assert out.getvalue() == "JUMBO7 @ https://link.example.test: acked, 2 entries, acked 2\n"
    assert link.applied == [1, 2]


def test_a_pool_in_another_currency_than_the_progressive_is_a_fault_said_loudly() -> None:
    *_, membership = linked_site()
    entries_add(membership, 1)
    link = FakeLink(currency="CHF")
    assert _forwarder(link, membership).send_once().outcome is Outcome.ACKED
    membership.refresh_from_db()
    assert (
        membership.last_error
        == "The link's pool is in CHF, this site's progressive in EUR: the rates sent are wrong."
    )
