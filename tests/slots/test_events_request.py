"""POST /api/v1/events: keys and whole-request refusals (400, 401, 405, 413)."""

from __future__ import annotations

import orjson
import pytest
from django.db import InterfaceError, OperationalError
from django.utils import timezone
from psycopg.errors import AdminShutdown

from common.credentials import credential_issue, credential_revoke
from slots.models import MachineEvent, MachineKey
from slots.services import auth
from tests.slots.helpers import game

pytestmark = pytest.mark.django_db


# --- Whole-request errors ---------------------------------------------------------------------------


def test_missing_key_is_401(machine, post_events):
    status, body = post_events([game(machine, 1)])
    assert status == 401
    assert body == {"error": "missing_key", "detail": "No Authorization: Bearer <key> header was sent."}
    assert MachineEvent.objects.count() == 0


def test_other_scheme_is_missing_key(machine, machine_key, post_events):
    status, body = post_events([game(machine, 1)], HTTP_AUTHORIZATION=f"Token {machine_key}")
    assert (status, body["error"]) == (401, "missing_key")


def test_unknown_key_is_401(machine, post_events, client):
    status, body = post_events([game(machine, 1)], key="pv_mach_not-a-real-key")
    assert (status, body) == (
        401,
        {"error": "invalid_key", "detail": "The key is unknown or has been revoked."},
    )
    response = client.post("/api/v1/events", data=b"{}", content_type="application/json")
    assert response["WWW-Authenticate"] == 'Bearer realm="events"'


def test_revoked_key_stops_working_at_once_in_the_revoking_process(machine, post_events):
    credential, key = credential_issue(MachineKey, kind="mach", machine=machine)
    assert post_events([game(machine, 1)], key=key)[0] == 200
    credential_revoke(credential)
    status, body = post_events([game(machine, 2)], key=key)
    assert (status, body["error"]) == (401, "invalid_key")
    assert list(MachineEvent.objects.values_list("seq", flat=True)) == [1]


def _revoke_in_another_process(revoke) -> None:
    """Runs ``revoke`` as another server process would: this process's key cache survives it, and no
    message reaches this process; only the check on its next request's write can tell."""
    kept = dict(auth._cache)
    revoke()
    auth._cache.clear()
    auth._cache.update(kept)


def _revoked_by_update(credential: MachineKey) -> None:
    """Revoked as plainly as can be: one UPDATE, no signal, no other process told."""
    MachineKey.objects.filter(pk=credential.pk).update(revoked_at=timezone.now())


@pytest.mark.django_db(transaction=True)
def test_key_revoked_by_another_process_stops_working_here_at_once(machine, post_events):
    """Revoked and posted at once: the single-statement insert (a machine's games, autocommit) checks the
    key's row in the same statement, so the post right after the revocation's commit is refused."""
    credential, key = credential_issue(MachineKey, kind="mach", machine=machine)
    assert post_events([game(machine, 1)], key=key)[0] == 200
    assert post_events([game(machine, 2)], key=key)[0] == 200  # served from this process's cache
    [(_expires, principal)] = auth._cache.values()
    assert principal.machine_id == machine.id

    _revoked_by_update(credential)
    assert len(auth._cache) == 1  # still cached here
    status, body = post_events([game(machine, 3)], key=key)
    assert (status, body["error"]) == (401, "invalid_key")
    assert auth._cache == {}
    assert sorted(MachineEvent.objects.values_list("seq", flat=True)) == [1, 2]
    # A batch that would only be duplicates is refused as well, not answered.
    status, body = post_events([game(machine, 2)], key=key)
    assert (status, body["error"]) == (401, "invalid_key")


@pytest.mark.django_db(transaction=True)
def test_key_revoked_elsewhere_is_refused_on_a_batch_stored_in_a_transaction(machine, post_events):
    """Meters and status events go through a transaction, not the single statement: the key is asked
    for once before the write."""
    credential, key = credential_issue(MachineKey, kind="mach", machine=machine)

    def door(seq: int, status: str) -> dict:
        at = timezone.now().isoformat()
        return {"machine": machine.asset_number, "seq": seq, "at": at, "type": "status", "status": status}

    assert post_events([door(1, "door_open"), game(machine, 2)], key=key)[1]["accepted"] == 2
    _revoked_by_update(credential)
    status, body = post_events([door(3, "door_closed"), game(machine, 4)], key=key)
    assert (status, body["error"]) == (401, "invalid_key")
    assert sorted(MachineEvent.objects.values_list("seq", flat=True)) == [1, 2]


def test_key_revoked_elsewhere_gets_401_not_the_bodys_error(machine, post_events):
    credential, key = credential_issue(MachineKey, kind="mach", machine=machine)
    assert post_events([game(machine, 1)], key=key)[0] == 200
    _revoked_by_update(credential)
    status, body = post_events(key=key, body=b"{not json")
    assert (status, body["error"]) == (401, "invalid_key")


