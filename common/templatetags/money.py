"""Money in templates: integer cents and millicents shown as euros by common.money's one rule."""

from __future__ import annotations

from django import template

from common.money import cents_eur_grouped, cents_money, mc_eur_grouped

register = template.Library()


@register.filter
def eur(cents: int | None) -> str:
    return cents_eur_grouped(cents)


@register.filter
def eur_mc(millicents: int | None) -> str:
    return mc_eur_grouped(millicents)


@register.filter
def money(cents: int | None, currency: str = "EUR") -> str:
    """``{{ hit.amount_cents|money:venue.currency }}``: the amount with its currency sign."""
    return cents_money(cents, currency)
