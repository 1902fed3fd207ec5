"""The gateway speaks the events API's vocabulary: every meter and status it can send is one the server
knows (a meter name the server does not know gets the whole meters event rejected)."""

from __future__ import annotations

from gateway.host_io import METER_CODES, STATUS_BY_EXCEPTION
from slots.services.vocabulary import METER_NAMES, STATUS_FLAGS


def test_every_meter_the_gateway_reads_has_a_name_the_server_knows():
    assert set(METER_CODES.values()) - METER_NAMES == set()
    assert len(set(METER_CODES.values())) == len(METER_NAMES) == 10


def test_every_status_the_gateway_sends_is_one_the_server_knows():
    sent = {*STATUS_BY_EXCEPTION.values(), "tilt", "handpay_lockup"}
    assert sent - set(STATUS_FLAGS) == set()
