"""Money as people and clients read it: the one place that turns integer cents and millicents into euros.

Amounts are integers everywhere (wagers, wins and payouts in cents; pool amounts in millicents, 1/1000 of
a cent); no float ever touches them. Displays and APIs show euros with two decimals, **rounded down**
(toward minus infinity) to the cent: a sign never shows money the pool does not hold, and a negative
amount (a compensating ledger row) is never shown as smaller than it is. So 1,999 mc shows as 0.01,
-1,500 mc as -0.02 and -1,000 mc as -0.01: every display equals ``floor(mc / 1000)`` cents exactly.
"""

from __future__ import annotations

MC_PER_CENT = 1000
CENTS_PER_EURO = 100


def mc_to_cents(millicents: int) -> int:
    """Whole cents of ``millicents``, rounded down (Python's ``//`` floors, for negatives too)."""
    return int(millicents) // MC_PER_CENT


def cents_eur(cents: int) -> str:
    """ "1523.41" from 152341: the API's decimal string, no grouping; negatives keep their sign."""
    sign = "-" if cents < 0 else ""
    euros, rest = divmod(abs(int(cents)), CENTS_PER_EURO)
    return f"{sign}{euros}.{rest:02d}"


def cents_eur_grouped(cents: int | None) -> str:
    """ "1,523.41" from 152341, for people (pages, admin, CSV); None shows as an empty string."""
    if cents is None:
        return ""
    sign = "-" if cents < 0 else ""
    euros, rest = divmod(abs(int(cents)), CENTS_PER_EURO)
    return f"{sign}{euros:,}.{rest:02d}"


def mc_eur(millicents: int) -> str:
    """Millicents as the API's euro string, rounded down to the cent."""
    return cents_eur(mc_to_cents(millicents))


def mc_eur_grouped(millicents: int | None) -> str:
    """Millicents as euros for people, rounded down to the cent; None shows as an empty string."""
    return "" if millicents is None else cents_eur_grouped(mc_to_cents(millicents))
