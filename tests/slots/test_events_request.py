"""POST /api/v1/events: keys and whole-request refusals (400, 401, 405, 413)."""

from __future__ import annotations

import orjson
import pytest
from django.utils import timezone

from floor.credentials import credential_issue, credential_revoke
from slots.models import MachineEvent, MachineKey
from slots.services import auth
from tests.slots.conftest import game

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


def test_revoked_key_stops_working_in_other_processes_once_the_cache_lapses(
    machine, post_events, monkeypatch
):
    credential, key = credential_issue(MachineKey, kind="mach", machine=machine)
    assert post_events([game(machine, 1)], key=key)[0] == 200
    # Another process revoked it: this one is not told, and keeps the key for at most KEY_CACHE_SECONDS.
    MachineKey.objects.filter(pk=credential.pk).update(revoked_at=timezone.now())
    assert post_events([game(machine, 2)], key=key)[0] == 200
    later = auth.time.monotonic() + auth.KEY_CACHE_SECONDS + 0.1
    monkeypatch.setattr(auth.time, "monotonic", lambda: later)
    status, body = post_events([game(machine, 3)], key=key)
    assert (status, body["error"]) == (401, "invalid_key")
    assert sorted(MachineEvent.objects.values_list("seq", flat=True)) == [1, 2]


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


async def test_body_over_1_mib_without_content_length_is_413():
    """Under ASGI a chunked body has no Content-Length: what actually arrives is measured."""
    from asgiref.testing import ApplicationCommunicator
    from django.core.asgi import get_asgi_application

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/v1/events",
        "raw_path": b"/api/v1/events",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }
    communicator = ApplicationCommunicator(get_asgi_application(), scope)
    chunk = b" " * (256 * 1024)
    for _ in range(4):
        await communicator.send_input({"type": "http.request", "body": chunk, "more_body": True})
    await communicator.send_input({"type": "http.request", "body": b"{}", "more_body": False})
    start = await communicator.receive_output(5)
    body = await communicator.receive_output(5)
    assert start["status"] == 413
    assert orjson.loads(body["body"]) == {
        "error": "body_too_large",
        "detail": "The body is larger than 1 MiB.",
    }


def test_get_is_405_in_the_error_format(machine_key, client):
    response = client.get("/api/v1/events", HTTP_AUTHORIZATION=f"Bearer {machine_key}")
    assert response.status_code == 405
    assert orjson.loads(response.content) == {
        "error": "method_not_allowed",
        "detail": "Only POST is allowed on this path.",
    }
