"""Every event is stored once, whatever the interleaving of retries, duplicates and concurrent posts."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test import Client
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slots.models import MachineEvent
from slots.services.ingest import event_batch_ingest
from slots.services.parsing import Principal
from tests.slots.helpers import game, meters_event


@pytest.mark.django_db
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.data(),
    seqs=st.lists(st.integers(1, 40), min_size=1, max_size=25, unique=True),
)
def test_any_interleaving_of_duplicates_and_retries_stores_each_event_once(machine, data, seqs):
    principal = Principal(machine_id=machine.pk)
    events = {seq: game(machine, seq, win=seq * 10) for seq in seqs}
    # Each event is sent one or more times, in any order, split into batches of any size.
    sends = data.draw(st.lists(st.sampled_from(seqs), min_size=len(seqs), max_size=3 * len(seqs)))
    sends = data.draw(st.permutations(sends + seqs))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(sends)), max_size=6)))
    batches = [sends[start:end] for start, end in zip([0, *cuts], [*cuts, len(sends)], strict=True)]
    with transaction.atomic():
        accepted = duplicates = 0
        for batch in batches:
            result = event_batch_ingest([events[seq] for seq in batch], principal=principal)
            assert result.rejected == []
            accepted += result.accepted
            duplicates += result.duplicates
        stored = list(
            MachineEvent.objects.filter(machine=machine).order_by("seq").values_list("seq", "win_cents")
        )
        assert stored == [(seq, seq * 10) for seq in sorted(seqs)]
        assert (accepted, duplicates) == (len(seqs), len(sends) - len(seqs))
        transaction.set_rollback(True)


def _post_at_once(bodies: list[bytes], key: str) -> list[dict]:
    """Posts each body from its own thread and connection, all released at the same moment."""
    import orjson

    barrier = threading.Barrier(len(bodies))
    results: list[dict] = []
    errors: list[BaseException] = []

    def post(body: bytes) -> None:
        try:
            client = Client()
            barrier.wait()
            response = client.post(
                "/api/v1/events",
                data=body,
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Bearer {key}",
            )
            assert response.status_code == 200, response.content
            results.append(orjson.loads(response.content))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=post, args=(body,)) for body in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    return results


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_same_500_events_from_8_threads_are_stored_once(machine, machine_key):
    import orjson

    body = orjson.dumps({"events": [game(machine, seq, win=seq) for seq in range(1, 501)]})
    results = _post_at_once([body] * 8, machine_key)
    assert sum(result["accepted"] for result in results) == 500
    assert sum(result["duplicates"] for result in results) == 7 * 500
    assert all(result["rejected"] == [] for result in results)
    assert MachineEvent.objects.filter(machine=machine).count() == 500
    assert sorted(MachineEvent.objects.values_list("win_cents", flat=True)) == list(range(1, 501))


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_overlapping_gateway_batches_from_8_threads_with_meters_and_status(machine, gateway_key):
    """Several machines per batch take the general path (row locks in id order): no deadlock, each once."""
    import orjson

    from tests.factories import SlotMachineFactory

    machines = [machine, *SlotMachineFactory.create_batch(3, room=machine.room)]

    def batch(offset: int) -> bytes:
        events = []
        for each in machines[offset:] + machines[:offset]:
            events += [game(each, seq) for seq in range(1, 41)]
            meters = {**game(each, 41), "type": "meters", "meters": {"coin_in": 18000}}
            status = {**game(each, 42), "type": "status", "status": "door_open"}
            events += [meters, status]
        return orjson.dumps({"events": events})

    results = _post_at_once([batch(number % 4) for number in range(8)], gateway_key)
    assert sum(result["accepted"] for result in results) == 4 * 42
    assert sum(result["duplicates"] for result in results) == 7 * 4 * 42
    assert MachineEvent.objects.count() == 4 * 42
    from slots.models import MeterDelta

    assert MeterDelta.objects.count() == 4


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_single_statement_path_stores_touches_and_dedupes(machine, machine_key, post_events):
    """Outside a transaction one machine's games take the one-statement path: same outcomes."""
    from slots.models import MachineAlert, SlotMachine

    SlotMachine.objects.filter(pk=machine.pk).update(status=SlotMachine.Status.OFFLINE)
    body = post_events([game(machine, 2), game(machine, 1), game(machine, 1)], key=machine_key)[1]
    assert body == {"accepted": 2, "duplicates": 1, "rejected": []}
    machine.refresh_from_db()
    assert machine.status == "in_service"
    assert machine.last_game_at == MachineEvent.objects.get(seq=2).at
    assert machine.last_seen is not None
    body = post_events([game(machine, 2), game(machine, 1, win=5), game(machine, 3)], key=machine_key)[1]
    assert (body["accepted"], body["duplicates"]) == (1, 1)
    assert [(item["index"], item["error"]) for item in body["rejected"]] == [(1, "seq_conflict")]
    assert MachineAlert.objects.filter(kind="seq_conflict", seq=1).count() == 1
    assert list(MachineEvent.objects.order_by("seq").values_list("seq", "win_cents", "pending")) == [
        (1, 0, True),
        (2, 0, True),
        (3, 0, True),
    ]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_session_that_lost_its_stage_makes_it_again_and_stores_once(machine, machine_key, post_events):
    """The rows reach PostgreSQL through the session's staging table (slots.services.storage): a session
    whose stage was dropped (DISCARD TEMP, a DROP by hand) stores the next batch all the same, once."""
    assert post_events([game(machine, 1)], key=machine_key)[1]["accepted"] == 1
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE pg_temp.slots_event_stage")
    body = post_events([game(machine, 2), game(machine, 1)], key=machine_key)[1]
    assert body == {"accepted": 1, "duplicates": 1, "rejected": []}
    assert list(MachineEvent.objects.order_by("seq").values_list("seq", "payload")) == [
        (1, {"wager": 450, "win": 0}),
        (2, {"wager": 450, "win": 0}),
    ]


