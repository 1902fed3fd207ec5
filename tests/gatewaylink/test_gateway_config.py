"""GET /api/v1/gateway/config: the venue's SAS machines and groups, for its gateway key only."""

from __future__ import annotations

import pytest
from django.utils import timezone

from common.credentials import credentials_revoke
from jackpots.models import Level, Progressive
from slots.models import GatewayKey
from slots.services.keys import machine_key_issue
from tests.factories import LevelFactory, ProgressiveMachineFactory
from tests.gatewaylink.helpers import Floor

URL = "/api/v1/gateway/config"


def get(client, key: str | None):
    headers = {} if key is None else {"HTTP_AUTHORIZATION": f"Bearer {key}"}
    return client.get(URL, **headers)


def test_the_venues_sas_machines_and_groups(client, floor_db: Floor):
    # What a machine needs to know to win a level (a machine-reported win on a level it cannot win is
    # refused: not_max_bet, wager_below_minimum, mystery_level).
    Level.objects.filter(pk=floor_db.grand.pk).update(max_bet_only=True, min_wager_cents=100)
    response = get(client, floor_db.token)
    assert response.status_code == 200
    assert response.json() == {
        "machines": [
            {
                "code": "NOG-0101",
                "line": "line-1",
                "address": 1,
                "denomination": 50,
                "group": 1,
                "min_bet": 50,
                "max_bet": 450,
                "handpay_limit": 120_000,
                "last_seq": 0,
            },
            {
                "code": "NOG-0102",
                "line": "line-1",
                "address": 2,
                "denomination": 2,
                "group": 1,
                "min_bet": 50,
                "max_bet": 200,
                "handpay_limit": None,
                "last_seq": 0,
            },
        ],
        "groups": [
            {
                "group": 1,
                "progressive": floor_db.progressive.id,
                "broadcast_lp": 0x86,
                "levels": {"1": floor_db.grand.id, "2": floor_db.minor.id},
                "reset_eur": {"1": "1000.00", "2": "100.00"},
                "min_wager": {"1": 100, "2": 0},
                "max_bet_only": {"1": True, "2": False},
                "mystery": {"1": False, "2": True},
            }
        ],
    }


@pytest.mark.parametrize(
    ("key", "code"), [(None, "missing_key"), ("", "missing_key"), ("gw_unknown", "invalid_key")]
)
def test_without_a_valid_key_401(client, floor_db: Floor, key, code):
    response = get(client, key)
    assert (response.status_code, response.json()["error"]) == (401, code)
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_a_revoked_gateway_key_401(client, floor_db: Floor):
    credentials_revoke(GatewayKey.objects.all())
    response = get(client, floor_db.token)
    assert (response.status_code, response.json()["error"]) == (401, "invalid_key")


def test_a_machine_key_is_refused_403(client, floor_db: Floor):
    key = machine_key_issue(floor_db.sas1)[1]
    response = get(client, key)
    assert response.status_code == 403
    assert response.json() == {
        "error": "gateway_key_required",
        "detail": "Only a venue's gateway key may read its gateway configuration.",
    }


def test_post_is_405(client, floor_db: Floor):
    response = client.post(
        URL, {}, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {floor_db.token}"
    )
    assert (response.status_code, response.json()["error"]) == (405, "method_not_allowed")


def test_two_progressives_on_one_group_409_names_both(client, floor_db: Floor):
    other = Progressive.objects.create(name="Grease", kind=Progressive.Kind.LINKED, sas_group=1)
    LevelFactory(progressive=other, sas_level=1)
    ProgressiveMachineFactory(progressive=other, machine=floor_db.sas2)
    response = get(client, floor_db.token)
    assert response.status_code == 409
    assert response.json() == {
        "error": "sas_group_conflict",
        "detail": "SAS group 1 is used by both Diamond Vault and Grease; "
        "give each progressive its own group.",
    }


def test_a_venue_without_sas_machines_gets_empty_lists(client, floor_db: Floor):
    from slots.services.keys import gateway_key_issue
    from tests.factories import VenueFactory

    key = gateway_key_issue(VenueFactory(code="VEN"))[1]
    assert get(client, key).json() == {"machines": [], "groups": []}


def test_each_machine_carries_the_last_seq_the_server_stored(client, floor_db: Floor):
    # A gateway that lost its store takes each machine's next seq from here (issue 21, finding 4).
    events = [
        {"machine": code, "seq": seq, "at": timezone.now().isoformat(), "type": "status", "status": "tilt"}
        for code, seq in (("NOG-0101", 7), ("NOG-0101", 76), ("NOG-0101", 3), ("NOG-0103", 5))
    ]
    posted = client.post(
        "/api/v1/events",
        {"events": events},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {floor_db.token}",
    )
    assert posted.json()["accepted"] == 4
    machines = get(client, floor_db.token).json()["machines"]
    assert [(m["code"], m["last_seq"]) for m in machines] == [("NOG-0101", 76), ("NOG-0102", 0)]
