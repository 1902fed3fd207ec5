"""Money in templates: integer cents and millicents shown as euros, rounded down, never through float."""

from __future__ import annotations

from django import template

register = template.Library()


def cents_to_eur(cents: int | None) -> str:
    """'1,234.56' from 123456; negatives keep their sign; None shows as an empty string."""
    if cents is None:
        return ""
    sign = "-" if cents < 0 else ""
    euros, rest = divmod(abs(int(cents)), 100)
    return f"{sign}{euros:,}.{rest:02d}"


@register.filter
def eur(cents: int | None) -> str:
    return cents_to_eur(cents)


def mc_to_eur(millicents: int | None) -> str:
    """Millicents as euros, rounded down to the cent (a display never shows money the pool does not hold)."""
    if millicents is None:
        return ""
    whole = abs(int(millicents)) // 1000
    return cents_to_eur(-whole if millicents < 0 else whole)


@register.filter
def eur_mc(millicents: int | None) -> str:
    return mc_to_eur(millicents)
