"""Who paid a machine's jackpot, end to end over the SAS demo's path (issue 21, finding 1): a win the
emulated machine credits itself (54) is posted paid=machine at what it credited and recorded paid by the
machine, never on the desk and never reset; a handpay (51) is posted paid=attendant, paid once by the
desk at no less than the display, then reset by LP 94.

The assertions marked SERVER need the server's recording of `paid` (the paymachine branch); the others
(the JSON the gateway posted, the machine's meters and frames) are the gateway's."""

from __future__ import annotations

import json

import pytest

from gateway.egm.config import MACHINE_PAID_PROG
from gateway.tests.helpers import wait_for
from tests.gateway_e2e.conftest import E2E, manage
from tests.gateway_e2e.test_progressive import DENOMINATION, delivered_game, machine_id, pay, server_cents

pytestmark = [pytest.mark.postgres, pytest.mark.redis]


def jackpot_posted(e2e: E2E, code: str) -> dict:
    """The fields of the machine's last jackpot event as the gateway posted it (kept as sent)."""
    ((payload,),) = e2e.query(
        "SELECT e.payload FROM slots_machineevent e JOIN slots_slotmachine m ON m.id = e.machine_id "
        f"WHERE m.asset_number = '{code}' AND e.type = 3 ORDER BY e.seq DESC LIMIT 1"
    )
    return payload if isinstance(payload, dict) else json.loads(payload)


def hit_row(e2e: E2E, code: str, *columns: str) -> tuple:
    ((row),) = e2e.query(
        f"SELECT {', '.join(columns)} FROM jackpots_hit "
        f"WHERE level_id = {e2e.floor.levels['sas']} AND machine_id = {machine_id(e2e, code)} "
        "ORDER BY id DESC LIMIT 1"
    )
    return row


def test_a_win_the_machine_credits_is_recorded_paid_by_the_machine_and_never_on_the_desk(e2e: E2E) -> None:
    code = e2e.floor.sas[3]  # handpay limit EUR 2000: the machine credits the Grand itself
    egm = e2e.egms[code]
    delivered_game(e2e, egm)
    wait_for(lambda: egm.displayed[1] == server_cents(e2e)[1], 5, "the display to show the server's Grand")
    displayed, meter_before = egm.displayed[1], egm.meters[MACHINE_PAID_PROG]
    assert egm.hit(1)
    assert egm.raised[-2:] == [0x56, 0x54]  # the level hit, paid to the credit meter
    e2e.all_delivered()
    credited = (egm.meters[MACHINE_PAID_PROG] - meter_before) * DENOMINATION
    assert credited == displayed - displayed % DENOMINATION  # whole credits
    # The gateway's JSON: who paid and what the machine credited.
    posted = jackpot_posted(e2e, code)
    assert (posted["amount"], posted["paid"], posted["paid_amount"]) == (displayed, "machine", credited)

    # SERVER: recorded paid by that machine at what it credited, nothing left for the desk.
    columns = ("id", "state", "reported_paid", "paid_by_machine_id", "machine_paid_cents", "amount_cents")
    hit, state, reported, paid_by, machine_paid, amount = hit_row(e2e, code, *columns)
    assert (state, reported, paid_by, machine_paid) == ("paid", "machine", machine_id(e2e, code), credited)
    # SERVER: the level's ledger paid out what the machine credited (the sub-credit rest stays in the
    # pool), and the hit says the same.
    ((awarded_mc,),) = e2e.query(f"SELECT awarded_mc FROM jackpots_ledgerentry WHERE hit_id = {hit}")
    assert (awarded_mc, amount) == (credited * 1000, credited)
    # SERVER: no handpay reset for it (the machine would refuse LP 94): the gateway logged none sent.
    assert egm.handpay is None and 0x52 not in egm.raised[-2:]
    assert "LP 94" not in e2e.gateway.log.read_text()


def test_a_handpay_is_paid_once_at_no_less_than_the_display_then_reset(e2e: E2E) -> None:
    code = e2e.floor.sas[0]  # handpay limit EUR 500: a Grand locks it up
    egm = e2e.egms[code]
    delivered_game(e2e, egm)
    wait_for(lambda: egm.displayed[1] == server_cents(e2e)[1], 5, "the display to show the server's Grand")
    displayed, meter_before = egm.displayed[1], egm.meters[MACHINE_PAID_PROG]
    assert egm.hit(1)
    assert egm.raised[-2:] == [0x56, 0x51] and egm.handpay is not None
    e2e.all_delivered()
    posted = jackpot_posted(e2e, code)
    assert (posted["amount"], posted["paid"], "paid_amount" in posted) == (displayed, "attendant", False)
    assert egm.meters[MACHINE_PAID_PROG] == meter_before  # the machine credited nothing

    hit, state, machine_amount = hit_row(e2e, code, "id", "state", "machine_amount_cents")
    assert (state, machine_amount) == ("hit", displayed)  # on the desk, to verify and pay
    pay(e2e, hit)
    wait_for(lambda: egm.handpay is None, 10, "LP 94 to reset the machine's handpay")
    assert egm.raised[-1] == 0x52 and egm.can_play()
    assert hit_row(e2e, code, "reported_paid") == ("attendant",)  # SERVER
    # SERVER: paid once, never below what the machine displayed; a second payment is refused.
    script = (
        "from jackpots.models import Hit\n"
        "from jackpots.services.hit_payment import hit_pay\n"
        "from django.contrib.auth import get_user_model\n"
        f"hit = Hit.objects.get(pk={hit})\n"
        "print(hit.state, hit.payout_cents >= hit.machine_amount_cents)\n"
        "try:\n"
        "    hit_pay(hit, get_user_model().objects.get(username='attendant-e2e'))\n"
        "    print('paid again')\n"
        "except Exception as refused:\n"
        "    print('refused', type(refused).__name__)\n"
    )
    output = manage(e2e.env, "manage.py", "shell", "-c", script)
    lines = output.strip().split("\n")[-2:]  # the shell may print notes of its own first
    assert lines[0] == "paid True"
    assert lines[1].startswith("refused")
    assert egm.meters[MACHINE_PAID_PROG] == meter_before
