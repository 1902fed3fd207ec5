"""Euro strings for signs and APIs, from integer millicents or cents. No float anywhere."""

from __future__ import annotations


def mc_to_eur(millicents: int) -> str:
    """Euros with two decimals, rounded DOWN: a sign never shows money the pool does not hold."""
    return cents_to_eur(millicents // 1000)


def cents_to_eur(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    whole, rest = divmod(abs(cents), 100)
    return f"{sign}{whole}.{rest:02d}"
