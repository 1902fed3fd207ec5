"""The OpenAPI schema and the whole API agree: schemathesis runs every operation of /api/schema/ (events,
jackpots, tables) and finds no 5xx and no response outside the schema; every table answer is described
field by field."""

from __future__ import annotations

import pytest
import schemathesis
import yaml
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from common.credentials import credential_issue
from slots.models import MachineKey
from tables.services import round_record
from tests.factories import SlotMachineFactory

# The same autouse fixture as the events API's schema test: keep the test's connection open.
from tests.slots.test_schema import _keep_the_test_connection  # noqa: F401
from tests.tables.factories import body, seat, tables_ready

# The whole schema: every operation it documents.
schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def table_key(db) -> str:
    """The seeded tables, NOG-CSP-1's key (the table of the schema's examples) and one royal flush won
    there, so the answers carry a last hit and a shared prize."""
    t = tables_ready()
    # Through the service, not the test client: the client reconnects the signal handlers that close the
    # connection after a request, and the next schemathesis call would close the test's transaction.
    assert round_record(t.table("NOG-CSP-1"), body("N-1", [seat(1, "AS KS QS JS TS")]))[1] is True
    return t.keys["NOG-CSP-1"]


@pytest.fixture
def machine_key(db) -> str:
    """A key for NOG-0101, the machine of the events examples, so that they are accepted."""
    machine = SlotMachineFactory(asset_number="NOG-0101", min_bet_cents=50, max_bet_cents=450)
    return credential_issue(MachineKey, kind="mach", machine=machine)[1]


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_conforms_to_the_schema(case, table_key, machine_key):
    key = machine_key if case.path == "/api/v1/events" else table_key
    case.call_and_validate(headers={"Authorization": f"Bearer {key}"}, checks=CHECKS)


def test_every_table_answer_is_described_field_by_field(client):
    document = yaml.safe_load(client.get("/api/schema/").content)
    components = document["components"]["schemas"]
    display = document["paths"]["/api/v1/tables/{code}"]["get"]["responses"]
    assert set(display) == {"200", "404", "409"}
    assert display["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/TableDisplay"
    }
    assert set(components["TableDisplay"]["properties"]) == {
        "table",
        "game",
        "venue",
        "currency",
        "amount",
        "pool_currency",
        "pool_amount",
        "amount_eur",
        "rate",
        "level_seq",
        "pay_table",
        "pending",
        "declaration",
    }
    assert set(components["TableDisplayLine"]["properties"]) == {"hand", "kind", "percent", "amount"}
    void = document["paths"]["/api/v1/tables/{code}/rounds/{round_id}/void"]["post"]["responses"]["200"]
    assert void["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/TableVoidAnswer"}
    assert set(components["TableVoidAnswer"]["properties"]) == {
        "round",
        "table",
        "state",
        "currency",
        "refunds",
        "reason",
    }
    assert set(components["TableRoundAnswer"]["properties"]) == {
        "round",
        "table",
        "state",
        "currency",
        "pool_currency",
        "rate",
        "exchange_rate",
        "seats",
        "pending",
        "declaration",
    }
    assert set(components["TableDeclaration"]["properties"]) == {
        "id",
        "jackpot",
        "level",
        "state",
        "outcome",
        "table",
        "seat",
        "hand",
        "opened_at",
        "expires_at",
        "released_at",
    }
    assert set(components["TableAward"]["properties"]) == {
        "amount",
        "currency",
        "amount_eur",
        "pool_amount",
        "share",
        "fixed",
        "progressive",
        "provisional",
        "final_at",
        "handpay",
    }
    assert set(components["TableContribution"]["properties"]) == {
        "amount",
        "amount_mc",
        "amount_eur",
        "currency",
    }
