"""The OpenAPI schema at /api/schema/ and the events API agree: schemathesis finds no 5xx and no
response outside the schema."""

from __future__ import annotations

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from slots.services.errors import EVENT_ERRORS, REQUEST_ERRORS

schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application()).include(path="/api/v1/events")

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """Schemathesis calls the WSGI app directly: like Django's test client, keep the request signals
    from closing the connection that holds the test's transaction."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def events_key(db):
    """A key for NOG-0101, the machine of the schema's example, so the examples are accepted."""
    from common.credentials import credential_issue
    from slots.models import MachineKey
    from tests.factories import SlotMachineFactory

    machine = SlotMachineFactory(asset_number="NOG-0101")
    return credential_issue(MachineKey, kind="mach", machine=machine)[1]


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
def test_events_api_conforms_to_its_schema(case, events_key):
    case.call_and_validate(headers={"Authorization": f"Bearer {events_key}"}, checks=CHECKS)


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_events_api_without_a_key_conforms_to_its_schema(case):
    response = case.call_and_validate(checks=CHECKS)
    assert response.status_code == 401


def test_schema_documents_every_code_and_error_response(client):
    import yaml

    document = yaml.safe_load(client.get("/api/schema/").content)
    operation = document["paths"]["/api/v1/events"]["post"]
    assert set(operation["responses"]) == {"200", "400", "401", "413", "503"}
    components = document["components"]["schemas"]
    assert components["RejectedEventErrorEnum"]["enum"] == list(EVENT_ERRORS)
    assert components["RequestErrorErrorEnum"]["enum"] == list(REQUEST_ERRORS)
    for code in [*EVENT_ERRORS, *REQUEST_ERRORS]:
        assert f"`{code}`" in operation["description"]
    assert operation["security"] == [{"eventKey": []}]
    assert client.get("/api/docs/").status_code == 200


def test_schema_documents_who_paid_a_jackpot(client):
    """A jackpot event's payer (issue 21, finding 1): ``paid`` and ``paid_amount`` in the schema."""
    import yaml

    components = yaml.safe_load(client.get("/api/schema/").content)["components"]["schemas"]
    jackpot = components["JackpotEventRequest"]
    assert jackpot["properties"]["paid"]["allOf"] == [{"$ref": "#/components/schemas/PaidEnum"}]
    assert components["PaidEnum"]["enum"] == ["machine", "attendant"]
    paid_amount = jackpot["properties"]["paid_amount"]
    assert (paid_amount["type"], paid_amount["minimum"], paid_amount["maximum"]) == (
        "integer",
        1,
        10_000_000_000,
    )
    assert {"paid", "paid_amount"}.isdisjoint(jackpot["required"])
