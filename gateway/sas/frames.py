"""One encode/decode pair per SAS frame, host side and machine side. Pure functions over bytes.

Layouts and their public sources are in gateway/README.md ("Frames"). Conventions (SAS 6.02 §2.2.3):
BCD most significant byte first, binary least significant byte first, a length byte counts the bytes
after it up to (not including) the CRC. Amounts named `amount` are cents; `credits` are credits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gateway.sas.bcd import from_bcd, to_bcd
from gateway.sas.crc import crc_ok, with_crc

GENERAL_POLL_FLAG = 0x80
GLOBAL_ADDRESS = 0x00
RTE_MARKER = 0xFF

LP_ENABLE_RTE = 0x0E
LP_HANDPAY_INFO = 0x1B
LP_SELECTED_METERS = 0x2F
LP_EXTENDED_METERS = 0x6F
LP_EXTENDED_METERS_ALT = 0xAF
LP_SINGLE_BROADCAST = 0x80
LP_PROGRESSIVE_WIN = 0x84
LP_SAS_PROGRESSIVE_WIN = 0x85
LP_MULTI_BROADCAST = 0x86
LP_MULTI_PROGRESSIVE_WINS = 0x87
LP_LEGACY_BONUS = 0x8A
LP_LEGACY_BONUS_WIN = 0x90
LP_HANDPAY_RESET = 0x94
LP_LEGACY_BONUS_METERS = 0x9A


class FrameError(ValueError):
    """A frame with a wrong CRC, length, command or BCD field: the receiver treats it as not received."""


def _check(frame: bytes, address: int, command: int, length: int | None = None) -> None:
    if len(frame) < 2 or frame[0] != address or frame[1] != command:
        raise FrameError(f"expected {address:02X} {command:02X}, got {frame[:2].hex()}")
    if length is not None and len(frame) != length:
        raise FrameError(f"LP {command:02X}: {len(frame)} bytes, expected {length}")
    if not crc_ok(frame):
        raise FrameError(f"LP {command:02X}: bad CRC")


def variable_body(frame: bytes, address: int, command: int) -> bytes:
    """The bytes after a length byte, once the length and CRC agree."""
    if len(frame) < 5 or frame[2] != len(frame) - 5:
        raise FrameError(f"LP {command:02X}: length byte disagrees with the frame")
    _check(frame, address, command)
    return frame[3:-2]


def bcd_decimal(data: bytes) -> int:
    try:
        return from_bcd(data)
    except ValueError as exc:
        raise FrameError(str(exc)) from exc


# --- general poll and exceptions -------------------------------------------------------------


def general_poll(address: int) -> bytes:
    return bytes([address | GENERAL_POLL_FLAG])


def sync_poll() -> bytes:
    """A general poll to address 0, which no machine has: the implied ACK of every machine's last answer.

    SAS 6.02 §3.1 (as the Aristocrat client implements it, README S2): a general poll's answer is
    acknowledged by any long poll, a global poll or a poll to another address; the same general poll
    again is the implied NACK and brings the same answer back.
    """
    return general_poll(GLOBAL_ADDRESS)


def exception_byte(code: int) -> bytes:
    """A general poll's answer outside real-time event reporting: one exception code, 00 if none."""
    return bytes([code])


@dataclass(frozen=True)
class ExceptionReport:
    code: int
    data: bytes = b""


# Data lengths of the real-time events we decode (SAS 6.02 §12); every other event carries none.
RTE_DATA_LENGTH = {0x7E: 8, 0x7F: 4, 0x7C: 10}


def rte_exception(address: int, code: int, data: bytes = b"") -> bytes:
    if len(data) != RTE_DATA_LENGTH.get(code, 0):
        raise FrameError(f"event {code:02X} carries {RTE_DATA_LENGTH.get(code, 0)} bytes of data")
    return with_crc(bytes([address, RTE_MARKER, code]) + data)


def decode_rte_exception(frame: bytes, address: int) -> ExceptionReport:
    if len(frame) < 5 or frame[0] != address or frame[1] != RTE_MARKER:
        raise FrameError("not a real-time event")
    code = frame[2]
    if len(frame) != 5 + RTE_DATA_LENGTH.get(code, 0) or not crc_ok(frame):
        raise FrameError(f"event {code:02X}: bad length or CRC")
    return ExceptionReport(code, frame[3:-2])


