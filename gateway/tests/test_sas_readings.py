"""Issue 22: the host reads every answer SAS 6.02 allows, byte for byte as an independent machine sent them.

A scripted machine answers each request with the bytes given for it (in order, the last one kept), so
each test shows exactly what was on the line.
"""

from __future__ import annotations

from collections.abc import Callable

from gateway.egm.config import EgmConfig
from gateway.egm.machine import Egm
from gateway.host import MachineHost
from gateway.host_io import MachineConfig
from gateway.link import LinePoller, Link
from gateway.sas import frames as f
from gateway.sas.meters import decode_selected_meters, selected_meters
from gateway.tests.helpers import Recorder, Wire

h = bytes.fromhex
# LP 1B's answer of a machine locked up in a progressive handpay (group 1, level 1, €150.00).
HANDPAY_LOCKUP = f.handpay_info(1, f.HandpayInfo(group=1, level=1, amount=15000, partial_pay=0, reset_id=0))
METER_REQUEST = "012f0c000000010203050b15161d206b0e"  # LP 2F for the ten meters the gateway asks for
METERS_MINIMUM = (  # each meter in 4 BCD bytes, its minimum in SAS 6.02 Table C-7 (all zero)
    "012f340000"
    + "".join(f"{code}00000000" for code in ("00", "01", "02", "03", "05", "0b", "15", "16", "1d", "20"))
)


class Script(Wire):
    """A machine that answers by script: request hex -> answers hex, given one by one (the last repeated);
    a request not in the script, or an answer "", is met with silence."""

    def __init__(self, script: dict[str, list[str]]) -> None:
        super().__init__()
        self.script = script
        self.sent: list[bytes] = []  # type: ignore[assignment]  # the frames alone, no time

    def send(self, frame: bytes, wakeup: bool = True) -> None:
        self.sent.append(frame)
        answers = self.script.get(frame.hex())
        if answers:
            self.inbox += h(answers.pop(0) if len(answers) > 1 else answers[0])


def line(script: dict[str, list[str]], **config) -> tuple[Script, Recorder, MachineHost, LinePoller]:
    wire, out = Script(script), Recorder()
    host = MachineHost(MachineConfig("VEN-0001", 1, 1, meters_every=3600, **config), out)
    return wire, out, host, LinePoller(Link(wire, 0.01, 0.01), [host])


def run(
    poller: LinePoller, wire: Script, until: float, step: float = 0.05, each: Callable[[], None] | None = None
):
    while wire.now < until:
        poller.step(wire.now)
        if each is not None:
            each()
        wire.now = round(wire.now + step, 6)


def hexes(frames: list[bytes]) -> list[str]:
    return [frame.hex() for frame in frames]


# --- 1. meter sizes ---------------------------------------------------------------------------------


def test_lp2f_answer_with_the_table_c7_minimum_sizes_is_read():
    """The independent machine's answer (issue 22 finding 1): 4 bytes for coin in, coin out and the rest."""
    answer = h(METERS_MINIMUM + "e639")
    codes = list(h(METER_REQUEST)[5:-2])
    assert decode_selected_meters(answer, 1, codes) == (0, dict.fromkeys(codes, 0))
    assert selected_meters(1, dict.fromkeys(codes, 0)) == answer


def test_lp2f_answer_with_five_byte_meters_where_four_is_the_minimum_is_read_too():
    codes = [0x00, 0x01, 0x05]
    five = selected_meters(1, {0: 1234, 1: 99, 5: 42}, size=5)
    assert five.hex() == "012f1400000000000012340100000000990500000000429ccc"
    assert decode_selected_meters(five, 1, codes) == (0, {0: 1234, 1: 99, 5: 42})
    # A value whose fifth byte looks like the next code is still read whole: 1 credit in 5 bytes.
    tricky = selected_meters(1, {0: 1, 1: 5}, size=5)
    assert decode_selected_meters(tricky, 1, [0, 1]) == (0, {0: 1, 1: 5})


def test_lp2f_meters_000d_to_0010_are_five_bytes_at_least():
    answer = selected_meters(1, {0x00: 1234, 0x0D: 42})
    assert answer.hex() == "012f0d000000000012340d0000000042aebd"
    assert decode_selected_meters(answer, 1, [0x00, 0x0D]) == (0, {0x00: 1234, 0x0D: 42})


def test_a_meters_event_is_stored_from_the_independent_machines_answer():
    wire, out, _host, poller = line(
        {"81": ["00"], "010e0145d1": ["01"], METER_REQUEST: [METERS_MINIMUM + "e639"]}, rte=True
    )
    run(poller, wire, until=0.5)
    assert h(METER_REQUEST) in wire.sent
    meters = [e["meters"] for e in out.events if e["type"] == "meters"]
    assert meters == [
        {
            "coin_in": 0,
            "coin_out": 0,
            "jackpot": 0,
            "handpay": 0,
            "games_played": 0,
            "bills_in": 0,
            "ticket_in": 0,
            "ticket_out": 0,
            "progressive_machine_paid": 0,
            "progressive_attendant_paid": 0,
        }
    ]