@pytest.mark.postgres
@pytest.mark.django_db
def test_two_batches_in_one_transaction_each_store_only_their_own(machine):
    """The move empties the stage as it reads it: a second batch in the same transaction (a test, an admin
    action) never stores the first's rows again or reports them as its own."""
    principal = Principal(machine_id=machine.pk)
    with transaction.atomic():
        first = event_batch_ingest([game(machine, 1), game(machine, 2)], principal=principal)
        second = event_batch_ingest([game(machine, 3)], principal=principal)
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_temp.slots_event_stage")
            staged = cursor.fetchone()[0]
    assert (first.accepted, second.accepted, staged) == (2, 1, 0)
    assert list(MachineEvent.objects.order_by("seq").values_list("seq", flat=True)) == [1, 2, 3]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_session_has_its_stage_from_its_start_and_a_rolled_back_batch_loses_nothing(machine):
    """A batch with meters runs in a transaction. A stage made inside one is gone when it rolls back, so a
    session makes its stage as it connects, outside any: a batch rolled back, with its on_commit callbacks
    run all the same as a test's are, leaves the next batch of the session its stage (before, that next
    batch failed: schema "pg_temp" does not exist)."""
    from slots.services import storage

    principal = Principal(machine_id=machine.pk)
    batch = [game(machine, 1), meters_event(machine, {"coin_in": 100}, seq=2)]
    connection.close()
    with transaction.atomic():
        event_batch_ingest(batch, principal=principal)
        for _savepoints, callback, _robust in connection.run_on_commit:
            callback()
        transaction.set_rollback(True)
    assert connection.connection in storage._staged_sessions
    with transaction.atomic():
        assert event_batch_ingest(batch, principal=principal).accepted == 2
    assert list(MachineEvent.objects.order_by("seq").values_list("seq", flat=True)) == [1, 2]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_move_is_planned_once_a_session_and_a_lost_stage_is_planned_again(
    machine, machine_key, post_events
):
    """The statements that store a batch are prepared in the session (parsed and planned once, not for
    every batch): the direct route's for new events, the staged move's for a batch holding a stored one;
    dropping the stage the move was planned on makes PostgreSQL plan it again, and the next batch is
    stored all the same, once."""

    def prepared(fragment: str) -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s", [f"%{fragment}%"]
            )
            return cursor.fetchone()[0]

    for seq in (1, 2, 3):
        assert post_events([game(machine, seq)], key=machine_key)[1]["accepted"] == 1
    for _ in range(2):
        assert post_events([game(machine, 3)], key=machine_key)[1]["duplicates"] == 1
    assert (prepared("generate_series"), prepared("DELETE FROM pg_temp.slots_event_stage")) == (1, 1)
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE pg_temp.slots_event_stage")
    body = post_events([game(machine, 4), game(machine, 3)], key=machine_key)[1]
    assert (body, prepared("DELETE FROM pg_temp.slots_event_stage")) == (
        {"accepted": 1, "duplicates": 1, "rejected": []},
        1,
    )
    assert list(MachineEvent.objects.order_by("seq").values_list("seq", flat=True)) == [1, 2, 3, 4]