@dataclass(frozen=True)
class GameStarted:
    credits_wagered: int
    coin_in_meter: int
    wager_type: int
    progressive_group: int


def game_started_data(event: GameStarted) -> bytes:
    return (
        to_bcd(event.credits_wagered, 2)
        + to_bcd(event.coin_in_meter, 4)
        + bytes([event.wager_type, event.progressive_group])
    )


def decode_game_started(data: bytes) -> GameStarted:
    return GameStarted(bcd_decimal(data[0:2]), bcd_decimal(data[2:6]), data[6], data[7])


def game_ended_data(win_credits: int) -> bytes:
    return to_bcd(win_credits, 4)


def decode_game_ended(data: bytes) -> int:
    return bcd_decimal(data)


# --- acknowledgements ------------------------------------------------------------------------


def ack(address: int) -> bytes:
    """A type S long poll is acknowledged by the machine's address alone."""
    return bytes([address])


def busy(address: int) -> bytes:
    return bytes([address, 0x00])


# --- LP 0E enable/disable real-time event reporting --------------------------------------------


def enable_rte(address: int, enable: bool) -> bytes:
    return with_crc(bytes([address, LP_ENABLE_RTE, 1 if enable else 0]))


def decode_enable_rte(frame: bytes, address: int) -> bool:
    _check(frame, address, LP_ENABLE_RTE, 5)
    return frame[2] == 1


# --- type R polls: address and command only ----------------------------------------------------


def read_poll(address: int, command: int) -> bytes:
    """1B, 84, 85, 87, 90: the host sends no data and no CRC (type R, SAS 6.02 §2.2.2.1)."""
    return bytes([address, command])


# --- LP 1B handpay information ------------------------------------------------------------------


HANDPAY_NON_PROGRESSIVE = 0x40


@dataclass(frozen=True)
class HandpayInfo:
    group: int
    level: int  # 01-20 progressive level (01 the top), 40 non-progressive win, 80 cancelled credits
    amount: int  # cents
    partial_pay: int = 0  # cents
    reset_id: int = 0


def handpay_info(address: int, info: HandpayInfo) -> bytes:
    body = (
        bytes([address, LP_HANDPAY_INFO, info.group, info.level])
        + to_bcd(info.amount, 5)
        + to_bcd(info.partial_pay, 2)
        + bytes([info.reset_id])
        + bytes(10)  # reserved
    )
    return with_crc(body)


def decode_handpay_info(frame: bytes, address: int) -> HandpayInfo:
    _check(frame, address, LP_HANDPAY_INFO, 24)
    return HandpayInfo(frame[2], frame[3], bcd_decimal(frame[4:9]), bcd_decimal(frame[9:11]), frame[11])


# --- LP 80 / 86 progressive broadcasts -----------------------------------------------------------


def single_broadcast(group: int, level: int, amount: int, address: int = GLOBAL_ADDRESS) -> bytes:
    return with_crc(bytes([address, LP_SINGLE_BROADCAST, group, level]) + to_bcd(amount, 5))


def decode_single_broadcast(frame: bytes, address: int = GLOBAL_ADDRESS) -> tuple[int, dict[int, int]]:
    _check(frame, address, LP_SINGLE_BROADCAST, 11)
    return frame[2], {frame[3]: bcd_decimal(frame[4:9])}


def multi_broadcast(group: int, levels: dict[int, int], address: int = GLOBAL_ADDRESS) -> bytes:
    if not 1 <= len(levels) <= 32:
        raise FrameError("LP 86 carries 1 to 32 levels")
    body = bytes([group]) + b"".join(bytes([lvl]) + to_bcd(amt, 5) for lvl, amt in sorted(levels.items()))
    return with_crc(bytes([address, LP_MULTI_BROADCAST, len(body)]) + body)


def decode_multi_broadcast(frame: bytes, address: int = GLOBAL_ADDRESS) -> tuple[int, dict[int, int]]:
    body = variable_body(frame, address, LP_MULTI_BROADCAST)
    if (len(body) - 1) % 6:
        raise FrameError("LP 86: level entries are 6 bytes")
    return body[0], {body[i]: bcd_decimal(body[i + 1 : i + 6]) for i in range(1, len(body), 6)}


