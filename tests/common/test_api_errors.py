"""Every error of /api/... is JSON {"error", "detail"} (common.api_errors), a 401 says
``WWW-Authenticate: Bearer``, and junk in a path (a NUL above all) is a 404, never a 500."""

from __future__ import annotations

import orjson
import pytest
from django.test import Client

from tests.tables.factories import body, seat, tables_ready

pytestmark = pytest.mark.django_db


@pytest.fixture
def client() -> Client:
    # A crash must show as the 500 a caller would get, not as an exception in the test.
    return Client(raise_request_exception=False)


def _error(response) -> dict:
    assert response["Content-Type"] == "application/json"
    return orjson.loads(response.content)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/v1/tables/%00"),
        ("post", "/api/v1/tables/%00/rounds"),
        ("post", "/api/v1/tables/NOG-CSP-1/rounds/%00/void"),
        ("get", "/api/v1/jackpots/%00"),
        ("get", "/api/v1/%00"),
    ],
)
def test_a_nul_in_an_api_path_is_a_json_404(client, method, path) -> None:
    t = tables_ready()
    response = getattr(client, method)(path, HTTP_AUTHORIZATION=f"Bearer {t.keys['NOG-CSP-1']}")
    assert response.status_code == 404
    assert _error(response) == {"error": "not_found", "detail": "There is nothing at this URL."}


@pytest.mark.parametrize(
    "path",
    [
        "/floor/machines/%00/",
        "/floor/%00/",
        "/floor/NOG/%00/",
        "/signage/%00/",
        "/admin/slots/slotmachine/%00/",
    ],
)
def test_a_nul_in_a_page_path_is_a_404(admin_client, path) -> None:
    admin_client.raise_request_exception = False
    assert admin_client.get(path).status_code == 404


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("put", "/api/v1/jackpots", "GET"),
        ("delete", "/api/v1/jackpots/1", "GET"),
        ("post", "/api/v1/tables/NOG-CSP-1", "GET"),
        ("get", "/api/v1/tables/NOG-CSP-1/rounds", "POST"),
        ("get", "/api/v1/tables/NOG-CSP-1/rounds/R-1/void", "POST"),
        ("post", "/api/schema/", "GET"),
    ],
)
def test_405_is_in_the_error_shape_on_every_api_path(client, method, path, allowed) -> None:
    response = getattr(client, method)(path)
    assert response.status_code == 405
    assert _error(response) == {
        "error": "method_not_allowed",
        "detail": f"Only {allowed} is allowed on this path.",
    }
    assert allowed in response["Allow"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("post", "/api/v1/tables/NOG-CSP-1/rounds"),
        ("post", "/api/v1/tables/NOG-CSP-1/rounds/R-1/void"),
    ],
)
@pytest.mark.parametrize("authorization", [None, "Bearer pv_tbl_not-a-key", "Basic dXNlcjpwdw=="])
def test_a_table_401_says_www_authenticate_bearer_with_its_realm(client, method, path, authorization) -> None:
    tables_ready()
    headers = {"HTTP_AUTHORIZATION": authorization} if authorization else {}
    response = getattr(client, method)(path, data=b"{}", content_type="application/json", **headers)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="tables"'
    assert _error(response) == {
        "error": "unauthorized",
        "detail": "A table key is required: Authorization: Bearer <key>.",
    }


def test_the_events_401_keeps_its_realm(client) -> None:
    response = client.post("/api/v1/events", data=b"{}", content_type="application/json")
    assert response["WWW-Authenticate"] == 'Bearer realm="events"'
    assert _error(response)["error"] == "missing_key"


@pytest.mark.parametrize("path", ["/api/v1/nothing", "/api/v2/jackpots", "/api/", "/api/v1/tables/X/other"])
def test_an_unknown_api_url_is_a_json_404(client, path) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert _error(response) == {"error": "not_found", "detail": "There is nothing at this URL."}


def test_a_page_outside_the_api_keeps_the_html_404(client) -> None:
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_the_schema_view_answers_its_errors_in_json(client) -> None:
    response = client.get("/api/schema/?format=junk")
    assert response.status_code == 404
    assert _error(response) == {"error": "not_found", "detail": "There is nothing at this URL."}


def test_a_round_over_the_size_limit_is_a_json_413(client, settings) -> None:
    t = tables_ready()
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2048
    data = orjson.dumps(body("BIG-1", [seat(1, "2C 5D 7H 9S JC")], padding="x" * 4096))
    response = client.post(
        "/api/v1/tables/NOG-CSP-1/rounds",
        data=data,
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {t.keys['NOG-CSP-1']}",
    )
    assert response.status_code == 413
    assert _error(response) == {"error": "body_too_large", "detail": "The body is larger than 1 MiB."}


def test_a_crash_under_api_is_a_json_500(client, monkeypatch) -> None:
    from jackpots import apis

    def broken():
        raise RuntimeError("a bug")

    monkeypatch.setattr(apis, "progressives_list", broken)
    response = client.get("/api/v1/jackpots")
    assert response.status_code == 500
    assert _error(response) == {
        "error": "server_error",
        "detail": "The server could not answer this request.",
    }


@pytest.mark.parametrize("path", ["/admin/", "/api/v1/jackpots", "/floor/reports/"])
def test_a_session_cookie_with_a_nul_is_no_session(client, path) -> None:
    response = client.get(path, HTTP_COOKIE='sessionid="abcdefghij\\000"')
    assert response.status_code in {200, 302}


def test_a_lost_database_under_any_api_is_a_json_503(client, monkeypatch) -> None:
    """Not only the events API: every /api/ view answers a lost database connection with 503 and
    Retry-After (docs/api.md), through the one error handler."""
    from django.db import OperationalError

    from jackpots import apis

    def lost():
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(apis, "progressives_list", lost)
    response = client.get("/api/v1/jackpots")
    assert response.status_code == 503
    assert response["Retry-After"] == "2"
    assert _error(response)["error"] == "database_unavailable"