@pytest.fixture
def direct_routes(monkeypatch) -> list[object]:
    """What each direct COPY the storage tries returns (its rows' ids, or None when it rolled back), with
    the process's memory of stored seqs emptied, as a process that has not seen the machine's posts."""
    from slots.services import machine_runs, storage

    results: list[object] = []
    copy_direct = storage._copy_direct

    def spied(*args, **kwargs):
        results.append(copy_direct(*args, **kwargs))
        return results[-1]

    monkeypatch.setattr(storage, "_copy_direct", spied)
    monkeypatch.setattr(machine_runs, "_seq_high", {})
    return results


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_new_events_are_copied_straight_into_the_table_with_their_queue_and_their_machine_moved(
    machine, machine_key, post_events, direct_routes
):
    """A batch of new games skips the stage: its rows are COPYed into the events table with the ids the
    statement drew, the transaction's time as received_at and their payload as jsonb; the table's trigger
    queues them for the engine as it does for an INSERT; the machine's last game moves."""
    from slots.models import PendingEvent

    body = post_events([game(machine, 2, win=100), game(machine, 1)], key=machine_key)[1]
    assert body == {"accepted": 2, "duplicates": 0, "rejected": []}
    [ids] = direct_routes
    rows = list(
        MachineEvent.objects.order_by("seq").values_list("id", "machine_id", "seq", "payload", "win_cents")
    )
    assert rows == [
        (ids[(machine.pk, 1)], machine.pk, 1, {"wager": 450, "win": 0}, 0),
        (ids[(machine.pk, 2)], machine.pk, 2, {"wager": 450, "win": 100}, 100),
    ]
    assert len({received for received in MachineEvent.objects.values_list("received_at", flat=True)}) == 1
    assert sorted(PendingEvent.objects.values_list("event_id", flat=True)) == sorted(ids.values())
    machine.refresh_from_db()
    assert machine.last_game_at == MachineEvent.objects.get(seq=2).at


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_retry_the_process_did_not_see_rolls_its_copy_back_and_the_stage_sorts_it(
    machine, machine_key, post_events, direct_routes
):
    """A process that did not store a machine's events tries the direct COPY for a retry of them: the
    unique key stops it and the transaction rolls back with the machine's move (an offline machine stays
    offline with its period open when nothing was new), and the staged move answers with duplicates; with
    one new event among them, the period ends at that event's seq, not at the first of the batch."""
    from slots.models import OfflinePeriod, PendingEvent, SlotMachine
    from slots.services import machine_runs
    from slots.tasks import machines_mark_offline_task

    assert post_events([game(machine, 1), game(machine, 2)], key=machine_key)[1]["accepted"] == 2
    SlotMachine.objects.filter(pk=machine.pk).update(last_seen=timezone.now() - timedelta(minutes=5))
    assert machines_mark_offline_task() == 1
    machine_runs._seq_high.clear()
    body = post_events([game(machine, 1), game(machine, 2)], key=machine_key)[1]
    assert body == {"accepted": 0, "duplicates": 2, "rejected": []}
    machine.refresh_from_db()
    period = OfflinePeriod.objects.get(machine=machine)
    assert (machine.status, period.ended_at, PendingEvent.objects.count()) == ("offline", None, 2)
    machine_runs._seq_high.clear()
    body = post_events([game(machine, 2), game(machine, 3)], key=machine_key)[1]
    assert body == {"accepted": 1, "duplicates": 1, "rejected": []}
    machine.refresh_from_db()
    period.refresh_from_db()
    assert (machine.status, period.ended_seq, PendingEvent.objects.count()) == ("in_service", 3, 3)
    assert [result is None for result in direct_routes] == [False, True, True]
    assert list(MachineEvent.objects.order_by("seq").values_list("seq", flat=True)) == [1, 2, 3]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_retry_of_events_the_process_stored_goes_to_the_stage_without_a_copy(
    machine, machine_key, post_events, direct_routes
):
    """The process remembers each machine's highest stored seq: a batch reaching back to it takes the
    staged move at once, with no COPY to roll back; one past it is copied again."""
    assert post_events([game(machine, 1), game(machine, 2)], key=machine_key)[1]["accepted"] == 2
    body = post_events([game(machine, 2), game(machine, 3)], key=machine_key)[1]
    assert body == {"accepted": 1, "duplicates": 1, "rejected": []}
    assert post_events([game(machine, 4)], key=machine_key)[1]["accepted"] == 1
    assert [sorted(seq for _machine, seq in result) for result in direct_routes] == [[1, 2], [4]]
