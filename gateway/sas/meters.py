"""SAS meter frames: LP 2F (selected meters for game N) and LP 6F / AF (extended meters), one pure
encode/decode pair per frame, host side and machine side, as in gateway/sas/frames.py.
"""

from __future__ import annotations

from gateway.sas.bcd import from_bcd, to_bcd
from gateway.sas.crc import with_crc
from gateway.sas.frames import (
    LP_EXTENDED_METERS,
    LP_EXTENDED_METERS_ALT,
    LP_SELECTED_METERS,
    FrameError,
    bcd_decimal,
    variable_body,
)

# SAS 6.02 Table C-7 gives each meter's MINIMUM size in BCD bytes: 4 for most, 5 for 000D-0010 (the ticket
# meters in cents). A machine may use more (5 where 4 is the minimum): LP 2F's length byte tells.
METER_MIN_SIZE = {0x0D: 5, 0x0E: 5, 0x0F: 5, 0x10: 5}
DEFAULT_METER_MIN_SIZE = 4


# --- LP 2F selected meters for game N --------------------------------------------------------------


def selected_meters_request(address: int, codes: list[int], game: int = 0) -> bytes:
    if not 1 <= len(codes) <= 10:
        raise FrameError("LP 2F asks for 1 to 10 meters")
    body = to_bcd(game, 2) + bytes(codes)
    return with_crc(bytes([address, LP_SELECTED_METERS, len(body)]) + body)


def decode_selected_meters_request(frame: bytes, address: int) -> tuple[int, list[int]]:
    body = variable_body(frame, address, LP_SELECTED_METERS)
    return bcd_decimal(body[:2]), list(body[2:])


def meter_size(code: int, size: int = 0) -> int:
    """A meter's size in BCD bytes: its Table C-7 minimum, or `size` where that is larger."""
    return max(METER_MIN_SIZE.get(code, DEFAULT_METER_MIN_SIZE), size)


def selected_meters(address: int, meters: dict[int, int], game: int = 0, size: int = 0) -> bytes:
    """`size` 0: each meter at its Table C-7 minimum; 5: five bytes where the minimum is 4."""
    body = to_bcd(game, 2)
    for code, value in meters.items():
        width = meter_size(code, size)
        # A meter rolls over at its width, as on the machine's own display.
        body += bytes([code]) + to_bcd(value % 10 ** (2 * width), width)
    return with_crc(bytes([address, LP_SELECTED_METERS, len(body)]) + body)


def decode_selected_meters(
    frame: bytes, address: int, codes: list[int] | None = None
) -> tuple[int, dict[int, int]]:
    """The meters of a 2F answer, each of its minimum size or more, as the length byte allows.

    A meter's size is not in the answer. A machine uses one rule for all its meters, so each is read at
    its Table C-7 minimum, else each at no less than 5 bytes, 6, ... up to MAX_METER_SIZE; failing all,
    and with the codes asked known, each at its minimum or 5 (a mix). A reading must use the whole
    answer, every meter code one asked for (`codes`, in the order asked; a machine leaves out those it
    does not have), every value BCD.
    """
    body = variable_body(frame, address, LP_SELECTED_METERS)
    if len(body) < 2:
        raise FrameError("LP 2F: no game number")
    rules = [range(floor, floor + 1) for floor in (0, *range(5, MAX_METER_SIZE + 1))]
    mixed = [range(6)] if codes is not None else []  # at most 2**10 readings: 10 meters asked at most
    for floors in [*rules, *mixed]:
        meters = _meters_from(body[2:], codes, 0, floors)
        if meters is not None:
            return bcd_decimal(body[:2]), meters
    raise FrameError(f"LP 2F: meters do not parse at any size: {body[2:].hex()}")


