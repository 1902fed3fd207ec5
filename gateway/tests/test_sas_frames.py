"""Byte-level checks of every frame, host to machine and back, against hand-checked vectors."""

from __future__ import annotations

import pytest

from gateway.sas import frames as f
from gateway.sas.bcd import BcdError, from_bcd, to_bcd
from gateway.sas.crc import crc16, crc_ok, with_crc
from gateway.sas.meters import (
    decode_extended_meters,
    decode_extended_meters_request,
    decode_selected_meters,
    decode_selected_meters_request,
    extended_meters,
    extended_meters_request,
    selected_meters,
    selected_meters_request,
)


def h(text: str) -> bytes:
    return bytes.fromhex(text)


def bitwise_kermit(data: bytes) -> int:
    """Reference CRC computed bit by bit, independent of the table in gateway/sas/crc.py."""
    crc = 0
    for byte in data:
        for bit in range(8):
            mix = (crc ^ (byte >> bit)) & 1
            crc >>= 1
            if mix:
                crc ^= 0x8408
    return crc


def test_crc_check_value_of_the_kermit_catalogue():
    assert crc16(b"123456789") == 0x2189


def test_crc_matches_the_remote_handpay_reset_published_by_saspy():
    # saspy lists the reset poll for address 01 as "94 75 CB": CRC 0xCB75, low byte first.
    assert with_crc(h("0194")) == h("019475cb")


@pytest.mark.parametrize("data", [b"", b"\x00", b"\xff" * 7, bytes(range(40))])
def test_crc_table_equals_bitwise_reference(data):
    assert crc16(data) == bitwise_kermit(data)


def test_crc_ok_rejects_a_flipped_bit():
    frame = with_crc(h("0180010100001234"))
    assert crc_ok(frame)
    assert not crc_ok(frame[:3] + bytes([frame[3] ^ 1]) + frame[4:])


def test_bcd_is_most_significant_byte_first():
    assert to_bcd(123456, 5) == h("0000123456")
    assert from_bcd(h("0000123456")) == 123456
    assert to_bcd(9999999999, 5) == h("9999999999")


def test_bcd_refuses_overflow_negative_and_hex_nibbles():
    with pytest.raises(BcdError):
        to_bcd(10**10, 5)
    with pytest.raises(BcdError):
        to_bcd(-1, 2)
    with pytest.raises(BcdError):
        from_bcd(h("1a"))


def test_general_poll_is_address_or_80():
    assert f.general_poll(1) == h("81")
    assert f.general_poll(0x7F) == h("ff")


def test_enable_rte():
    assert f.enable_rte(1, True) == h("010e0145d1")
    assert f.decode_enable_rte(h("010e0145d1"), 1) is True
    assert f.decode_enable_rte(f.enable_rte(9, False), 9) is False


def test_lp80_single_level_broadcast():
    frame = f.single_broadcast(group=1, level=1, amount=123456)
    assert frame == h("0080010100001234564086")
    assert f.decode_single_broadcast(frame) == (1, {1: 123456})


def test_lp86_multi_level_broadcast():
    frame = f.multi_broadcast(2, {2: 5000, 1: 150000})
    # length 0D = group + 2 x (level + 5 BCD); levels go out in order.
    assert frame == h("00860d020100001500000200000050008a3d")
    assert f.decode_multi_broadcast(frame) == (2, {1: 150000, 2: 5000})


def test_lp2f_selected_meters_request_and_answer():
    request = selected_meters_request(1, [0x00, 0x01, 0x05])
    assert request == h("012f0500000001053aa1")
    assert decode_selected_meters_request(request, 1) == (0, [0, 1, 5])
    answer = selected_meters(1, {0x00: 1234, 0x05: 42})
    # coin in and games played: 4 BCD bytes each, their minimum in SAS 6.02 Table C-7.
    assert answer == h("012f0c000000000012340500000042e15b")
    assert decode_selected_meters(answer, 1) == (0, {0: 1234, 5: 42})


def test_lp2f_meter_rolls_over_at_its_width():
    answer = selected_meters(1, {0x05: 10**8 + 7})
    assert decode_selected_meters(answer, 1) == (0, {5: 7})


def test_lp1b_handpay_information():
    frame = f.handpay_info(3, f.HandpayInfo(group=1, level=1, amount=250000))
    assert frame == h("031b01010000250000000000" + "00" * 10 + "acd6")
    assert len(frame) == 24
    assert f.decode_handpay_info(frame, 3) == f.HandpayInfo(1, 1, 250000, 0, 0)


