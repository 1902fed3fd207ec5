"""Money as people and clients read it: the one place that turns integer cents and millicents into euros.

Amounts are integers everywhere (wagers, wins and payouts in cents; pool amounts in millicents, 1/1000 of
a cent); no float ever touches them. Displays and APIs show euros with two decimals, **rounded down**
(toward minus infinity) to the cent: a sign never shows money the pool does not hold, and a negative
amount (a compensating ledger row) is never shown as smaller than it is. So 1,999 mc shows as 0.01,
-1,500 mc as -0.02 and -1,000 mc as -0.01: every display equals ``floor(mc / 1000)`` cents exactly.
"""

from __future__ import annotations

from decimal import Decimal

from django.utils import formats

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


def cents_eur_grouped(cents: int | None, *, group: bool = True) -> str:
    """152341 for people (pages, admin, CSV, slips), in the active language's format: "1.523,41" in
    Italian, "1,523.41" in English; ``group=False`` leaves the thousands out ("1523,41", for CSV cells a
    spreadsheet reads as numbers). None shows as an empty string. The Decimal is built from the integer
    exactly (no float), and Django's formats give the separators."""
    if cents is None:
        return ""
    amount = Decimal(int(cents)).scaleb(-2)
    return formats.number_format(amount, decimal_pos=2, use_l10n=True, force_grouping=group)


CURRENCY_SIGNS = {"EUR": "€", "CHF": "CHF", "USD": "$", "GBP": "£"}


def cents_money(cents: int | None, currency: str = "EUR") -> str:
    """ "€ 1.523,41" (Italian) or "€ 1,523.41" (English): the amount with its currency for people, the
    sign before the number and a no-break space between, so a line never breaks inside an amount."""
    if cents is None:
        return ""
    return f"{CURRENCY_SIGNS.get(currency, currency)}\u00a0{cents_eur_grouped(cents)}"


def mc_eur(millicents: int) -> str:
    """Millicents as the API's euro string, rounded down to the cent."""
    return cents_eur(mc_to_cents(millicents))


def mc_eur_grouped(millicents: int | None, *, group: bool = True) -> str:
    """Millicents as euros for people, rounded down to the cent; None shows as an empty string."""
    return "" if millicents is None else cents_eur_grouped(mc_to_cents(millicents), group=group)


def percent_text(percent: Decimal) -> str:
    """12.5000 → "12,5" in Italian, "12.5" in English; 100.0000 → "100"."""
    exact = percent.normalize()
    exponent = exact.as_tuple().exponent
    places = max(0, -exponent) if isinstance(exponent, int) else 0
    return formats.number_format(exact, decimal_pos=places, use_l10n=True)
