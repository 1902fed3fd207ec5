"""Property tests: the host's decoders and the emulator's encoders agree on any value SAS can carry."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.egm.config import EgmConfig
from gateway.egm.machine import Egm
from gateway.host import MachineHost
from gateway.host_io import METER_CODES, MachineConfig
from gateway.link import Link
from gateway.sas import frames as f
from gateway.sas.bcd import from_bcd, to_bcd
from gateway.sas.crc import crc_ok, with_crc
from gateway.sas.meters import (
    decode_extended_meters,
    decode_extended_meters_request,
    extended_meters,
    extended_meters_request,
    meter_size,
)
from gateway.tests.helpers import Recorder, Wire

addresses = st.integers(1, 127)
cents5 = st.integers(0, 10**10 - 1)
levels = st.integers(1, 32)
FAST = settings(max_examples=60, deadline=None)


@FAST
@given(st.binary(min_size=1, max_size=64), st.data())
def test_any_single_bit_flip_breaks_the_crc(payload, data):
    frame = with_crc(payload)
    assert crc_ok(frame)
    bit = data.draw(st.integers(0, len(frame) * 8 - 1))
    flipped = bytearray(frame)
    flipped[bit // 8] ^= 1 << (bit % 8)
    assert not crc_ok(bytes(flipped))


@FAST
@given(st.integers(1, 8).flatmap(lambda w: st.tuples(st.just(w), st.integers(0, 10 ** (2 * w) - 1))))
def test_bcd_round_trip(width_value):
    width, value = width_value
    encoded = to_bcd(value, width)
    assert len(encoded) == width and from_bcd(encoded) == value


@FAST
@given(
    addresses,
    st.integers(1, 100),
    st.fixed_dictionaries({code: st.integers(0, 10**10 - 1) for code in METER_CODES}),
    st.sampled_from([0, 5]),
)
def test_host_reads_the_emulators_meters_in_cents(address, denomination, meters, size):
    egm = Egm(EgmConfig(address=address, denomination=denomination, meter_size=size))
    egm.meters.update(meters)
    out = Recorder()
    host = MachineHost(MachineConfig("M", address, denomination, rte=True), out)
    poll = host.meters_poll()
    answered, value = Link(Wire(egm), 0.01, 0.01).exchange(poll)
    assert answered
    poll.handle(value)
    reported = out.events[-1]["meters"]
    for code, name in METER_CODES.items():
        credits = meters[code] % 10 ** (2 * meter_size(code, size))  # the frame's BCD width
        assert reported[name] == (credits if name == "games_played" else credits * denomination)


@FAST
@given(st.integers(1, 255), st.dictionaries(levels, cents5, min_size=1, max_size=32), st.booleans())
def test_emulator_shows_what_the_host_broadcasts(group, amounts, multi):
    egm = Egm(EgmConfig(address=1, group=group, levels=sorted(amounts)))
    if multi:
        egm.answer(f.multi_broadcast(group, amounts), 0.0)
    else:
        for level, amount in amounts.items():
            egm.answer(f.single_broadcast(group, level, amount), 0.0)
    assert egm.displayed == amounts
    assert egm.progressive_enabled


plain_exceptions = st.sampled_from([0x11, 0x12, 0x17, 0x18, 0x20, 0x51, 0x52, 0x53, 0x54, 0x56, 0x7A])
game = st.tuples(st.integers(1, 9999), st.integers(0, 10**8 - 1))


@FAST
@given(st.lists(st.one_of(plain_exceptions, game), max_size=9), st.booleans(), addresses)
def test_host_receives_the_emulators_exceptions_in_order(items, rte, address):
    egm = Egm(EgmConfig(address=address))
    egm.rte = rte
    expected = []
    for item in items:
        if isinstance(item, tuple):
            wager, win = item
            started = f.game_started_data(f.GameStarted(wager, 0, 0, 0))
            egm.raise_exception(0x7E, started)
            egm.raise_exception(0x7F, f.game_ended_data(win))
            if rte:
                expected += [
                    f.ExceptionReport(0x7E, started),
                    f.ExceptionReport(0x7F, f.game_ended_data(win)),
                ]
        else:
            egm.raise_exception(item)
            expected.append(f.ExceptionReport(item))
    host = MachineHost(MachineConfig("M", address, 1, rte=rte), Recorder())
    link = Link(Wire(egm), 0.01, 0.01)
    received = []
    while True:
        poll = host.general_poll()
        answered, report = link.exchange(poll)
        assert answered
        link.handled(poll, report)  # the implied ACK, as the line sends it
        if report.code == 0:
            break
        received.append(report)
    assert received == expected


@FAST
@given(addresses, st.integers(1, 255), st.lists(st.tuples(levels, cents5), max_size=32))
def test_progressive_wins_round_trip(address, group, wins):
    frame = f.multi_progressive_wins(address, f.ProgressiveWins(group, wins))
    assert f.decode_multi_progressive_wins(frame, address) == f.ProgressiveWins(group, wins)
    for level, amount in wins[:1]:
        one = f.progressive_win(address, f.ProgressiveWin(group, level, amount))
        assert f.decode_progressive_win(one, address) == f.ProgressiveWin(group, level, amount)


@FAST
@given(
    addresses,
    st.builds(
        f.HandpayInfo,
        st.integers(0, 255),
        st.integers(0, 255),
        cents5,
        st.integers(0, 9999),
        st.integers(0, 1),
    ),
    st.builds(
        f.LegacyBonusWin,
        st.integers(0, 255),
        st.integers(0, 10**8 - 1),
        st.integers(0, 2),
        st.integers(0, 10**8 - 1),
    ),
)
def test_handpay_and_bonus_frames_round_trip(address, info, bonus):
    assert f.decode_handpay_info(f.handpay_info(address, info), address) == info
    assert f.decode_legacy_bonus_win(f.legacy_bonus_win(address, bonus), address) == bonus
    request = f.legacy_bonus(address, bonus.bonus, bonus.tax_status)
    assert f.decode_legacy_bonus(request, address) == (bonus.bonus, bonus.tax_status)


@FAST
@given(
    addresses,
    st.integers(1, 100),
    st.sampled_from([f.LP_EXTENDED_METERS, f.LP_EXTENDED_METERS_ALT]),
    st.fixed_dictionaries({code: st.integers(0, 10**10 - 1) for code in METER_CODES}),
)
def test_host_reads_the_emulators_extended_meters_as_the_selected_ones(address, denomination, lp, meters):
    egm = Egm(EgmConfig(address=address, denomination=denomination))
    egm.meters.update(meters)
    reports = []
    for meters_lp in (f.LP_SELECTED_METERS, lp):
        out = Recorder()
        host = MachineHost(MachineConfig("M", address, denomination, meters_lp=meters_lp), out)
        poll = host.meters_poll()
        assert poll.request[1] == meters_lp
        answered, value = Link(Wire(egm), 0.01, 0.01).exchange(poll)
        assert answered
        poll.handle(value)
        reports.append(out.events[-1]["meters"])
    assert reports[0] == reports[1]
    assert reports[1]["coin_in"] == meters[0x00] % 10**8 * denomination  # 4 BCD bytes, its minimum


@FAST
@given(
    addresses,
    st.sampled_from([f.LP_EXTENDED_METERS, f.LP_EXTENDED_METERS_ALT]),
    st.dictionaries(
        st.integers(0, 0xFFFF),
        st.none() | st.integers(0, 10**8 - 1),
        min_size=1,
        max_size=12,
    ),
)
def test_extended_meters_round_trip_any_code_and_unsupported_meters(address, lp, meters):
    request = extended_meters_request(address, list(meters), command=lp)
    assert decode_extended_meters_request(request, address, lp) == (0, list(meters))
    answer = extended_meters(address, meters, command=lp)
    expected = {code: value for code, value in meters.items() if value is not None}
    assert decode_extended_meters(answer, address, lp) == (0, expected)
