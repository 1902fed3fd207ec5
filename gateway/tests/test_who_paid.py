"""Who paid a progressive win (issue 21, finding 1): the machine to its credit meter (54) or an attendant
(51, handpay). The `jackpot` event says so, and a handpay reset (LP 94) goes only to a machine in a
handpay. Against the emulator on an in-memory wire, byte for byte where the frames matter."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from gateway.egm.config import MACHINE_PAID_PROG, EgmConfig
from gateway.egm.machine import Egm
from gateway.host import MachineHost
from gateway.host_io import MachineConfig
from gateway.link import LinePoller, Link
from gateway.sas import frames as f
from gateway.tests.helpers import Recorder, Wire

ADDRESS, GROUP = 3, 4
LP_1B = bytes([ADDRESS, 0x1B])
LP_94 = bytes.fromhex("0394c5f8")  # type S: address, command, CRC
NO_HANDPAY = bytes.fromhex("031b" + "00" * 20 + "c077")  # LP 1B answer: group 0, level 0, amount 0


class RecordingWire(Wire):
    """The wire, keeping each host frame with the machine's answer to it."""

    def __init__(self, *egms: Egm) -> None:
        super().__init__(*egms)
        self.exchanges: list[tuple[bytes, bytes | None]] = []

    def send(self, frame: bytes, wakeup: bool = True) -> None:
        before = len(self.inbox)
        super().send(frame, wakeup)
        self.exchanges.append((frame, self.inbox[before:] or None))

    def answers_to(self, request: bytes) -> list[bytes | None]:
        return [answer for frame, answer in self.exchanges if frame == request]


def floor(handpay_limit: int, wins_lp: int = 0x85, denomination: int = 5, egm_class: type[Egm] = Egm):
    egm = egm_class(
        EgmConfig(
            address=ADDRESS,
            denomination=denomination,
            group=GROUP,
            levels=[1, 2],
            handpay_limit=handpay_limit,
            spin=0.0,
        )
    )
    wire, out = RecordingWire(egm), Recorder()
    config = MachineConfig(
        "NOG-0007",
        ADDRESS,
        denomination,
        group=GROUP,
        levels={1: 31, 2: 32},
        wins_lp=wins_lp,
        meters_every=3600,
    )
    host = MachineHost(config, out)
    poller = LinePoller(Link(wire, 0.01, 0.01), [host])
    egm.answer(f.multi_broadcast(GROUP, {1: 1002, 2: 150_000}), 0.0)
    run(poller, wire, 1.0)
    return egm, wire, out, host, poller


def run(poller: LinePoller, wire: Wire, until: float) -> None:
    while wire.now < until:
        poller.step(wire.now)
        wire.now = round(wire.now + 0.05, 6)


def jackpots(out: Recorder) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in e.items() if k not in ("machine", "at", "type")}
        for e in out.events
        if e["type"] == "jackpot"
    ]


def frames(wire: RecordingWire, *requests: bytes) -> list[bytes]:
    return [frame for frame, _ in wire.exchanges if frame in requests]


@pytest.mark.parametrize("wins_lp", [0x85, 0x87])
def test_a_win_the_machine_credits_is_posted_paid_by_the_machine_at_its_whole_credits(wins_lp):
    # The demo's NOG-0007: a Grease Bonus win paid to the credit meter (54) was posted without who paid,
    # and the server listed it on the desk to pay again.
    egm, wire, out, _host, poller = floor(handpay_limit=120_000, wins_lp=wins_lp)
    assert egm.hit(1)
    assert [r.code for r in egm.queue] == [0x56, 0x54]  # SAS 6.02 §10.4: the level hit, paid by the machine
    run(poller, wire, 3.0)
    # 1002 cents on a 5-cent machine: 200 credits on the credit meter, the 2 cents below a credit not paid
    assert jackpots(out) == [{"level": 31, "amount": 1002, "paid": "machine", "paid_amount": 1000}]
    assert egm.meters[MACHINE_PAID_PROG] * 5 == 1000
    wins = bytes([ADDRESS, wins_lp])
    assert frames(wire, LP_1B, wins) == [LP_1B, wins, wins][: 2 if wins_lp == 0x87 else 3]
    assert wire.answers_to(LP_1B) == [NO_HANDPAY]  # read before the wins: the machine is in no handpay
    assert egm.handpay is None and not egm.wins


