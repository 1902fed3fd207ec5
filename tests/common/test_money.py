"""One rounding rule for every display of money: down to the cent (common.money)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common.money import cents_eur, cents_eur_grouped, mc_eur, mc_eur_grouped, mc_to_cents
from common.templatetags.money import eur, eur_mc


@pytest.mark.parametrize(
    ("millicents", "plain", "grouped"),
    [
        (0, "0.00", "0.00"),
        (999, "0.00", "0.00"),
        (1_999, "0.01", "0.01"),
        (152_341_999, "1523.41", "1,523.41"),
        (-1_000, "-0.01", "-0.01"),
        # Down, not toward zero: -1,500 mc is less than -1 cent, so it shows as -0.02 (the copies of this
        # function used to disagree here: one said -0.01, another -0.02).
        (-1_500, "-0.02", "-0.02"),
        (-152_341_001, "-1523.42", "-1,523.42"),
    ],
)
def test_millicents_show_rounded_down(millicents, plain, grouped):
    assert mc_eur(millicents) == plain
    assert mc_eur_grouped(millicents) == grouped
    assert eur_mc(millicents) == grouped


def test_cents_show_exactly():
    assert cents_eur(152341) == "1523.41"
    assert cents_eur(-5) == "-0.05"
    assert cents_eur_grouped(123456789) == "1,234,567.89"
    assert eur(-150) == "-1.50"
    assert eur(None) == eur_mc(None) == ""


@given(st.integers(min_value=-(10**15), max_value=10**15))
def test_a_display_never_shows_more_than_the_amount(millicents):
    shown = mc_eur(millicents)
    sign = -1 if shown.startswith("-") else 1
    euros, cents = shown.lstrip("-").split(".")
    shown_cents = sign * (int(euros) * 100 + int(cents))
    assert shown_cents == mc_to_cents(millicents)
    assert shown_cents * 1000 <= millicents < (shown_cents + 1) * 1000


def test_grouped_amounts_follow_the_active_language():
    from django.utils import translation

    from common.money import cents_money

    with translation.override("it"):
        assert cents_eur_grouped(500004) == "5.000,04"
        assert cents_eur_grouped(-1) == "-0,01"
        assert cents_money(500004) == "€\u00a05.000,04"
        assert cents_money(500004, "CHF") == "CHF\u00a05.000,04"
    with translation.override("en"):
        assert cents_eur_grouped(500004) == "5,000.04"
        assert cents_money(115174800) == "€\u00a01,151,748.00"
