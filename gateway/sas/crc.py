"""CRC-16 used by SAS long polls: CCITT polynomial x^16+x^12+x^5+1, reflected, seed 0 (a.k.a. Kermit).

The CRC goes on the wire low byte first, after every byte of the frame it covers.
"""

from __future__ import annotations


def _table() -> tuple[int, ...]:
    rows = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            # 0x8408 is 0x1021 bit-reversed: SAS processes each byte least significant bit first.
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
        rows.append(crc)
    return tuple(rows)


_TABLE = _table()


def crc16(data: bytes, seed: int = 0) -> int:
    crc = seed
    for byte in data:
        crc = (crc >> 8) ^ _TABLE[(crc ^ byte) & 0xFF]
    return crc


def with_crc(data: bytes) -> bytes:
    """The frame followed by its CRC, low byte first."""
    return data + crc16(data).to_bytes(2, "little")


def crc_ok(frame: bytes) -> bool:
    """True when the last two bytes are the CRC of the rest."""
    return len(frame) >= 3 and crc16(frame[:-2]) == int.from_bytes(frame[-2:], "little")