def test_lp85_sas_progressive_win():
    assert f.read_poll(1, f.LP_SAS_PROGRESSIVE_WIN) == h("0185")
    frame = f.progressive_win(1, f.ProgressiveWin(1, 2, 9999))
    assert frame == h("018501020000009999f041")
    assert f.decode_progressive_win(frame, 1) == f.ProgressiveWin(1, 2, 9999)


def test_lp87_multiple_progressive_wins():
    frame = f.multi_progressive_wins(1, f.ProgressiveWins(1, [(1, 100), (3, 2500)]))
    assert frame == h("01870e01020100000001000300000025006a4f")
    assert f.decode_multi_progressive_wins(frame, 1) == f.ProgressiveWins(1, [(1, 100), (3, 2500)])
    empty = f.multi_progressive_wins(1, f.ProgressiveWins(1, []))
    assert f.decode_multi_progressive_wins(empty, 1).wins == []


def test_lp8a_legacy_bonus_and_lp90_its_win():
    assert f.legacy_bonus(1, 500) == h("018a0000050000c48a")
    assert f.decode_legacy_bonus(h("018a0000050000c48a"), 1) == (500, 0)
    win = f.LegacyBonusWin(0, 0, 0, 500)
    assert f.legacy_bonus_win(1, win) == h("019000000000000000000500b318")
    assert f.decode_legacy_bonus_win(h("019000000000000000000500b318"), 1) == win


def test_lp9a_legacy_bonus_meters():
    assert f.legacy_bonus_meters_request(1) == h("019a0000b8e6")  # game 0000: the whole machine
    assert f.decode_legacy_bonus_meters_request(h("019a0000b8e6"), 1) == 0
    meters = f.LegacyBonusMeters(0, 1234, 5, 0)
    frame = h("019a0000" + "00001234" + "00000005" + "00000000" + "a749")  # 3 meters of 4 BCD bytes
    assert f.legacy_bonus_meters(1, meters) == frame
    assert f.decode_legacy_bonus_meters(frame, 1) == meters and meters.total == 1239


def test_lp94_remote_handpay_reset():
    assert f.handpay_reset(1) == h("019475cb")
    assert f.handpay_reset_answer(1, f.HANDPAY_RESET_DONE) == h("019400e124")
    assert f.decode_handpay_reset_answer(h("019400e124"), 1) == 0


def test_real_time_game_started_and_ended():
    data = f.game_started_data(f.GameStarted(45, 123456, 0, 1))
    frame = f.rte_exception(1, 0x7E, data)
    assert frame == h("01ff7e0045001234560001fcaf")
    report = f.decode_rte_exception(frame, 1)
    assert f.decode_game_started(report.data) == f.GameStarted(45, 123456, 0, 1)
    ended = f.rte_exception(1, 0x7F, f.game_ended_data(90))
    assert ended == h("01ff7f000000907989")
    assert f.decode_game_ended(f.decode_rte_exception(ended, 1).data) == 90


def test_real_time_event_without_data():
    assert f.rte_exception(1, 0x11) == h("01ff1114a4")
    assert f.decode_rte_exception(h("01ff1114a4"), 1) == f.ExceptionReport(0x11)


@pytest.mark.parametrize(
    "frame",
    [
        h("00800101000012345640"),  # one byte short
        h("008001010000123456408600"),  # one byte long
        h("0080010100001234564186"),  # CRC
        h("0080010100001234 5a".replace(" ", "") + "0000"),  # not BCD
    ],
)
def test_broadcast_decoder_rejects_malformed_frames(frame):
    with pytest.raises(f.FrameError):
        f.decode_single_broadcast(frame)


def test_variable_frames_reject_a_length_byte_that_lies():
    good = f.multi_broadcast(2, {1: 1})
    bad = good[:2] + bytes([good[2] + 1]) + good[3:]
    with pytest.raises(f.FrameError):
        f.decode_multi_broadcast(bad)


def test_decoders_refuse_another_machines_answer():
    with pytest.raises(f.FrameError):
        f.decode_progressive_win(f.progressive_win(2, f.ProgressiveWin(1, 1, 1)), 1)


def test_frame_lengths_from_structure():
    assert f.frame_length(h("0180"), f.REQUEST_LENGTH) == 11
    assert f.frame_length(h("0086"), f.REQUEST_LENGTH) is None  # needs its length byte
    assert f.frame_length(h("00860d"), f.REQUEST_LENGTH) == 18
    assert f.frame_length(h("011b"), f.REQUEST_LENGTH) == 2
    assert f.frame_length(h("011b"), f.RESPONSE_LENGTH) == 24
    assert f.rte_length(h("01ff7e")) == 13
    assert f.rte_length(h("01ff11")) == 5


