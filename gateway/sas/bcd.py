"""Packed BCD as SAS sends it: two decimal digits per byte, most significant byte first."""

from __future__ import annotations


class BcdError(ValueError):
    """A nibble above 9, or a value that does not fit the field."""


def to_bcd(value: int, width: int) -> bytes:
    if value < 0 or value >= 10 ** (2 * width):
        raise BcdError(f"{value} does not fit {width} BCD bytes")
    digits = f"{value:0{2 * width}d}"
    return bytes(int(digits[i : i + 2], 16) for i in range(0, len(digits), 2))


def from_bcd(data: bytes) -> int:
    text = data.hex()
    if not text.isdigit():
        raise BcdError(f"not BCD: {text}")
    return int(text) if text else 0