def test_a_progressive_handpay_is_posted_paid_by_an_attendant_and_locks_up_once():
    egm, wire, out, _host, poller = floor(handpay_limit=120_000)
    assert egm.hit(2)  # 1,500.00 above the machine's limit: it locks up
    assert [r.code for r in egm.queue] == [0x56, 0x51]
    run(poller, wire, 3.0)
    assert jackpots(out) == [{"level": 32, "amount": 150_000, "paid": "attendant"}]
    # LP 1B before the win: group 4, level 01, 1500.00 in 5 BCD cents (the 51 reads it again)
    lockup = bytes.fromhex("031b" + "0402" + "0000150000" + "0000" + "00" + "00" * 10)
    assert wire.answers_to(LP_1B) == [f.with_crc(lockup)] * 2
    statuses = [
        (e["status"], e.get("amount"), e.get("sas_level")) for e in out.events if e["type"] == "status"
    ]
    assert statuses == [("handpay_lockup", 150_000, 2)]
    assert egm.meters[MACHINE_PAID_PROG] == 0


def test_one_lp_87_answer_with_a_credited_win_and_then_a_handpay():
    egm, _wire, out, _host, poller = floor(handpay_limit=120_000, wins_lp=0x87)
    assert egm.hit(1)
    egm.broadcast(GROUP, {1: 1005}, 1.0)
    egm.spinning = None
    assert egm.hit(2)  # the handpay comes second: the machine locks up on it
    run(poller, wire=_wire, until=3.0)
    assert jackpots(out) == [
        {"level": 31, "amount": 1002, "paid": "machine", "paid_amount": 1000},
        {"level": 32, "amount": 150_000, "paid": "attendant"},
    ]


class NoHandpayInfo(Egm):
    """A machine that ignores LP 1B (SAS 6.02 §4.4: an unsupported long poll is not answered)."""

    _HANDLERS = {lp: handler for lp, handler in Egm._HANDLERS.items() if lp != f.LP_HANDPAY_INFO}


def test_a_win_whose_payer_the_machine_does_not_say_carries_no_paid_field():
    # Without the machine's handpay state the gateway cannot tell a credited win from a handpay: the
    # event says nothing and attendants pay it, as before (a handpay marked paid would go unpaid).
    egm, wire, out, _host, poller = floor(handpay_limit=120_000, egm_class=NoHandpayInfo)
    assert egm.hit(1)
    run(poller, wire, 3.0)
    assert jackpots(out) == [{"level": 31, "amount": 1002}]
    assert wire.answers_to(LP_1B) == [None, None, None]  # asked three times, then the win read anyway


def test_a_handpay_reset_goes_only_to_a_machine_in_a_handpay(caplog):
    egm, wire, out, host, poller = floor(handpay_limit=120_000)
    assert egm.hit(1)  # credited by the machine
    run(poller, wire, 3.0)
    host.handpay_reset()  # asked anyway (an old server queues it for any paid hit)
    with caplog.at_level(logging.WARNING, logger="gateway.host"):
        run(poller, wire, 4.0)
    assert frames(wire, LP_94) == []
    assert "NOG-0007: handpay reset asked, the machine is in no handpay: LP 94 not sent" in caplog.messages

    assert egm.hit(2)  # a handpay: the attendant pays, the server asks for the reset
    run(poller, wire, 6.0)
    host.handpay_reset()
    run(poller, wire, 7.0)
    assert wire.answers_to(LP_94) == [f.handpay_reset_answer(ADDRESS, f.HANDPAY_RESET_DONE)]
    assert egm.handpay is None
    statuses = [e["status"] for e in out.events if e["type"] == "status"]
    assert statuses == ["handpay_lockup", "handpay_reset"]


def test_a_refused_lp_94_is_logged_and_the_line_goes_on(caplog):
    egm, wire, out, host, poller = floor(handpay_limit=120_000)
    assert egm.hit(2)
    run(poller, wire, 3.0)
    host.handpay_reset()
    while not frames(wire, LP_1B)[2:]:  # the reset's LP 1B (after the win's and the 51's)
        poller.step(wire.now)
        wire.now = round(wire.now + 0.05, 6)
    assert egm.reset_handpay()  # the attendant's key, between the LP 1B and the LP 94
    with caplog.at_level(logging.WARNING, logger="gateway.host"):
        run(poller, wire, 5.0)
    refused = f.handpay_reset_answer(ADDRESS, f.HANDPAY_RESET_NOT_IN_HANDPAY)
    assert wire.answers_to(LP_94) == [refused]
    assert "NOG-0007: remote handpay reset refused (code 02)" in caplog.messages
    assert egm.play(2)  # the line goes on: the next game is posted
    run(poller, wire, 6.0)
    assert [e["wager"] for e in out.events if e["type"] == "game"] == [10]


def test_a_win_below_one_credit_carries_no_paid_field():
    # The server takes a machine's payment of at least one cent: a win the machine could not credit
    # (less than a credit) is left to attendants, like a legacy bonus below one credit.
    egm, wire, out, _host, poller = floor(handpay_limit=120_000, denomination=2000)
    assert egm.hit(1)  # 10.02 on a 20-euro machine
    run(poller, wire, 3.0)
    assert jackpots(out) == [{"level": 31, "amount": 1002}]
    assert egm.meters[MACHINE_PAID_PROG] == 0