# --- 2. a real-time event in place of a long poll's answer -----------------------------------------------


def test_a_game_end_sent_in_place_of_lp_0e_s_ack_is_stored_acknowledged_and_lp_0e_asked_again():
    """After a restart, the machine answers LP 0E with the 7F of the game in play (SAS 6.02 §12.3)."""
    wire, out, host, poller = line(
        {
            "81": ["00"],
            "010e0145d1": ["01ff7f00000000f01d", "01"],
            METER_REQUEST: [METERS_MINIMUM + "e639"],
        },
        rte=True,
    )
    host.wager = 5  # the game the machine started before the restart (kept on disk by the gateway)
    run(poller, wire, until=0.7)
    assert hexes(wire.sent[:5]) == ["81", "010e0145d1", "80", "010e0145d1", METER_REQUEST]
    assert [(e["type"], e["wager"], e["win"]) for e in out.events if e["type"] == "game"] == [("game", 5, 0)]


def test_a_game_start_sent_in_place_of_lp_8a_s_ack_is_stored_and_lp_8a_sent_again_until_acked():
    """The mystery award that stuck (finding 2): LP 8A answered by a queued 7E instead of its ACK."""
    bonus_meters = f.legacy_bonus_meters(1, f.LegacyBonusMeters(0, 0, 0, 0)).hex()
    bonus = "018a00025022006f19"
    wire, _out, host, poller = line(
        {
            "81": ["00"],
            "010e0145d1": ["01"],
            METER_REQUEST: [METERS_MINIMUM + "e639"],
            f.legacy_bonus_meters_request(1).hex(): [bonus_meters],
            bonus: ["01ff7e01000000480000037700", "01"],
        },
        rte=True,
    )
    host.award({"award": 7, "amount": 25022})
    run(poller, wire, until=1.5)
    sent = hexes(wire.sent)
    assert sent.count(bonus) == 2
    at = sent.index(bonus)
    assert sent[at : at + 3] == [bonus, "80", bonus]  # the event's implied ACK, then 8A again at once
    assert host.wager == 100  # the 7E (0100 credits wagered) handled as an event
    assert host.awards[0]["state"] == "sent"  # the second 8A's ACK: credited, its 7C to come


def test_a_handpay_lp_1b_answered_by_events_is_asked_again_until_it_is_answered():
    """Finding 2: LP 1B answered twice by a 7E; the lockup must reach the server on that turn anyway."""
    handpay = f.handpay_info(1, f.HandpayInfo(0, 0x40, 250000)).hex()
    seven_e = "01ff7e01000000480000037700"
    wire, out, _host, poller = line(
        {
            "81": ["00", f.rte_exception(1, 0x51).hex(), "01ff001ca5"],
            "010e0145d1": ["01"],
            METER_REQUEST: [METERS_MINIMUM + "e639"],
            "011b": [seven_e, seven_e, handpay],
        },
        rte=True,
    )
    run(poller, wire, until=1.6)
    sent = hexes(wire.sent)
    at = sent.index("011b")
    assert sent[at : at + 5] == ["011b", "80", "011b", "80", "011b"]
    lockups = [e for e in out.events if e["type"] == "status" and e["status"] == "handpay_lockup"]
    assert [(e["amount"], e["sas_level"]) for e in lockups] == [(250000, 0x40)]


def test_lp_85_answered_by_a_game_end_reads_the_game_then_the_win_each_acknowledged():
    win = f.progressive_win(1, f.ProgressiveWin(1, 1, 150000)).hex()
    none = f.progressive_win(1, f.ProgressiveWin(0, 0, 0)).hex()
    wire, out, host, poller = line(
        {
            "81": ["00", f.rte_exception(1, 0x56).hex(), "00"],
            "010e0145d1": ["01"],
            METER_REQUEST: [METERS_MINIMUM + "e639"],
            "0185": ["01ff7f00000000f01d", win, none],
        },
        rte=True,
        group=1,
        levels={1: 17},
    )
    host.wager = 4
    run(poller, wire, until=1.6)
    sent = hexes(wire.sent)
    at = sent.index("0185")
    assert sent[at : at + 5] == ["0185", "80", "0185", "80", "0185"]  # event ACK, win ACK, no more
    assert [e["type"] for e in out.events if e["type"] in ("game", "jackpot")] == ["game", "jackpot"]
    assert [(e["level"], e["amount"]) for e in out.events if e["type"] == "jackpot"] == [(17, 150000)]


# --- 3. silence in real-time mode, idle answers, link down ----------------------------------------------