def test_a_cached_key_is_checked_by_one_probe_of_its_row(machine, post_events, django_assert_num_queries):
    """In a transaction (here, the test's) a cached key costs one primary-key probe, nothing else: no
    look-up by digest, no shared counter."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    _credential, key = credential_issue(MachineKey, kind="mach", machine=machine)
    assert post_events([game(machine, 1)], key=key)[0] == 200
    with CaptureQueriesContext(connection) as queries:
        assert post_events([game(machine, 2)], key=key)[0] == 200
    key_queries = [query["sql"] for query in queries if "slots_machinekey" in query["sql"]]
    assert len(key_queries) == 1
    assert "WHERE id = " in key_queries[0] and "revoked_at IS NULL" in key_queries[0]


@pytest.mark.django_db(transaction=True)
def test_key_revoked_with_the_admin_action_elsewhere_stops_working_here_at_once(
    machine, post_events, floor_manager, client
):
    credential, key = credential_issue(MachineKey, kind="mach", machine=machine)
    _other, other_key = credential_issue(MachineKey, kind="mach", machine=machine)
    assert post_events([game(machine, 1)], key=key)[0] == 200
    assert post_events([game(machine, 2)], key=other_key)[0] == 200
    client.force_login(floor_manager)

    def revoke() -> None:
        response = client.post(
            "/admin/slots/machinekey/", {"action": "revoke", "_selected_action": [credential.pk]}
        )
        assert response.status_code == 302

    _revoke_in_another_process(revoke)

    status, body = post_events([game(machine, 3)], key=key)
    assert (status, body["error"]) == (401, "invalid_key")
    # The other key is looked up again once and stays valid.
    assert post_events([game(machine, 4)], key=other_key)[0] == 200
    assert sorted(MachineEvent.objects.values_list("seq", flat=True)) == [1, 2, 4]


def test_revoked_key_is_refused_by_a_process_with_a_cold_cache(machine, post_events):
    credential, key = credential_issue(MachineKey, kind="mach", machine=machine)
    assert post_events([game(machine, 1)], key=key)[0] == 200
    credential_revoke(credential)
    auth.principal_cache_clear()  # a process that never saw the key
    status, body = post_events([game(machine, 2)], key=key)
    assert (status, body["error"]) == (401, "invalid_key")


def test_a_revocation_forgets_this_processs_keys_at_once_and_after_its_commit(
    machine, post_events, django_capture_on_commit_callbacks
):
    credential, key = credential_issue(MachineKey, kind="mach", machine=machine)
    assert post_events([game(machine, 1)], key=key)[0] == 200
    assert len(auth._cache) == 1
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        credential_revoke(credential)
        assert auth._cache == {}
        auth._cache["stale"] = (0.0, None)  # cached by a request that read the key before the commit
    assert len(callbacks) == 1
    callbacks[0]()
    assert auth._cache == {}


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", "invalid_json"),
        (b"\xff\xfe", "invalid_json"),
        (b"[]", "invalid_body"),
        (b'{"events": {"machine": "NOG-0101"}}', "invalid_body"),
        (b'{"event": []}', "invalid_body"),
        (b"null", "invalid_body"),
    ],
)
def test_malformed_body_is_400(machine_key, post_events, body, code):
    status, response = post_events(body=body, key=machine_key)
    assert (status, response["error"]) == (400, code)
    assert MachineEvent.objects.count() == 0


def test_more_than_1000_events_is_400_and_stores_nothing(machine, machine_key, post_events):
    status, body = post_events([game(machine, seq) for seq in range(1, 1002)], key=machine_key)
    assert status == 400
    assert body == {
        "error": "too_many_events",
        "detail": "A request carries at most 1000 events; this one has 1001.",
    }
    assert MachineEvent.objects.count() == 0


def test_exactly_1000_events_are_accepted(machine, machine_key, post_events):
    status, body = post_events([game(machine, seq) for seq in range(1, 1001)], key=machine_key)
    assert (status, body) == (200, {"accepted": 1000, "duplicates": 0, "rejected": []})


def test_body_over_1_mib_is_413_before_the_key_is_checked(machine, post_events):
    padding = " " * (1024 * 1024)
    body = orjson.dumps({"events": [game(machine, 1)]}) + padding.encode()
    status, response = post_events(body=body)
    assert (status, response) == (
        413,
        {"error": "body_too_large", "detail": "The body is larger than 1 MiB."},
    )
    assert MachineEvent.objects.count() == 0


def test_body_of_exactly_1_mib_is_read(machine, machine_key, post_events):
    document = orjson.dumps({"events": [game(machine, 1)]})
    body = document + b" " * (1024 * 1024 - len(document))
    assert post_events(body=body, key=machine_key) == (200, {"accepted": 1, "duplicates": 0, "rejected": []})


def test_get_is_405_in_the_error_format(machine_key, client):
    response = client.get("/api/v1/events", HTTP_AUTHORIZATION=f"Bearer {machine_key}")
    assert response.status_code == 405
    assert orjson.loads(response.content) == {
        "error": "method_not_allowed",
        "detail": "Only POST is allowed on this path.",
    }


# --- Database faults --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "where, error",
    [
        ("slots.apis.event_batch_ingest", OperationalError("server closed the connection unexpectedly")),
        ("slots.apis.principal_authenticate", InterfaceError("the connection is closed")),
        (
            "slots.services.ingest.events_store",
            AdminShutdown("terminating connection due to administrator command"),
        ),
    ],
    ids=["storing", "key look-up", "driver's own error"],
)
def test_lost_database_connection_is_503_json_with_retry_after(
    machine, machine_key, client, *, monkeypatch, where, error
):
    def lost(*args, **kwargs):
        raise error

    monkeypatch.setattr(where, lost)
    response = client.post(
        "/api/v1/events",
        data=orjson.dumps({"events": [game(machine, 1)]}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {machine_key}",
    )
    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert response["Retry-After"] == "2"
    assert orjson.loads(response.content) == {
        "error": "database_unavailable",
        "detail": "The server could not reach its database; retry after Retry-After seconds "
        "(events stored before the fault come back as duplicates).",
    }
    assert MachineEvent.objects.count() == 0