def _meters_from(rest: bytes, codes: list[int] | None, start: int, floors: range) -> dict[int, int] | None:
    """Meters of `rest` read from the asked-for codes[start:] (any code when not given), each at
    meter_size(code, floor) for a floor in `floors`; None: no such reading."""
    if not rest:
        return {}
    code = rest[0]
    if codes is not None:
        if code not in codes[start:]:
            return None
        start = codes.index(code, start)
    for size in sorted({meter_size(code, floor) for floor in floors}):
        value = _bcd_or_none(rest[1 : 1 + size]) if len(rest) > size else None
        if value is None:
            continue
        tail = _meters_from(rest[1 + size :], codes, start + 1, floors)
        if tail is not None:
            return {code: value, **tail}
    return None


def _bcd_or_none(data: bytes) -> int | None:
    try:
        return from_bcd(data)
    except ValueError:
        return None


# --- LP 6F / AF extended meters for game N ---------------------------------------------------------------

EXTENDED_METER_LPS = (LP_EXTENDED_METERS, LP_EXTENDED_METERS_ALT)
MAX_EXTENDED_METERS = 12  # the request's length byte is 04-1A: game number + 12 two-byte codes
MAX_METER_SIZE = 9  # a meter value is 0-9 BCD bytes; 0 means "not supported by this machine"


def _extended_command(command: int) -> None:
    if command not in EXTENDED_METER_LPS:
        raise FrameError(f"LP {command:02X} is not an extended meters poll")


def extended_meters_request(
    address: int, codes: list[int], game: int = 0, command: int = LP_EXTENDED_METERS
) -> bytes:
    """6F and AF share one layout: game 2 BCD, then each meter code in 2 bytes, binary LSB first."""
    _extended_command(command)
    if not 1 <= len(codes) <= MAX_EXTENDED_METERS:
        raise FrameError(f"LP {command:02X} asks for 1 to {MAX_EXTENDED_METERS} meters")
    body = to_bcd(game, 2) + b"".join(code.to_bytes(2, "little") for code in codes)
    return with_crc(bytes([address, command, len(body)]) + body)


def decode_extended_meters_request(
    frame: bytes, address: int, command: int = LP_EXTENDED_METERS
) -> tuple[int, list[int]]:
    body = variable_body(frame, address, command)
    codes = body[2:]
    if len(body) < 4 or len(codes) % 2 or len(codes) > 2 * MAX_EXTENDED_METERS:
        raise FrameError(f"LP {command:02X}: meter codes are 2 bytes each, 1 to {MAX_EXTENDED_METERS}")
    game = bcd_decimal(body[:2])
    return game, [int.from_bytes(codes[i : i + 2], "little") for i in range(0, len(codes), 2)]


def extended_meters(
    address: int,
    meters: dict[int, int | None],
    game: int = 0,
    command: int = LP_EXTENDED_METERS,
) -> bytes:
    """Per meter: code 2 (LSB first), size 1, value `size` BCD; None (not supported) is sent as size 0.

    The size is the Table C-7 minimum the selected-meters answer uses, so a meter reads the same by 2F
    and by 6F/AF.
    """
    _extended_command(command)
    body = to_bcd(game, 2)
    for code, value in meters.items():
        body += code.to_bytes(2, "little")
        if value is None:
            body += bytes([0])
            continue
        width = meter_size(code)
        body += bytes([width]) + to_bcd(value % 10 ** (2 * width), width)
    return with_crc(bytes([address, command, len(body)]) + body)


def decode_extended_meters(
    frame: bytes, address: int, command: int = LP_EXTENDED_METERS
) -> tuple[int, dict[int, int]]:
    """Meters the machine reported, of any size 1-9; the ones it does not support (size 0) left out."""
    body = variable_body(frame, address, command)
    if len(body) < 2:
        raise FrameError(f"LP {command:02X}: no game number")
    game, rest, meters = bcd_decimal(body[:2]), body[2:], {}
    while rest:
        if len(rest) < 3:
            raise FrameError(f"LP {command:02X}: truncated meter header")
        code, size = int.from_bytes(rest[:2], "little"), rest[2]
        if size > MAX_METER_SIZE or len(rest) < 3 + size:
            raise FrameError(f"LP {command:02X}: meter {code:04X} of {size} bytes does not fit")
        if size:
            meters[code] = bcd_decimal(rest[3 : 3 + size])
        rest = rest[3 + size :]
    return game, meters