# --- LP 84 / 85 / 87 progressive wins -------------------------------------------------------------


@dataclass(frozen=True)
class ProgressiveWin:
    group: int
    level: int
    amount: int  # cents


def progressive_win(address: int, win: ProgressiveWin, command: int = LP_SAS_PROGRESSIVE_WIN) -> bytes:
    """84 and 85 share one layout; level 00 and amount 0 mean "no win queued"."""
    return with_crc(bytes([address, command, win.group, win.level]) + to_bcd(win.amount, 5))


def decode_progressive_win(
    frame: bytes, address: int, command: int = LP_SAS_PROGRESSIVE_WIN
) -> ProgressiveWin:
    _check(frame, address, command, 11)
    return ProgressiveWin(frame[2], frame[3], bcd_decimal(frame[4:9]))


@dataclass(frozen=True)
class ProgressiveWins:
    group: int
    wins: list[tuple[int, int]] = field(default_factory=list)  # (level, cents), oldest first


def multi_progressive_wins(address: int, wins: ProgressiveWins) -> bytes:
    body = bytes([wins.group, len(wins.wins)])
    body += b"".join(bytes([lvl]) + to_bcd(amt, 5) for lvl, amt in wins.wins)
    return with_crc(bytes([address, LP_MULTI_PROGRESSIVE_WINS, len(body)]) + body)


def decode_multi_progressive_wins(frame: bytes, address: int) -> ProgressiveWins:
    body = variable_body(frame, address, LP_MULTI_PROGRESSIVE_WINS)
    if len(body) < 2 or len(body) != 2 + 6 * body[1]:
        raise FrameError("LP 87: count disagrees with the entries")
    return ProgressiveWins(
        body[0], [(body[i], bcd_decimal(body[i + 1 : i + 6])) for i in range(2, len(body), 6)]
    )


# --- LP 8A legacy bonus, LP 90 its confirmation ------------------------------------------------------


def legacy_bonus(address: int, credits: int, tax_status: int = 0) -> bytes:
    return with_crc(bytes([address, LP_LEGACY_BONUS]) + to_bcd(credits, 4) + bytes([tax_status]))


def decode_legacy_bonus(frame: bytes, address: int) -> tuple[int, int]:
    _check(frame, address, LP_LEGACY_BONUS, 9)
    return bcd_decimal(frame[2:6]), frame[6]


@dataclass(frozen=True)
class LegacyBonusWin:
    multiplier: int
    multiplied_win: int  # credits
    tax_status: int
    bonus: int  # credits


def legacy_bonus_win_data(win: LegacyBonusWin) -> bytes:
    """The body LP 90 answers with, and the data of real-time event 7C."""
    return (
        bytes([win.multiplier])
        + to_bcd(win.multiplied_win, 4)
        + bytes([win.tax_status])
        + to_bcd(win.bonus, 4)
    )


def decode_legacy_bonus_win_data(data: bytes) -> LegacyBonusWin:
    if len(data) != 10:
        raise FrameError("legacy bonus win: 10 bytes")
    return LegacyBonusWin(data[0], bcd_decimal(data[1:5]), data[5], bcd_decimal(data[6:10]))


def legacy_bonus_win(address: int, win: LegacyBonusWin) -> bytes:
    return with_crc(bytes([address, LP_LEGACY_BONUS_WIN]) + legacy_bonus_win_data(win))


def decode_legacy_bonus_win(frame: bytes, address: int) -> LegacyBonusWin:
    _check(frame, address, LP_LEGACY_BONUS_WIN, 14)
    return decode_legacy_bonus_win_data(frame[2:-2])


# --- LP 9A legacy bonus meters: what the machine has credited by LP 8A, per tax status ---------------


@dataclass(frozen=True)
class LegacyBonusMeters:
    game: int
    deductible: int  # credits, 8A tax status 00
    nondeductible: int  # 01
    wager_match: int  # 02

    @property
    def total(self) -> int:
        return self.deductible + self.nondeductible + self.wager_match