def test_silence_to_general_polls_in_real_time_mode_is_nothing_to_report_and_lp_94_goes_next_turn():
    """Finding 3: the machine leaves general polls unanswered (SAS 6.02 §12.6) and answers long polls."""
    wire, _out, host, poller = line(
        {
            "81": ["00", ""],
            "010e0145d1": ["01"],
            METER_REQUEST: [METERS_MINIMUM + "e639"],
            "011b": [HANDPAY_LOCKUP.hex()],
            "019475cb": ["019400e124"],
        },
        rte=True,
    )
    run(poller, wire, until=20.0)
    assert host.up  # 20 s of silence to general polls: still up
    polls = hexes(wire.sent)
    assert polls.count("81") > 60  # polled at its cadence, each silence asked once
    assert polls.count("010e0145d1") >= 15  # a long poll it must answer, every second without an answer
    host.handpay_reset()
    turn = len(wire.sent)
    run(poller, wire, until=20.4)
    # The next turns: LP 1B (is it in a handpay? it is), then LP 94.
    assert hexes(wire.sent)[turn : turn + 2] == ["011b", "019475cb"]


def test_silence_from_a_machine_that_says_nothing_in_words_is_asked_again_not_taken_for_nothing():
    """A machine that answers idle polls (00) and is silent once: its answer was late or lost. The same
    general poll goes again at once (the implied NACK brings the event back); a poll to another machine
    next would have acknowledged it unread (the 3 games lost of the first ff00 bench run)."""
    wire, out, host, _poller = line(
        {
            "81": ["00", "00", "", "01ff7f00000000f01d", "00"],
            "010e0145d1": ["01"],
            METER_REQUEST: [METERS_MINIMUM + "e639"],
        },
        rte=True,
    )
    other = MachineHost(MachineConfig("VEN-0002", 2, 1, meters_every=3600), Recorder())
    poller = LinePoller(Link(wire, 0.01, 0.01), [host, other])  # multi-drop: machine 2 silent
    host.wager = 3
    run(poller, wire, until=1.0)
    polls = [p for p in hexes(wire.sent) if p in ("81", "80") or p.startswith("01")]
    at = polls.index("81", polls.index(METER_REQUEST))  # the first general poll in real-time mode
    assert polls[at + 1 : at + 4] == ["81", "81", "80"]  # said 00; silent: asked again; the 7F, its ACK
    assert [(e["wager"], e["win"]) for e in out.events if e["type"] == "game"] == [(3, 0)]


def test_a_machine_silent_to_long_polls_too_is_down_after_five_seconds():
    wire, _out, host, poller = line(
        {"81": ["00", ""], "010e0145d1": ["01"], METER_REQUEST: [METERS_MINIMUM + "e639"]}, rte=True
    )
    run(poller, wire, until=1.0)
    assert host.up
    wire.script.clear()  # pulled cable; its last answer was LP 2F's at 0.4 s
    run(poller, wire, until=5.3)
    assert host.up
    run(poller, wire, until=7.0)
    assert not host.up


def test_idle_general_polls_answered_00_or_addr_ff_00_crc_alike():
    for idle in ("00", "01ff001ca5"):
        wire, out, host, poller = line(
            {"81": [idle], "010e0145d1": ["01"], METER_REQUEST: [METERS_MINIMUM + "e639"]}, rte=True
        )
        run(poller, wire, until=3.0)
        assert host.up, idle
        assert "80" not in hexes(wire.sent), idle  # nothing to acknowledge
        assert [e["type"] for e in out.events] == ["meters"], idle


# --- 5. the emulator plays each reading ------------------------------------------------------------------


def test_the_emulator_pre_empts_a_long_poll_with_its_event_and_is_silent_or_ff00_when_idle():
    egm = Egm(EgmConfig(address=1, spin=0.0, rte_preempts=True, rte_idle="silent"))
    assert egm.answer(h("010e0145d1"), 0.0) == h("01")
    assert egm.answer(h("81"), 0.1) is None  # nothing to report: silence (§12.6)
    assert egm.play(1)
    started = egm.answer(h(METER_REQUEST), 0.2)
    assert started[:3] == h("01ff7e")  # the 7E in place of the meters (§12.3)
    assert egm.answer(f.sync_poll(), 0.3) is None  # its implied ACK
    assert egm.answer(h(METER_REQUEST), 0.4)[:3] == h("01ff7f")
    egm.answer(f.sync_poll(), 0.5)
    assert egm.answer(h(METER_REQUEST), 0.6)[:3] == h("012f34")  # nothing queued: answered, 4-byte meters
    egm.config.rte_idle = "ff00"
    assert egm.answer(h("81"), 0.7) == h("01ff001ca5")


def test_the_emulator_sends_five_byte_meters_when_set_so():
    egm = Egm(EgmConfig(address=1, meter_size=5))
    assert egm.answer(h(METER_REQUEST), 0.0)[:3] == h("012f3e")  # 2 + 10 x (1 + 5)