def nibble_ccitt(data: bytes) -> int:
    """The nibble-at-a-time CRC of SAS host code (constants in octal: 0o17 and 0o10201)."""
    crc = 0
    for byte in data:
        q = (crc ^ byte) & 0o17
        crc = (crc >> 4) ^ (q * 0o10201)
        q = (crc ^ (byte >> 4)) & 0o17
        crc = (crc >> 4) ^ (q * 0o10201)
    return crc


@pytest.mark.parametrize("data", [h("0194"), b"123456789", bytes(range(30))])
def test_crc_equals_the_nibble_algorithm_of_sas_hosts(data):
    assert crc16(data) == nibble_ccitt(data)


# --- LP 6F / AF extended meters ------------------------------------------------------------------


@pytest.mark.parametrize("command", [0x6F, 0xAF])
def test_extended_meters_request_carries_two_byte_codes_lsb_first(command):
    frame = extended_meters_request(0x01, [0x0000, 0x0005, 0x1234], command=command)
    # address, command, length 8 (game 2 + 3 codes x 2), game 0000, codes LSB first, CRC
    assert frame[:-2] == h(f"01{command:02x}08" + "0000" + "0000" + "0500" + "3412")
    assert frame == with_crc(frame[:-2])
    assert decode_extended_meters_request(frame, 0x01, command) == (0, [0x0000, 0x0005, 0x1234])


@pytest.mark.parametrize("command", [0x6F, 0xAF])
def test_extended_meters_answer_gives_each_meter_its_size(command):
    frame = extended_meters(0x02, {0x0000: 123456, 0x0005: 42, 0x0042: None}, command=command)
    body = (
        "0000"  # game
        + "0000"
        + "04"
        + "00123456"  # coin in: 4 BCD bytes, its Table C-7 minimum
        + "0500"
        + "04"
        + "00000042"  # games played: 4 BCD bytes (Table C-7 width)
        + "4200"
        + "00"  # a meter the machine does not keep: size 0, no value
    )
    assert frame[:-2] == h(f"02{command:02x}{len(body) // 2:02x}" + body)
    assert frame == with_crc(frame[:-2])
    assert decode_extended_meters(frame, 0x02, command) == (0, {0x0000: 123456, 0x0005: 42})


def test_extended_meters_decoder_reads_any_size_up_to_nine():
    body = h("0000" + "0000" + "09" + "000000001234567890" + "0100" + "01" + "07")
    frame = with_crc(h("016f") + bytes([len(body)]) + body)
    assert decode_extended_meters(frame, 0x01) == (0, {0x0000: 1234567890, 0x0001: 7})


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("0000" + "0000" + "0a" + "00" * 10, "a meter of 10 bytes"),
        ("0000" + "0000" + "05" + "000012", "a value shorter than its size"),
        ("0000" + "00", "a truncated meter header"),
        ("0000" + "0000" + "02" + "1a00", "a hex nibble in the value"),
    ],
)
def test_extended_meters_decoder_refuses_malformed_answers(body, why):
    frame = with_crc(h("016f") + bytes([len(h(body))]) + h(body))
    with pytest.raises(f.FrameError):
        decode_extended_meters(frame, 0x01)


def test_extended_meters_request_bounds_and_commands():
    with pytest.raises(f.FrameError):
        extended_meters_request(0x01, [])
    with pytest.raises(f.FrameError):
        extended_meters_request(0x01, list(range(13)))
    with pytest.raises(f.FrameError):
        extended_meters_request(0x01, [0], command=0x2F)
    odd = with_crc(h("016f03000000"))  # game plus half a meter code
    with pytest.raises(f.FrameError):
        decode_extended_meters_request(odd, 0x01)
    assert len(extended_meters_request(0x01, list(range(12)))) == 2 + 1 + 2 + 24 + 2


def test_extended_meters_frame_lengths_come_from_the_length_byte():
    request = extended_meters_request(0x05, [0, 1, 2], command=0xAF)
    assert f.frame_length(request[:3], f.REQUEST_LENGTH) == len(request)
    answer = extended_meters(0x05, {0: 1, 1: 2}, command=0xAF)
    assert f.frame_length(answer[:3], f.RESPONSE_LENGTH) == len(answer)