def legacy_bonus_meters_request(address: int, game: int = 0) -> bytes:
    return with_crc(bytes([address, LP_LEGACY_BONUS_METERS]) + to_bcd(game, 2))


def decode_legacy_bonus_meters_request(frame: bytes, address: int) -> int:
    _check(frame, address, LP_LEGACY_BONUS_METERS, 6)
    return bcd_decimal(frame[2:4])


def legacy_bonus_meters(address: int, meters: LegacyBonusMeters) -> bytes:
    body = to_bcd(meters.game, 2) + b"".join(
        to_bcd(value, 4) for value in (meters.deductible, meters.nondeductible, meters.wager_match)
    )
    return with_crc(bytes([address, LP_LEGACY_BONUS_METERS]) + body)


def decode_legacy_bonus_meters(frame: bytes, address: int) -> LegacyBonusMeters:
    _check(frame, address, LP_LEGACY_BONUS_METERS, 18)
    return LegacyBonusMeters(*(bcd_decimal(frame[i : i + n]) for i, n in ((2, 2), (4, 4), (8, 4), (12, 4))))


# --- LP 94 remote handpay reset --------------------------------------------------------------------

HANDPAY_RESET_DONE = 0x00
HANDPAY_RESET_UNABLE = 0x01
HANDPAY_RESET_NOT_IN_HANDPAY = 0x02


def handpay_reset(address: int) -> bytes:
    return with_crc(bytes([address, LP_HANDPAY_RESET]))


def decode_handpay_reset(frame: bytes, address: int) -> None:
    _check(frame, address, LP_HANDPAY_RESET, 4)


def handpay_reset_answer(address: int, code: int) -> bytes:
    return with_crc(bytes([address, LP_HANDPAY_RESET, code]))


def decode_handpay_reset_answer(frame: bytes, address: int) -> int:
    _check(frame, address, LP_HANDPAY_RESET, 5)
    return frame[2]


# --- frame lengths, for receivers that find frames from structure instead of the wakeup bit ---------

VARIABLE = -1
# Total length of each host request, counted from the address byte (VARIABLE: length byte at [2]).
REQUEST_LENGTH = {
    LP_ENABLE_RTE: 5,
    LP_HANDPAY_INFO: 2,
    LP_SELECTED_METERS: VARIABLE,
    LP_EXTENDED_METERS: VARIABLE,
    LP_EXTENDED_METERS_ALT: VARIABLE,
    LP_SINGLE_BROADCAST: 11,
    LP_PROGRESSIVE_WIN: 2,
    LP_SAS_PROGRESSIVE_WIN: 2,
    LP_MULTI_BROADCAST: VARIABLE,
    LP_MULTI_PROGRESSIVE_WINS: 2,
    LP_LEGACY_BONUS: 9,
    LP_LEGACY_BONUS_WIN: 2,
    LP_HANDPAY_RESET: 4,
    LP_LEGACY_BONUS_METERS: 6,
}
# Total length of each machine answer that carries data (commands absent here are answered by an ack).
RESPONSE_LENGTH = {
    LP_HANDPAY_INFO: 24,
    LP_SELECTED_METERS: VARIABLE,
    LP_EXTENDED_METERS: VARIABLE,
    LP_EXTENDED_METERS_ALT: VARIABLE,
    LP_PROGRESSIVE_WIN: 11,
    LP_SAS_PROGRESSIVE_WIN: 11,
    LP_MULTI_PROGRESSIVE_WINS: VARIABLE,
    LP_LEGACY_BONUS_WIN: 14,
    LP_HANDPAY_RESET: 5,
    LP_LEGACY_BONUS_METERS: 18,
}


def frame_length(head: bytes, table: dict[int, int]) -> int | None:
    """How long the frame starting with `head` (address, command[, length]) is; None: not known yet."""
    if len(head) < 2:
        return None
    size = table.get(head[1], 2)  # an unknown command: assume type R, the timing gap resynchronises
    if size != VARIABLE:
        return size
    return head[2] + 5 if len(head) >= 3 else None


def rte_length(head: bytes) -> int | None:
    """Length of a real-time event frame (address, FF, code, data, CRC) once its code is read."""
    return 5 + RTE_DATA_LENGTH.get(head[2], 0) if len(head) >= 3 else None
