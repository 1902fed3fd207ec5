"""What a table progressive's rules add to the signs and the public rules page (through
``jackpots.hooks.providers.progressive_rules_extra``): the jackpot bets its active tables take, its pay
table, and how simultaneous wins share a prize, as the tables really do it (``services.rounds``,
``split_by_weight``). The signs put the levels' amounts between the bets and the pay table."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.utils.translation import gettext as _

from common.money import cents_money, percent_text
from jackpots.hooks import RulesExtra
from jackpots.models import Progressive
from tables.models import PayLine, PayTable
from tables.rules import HAND_ORDER, Game, Hand


@dataclass(frozen=True)
class PayLineFacts:
    hand: str
    percent: Decimal | None
    fixed_cents: int | None


@dataclass(frozen=True)
class TableFacts:
    """A table progressive's game, pay table and the jackpot bets its active tables take (per currency:
    the fixed chip, or the lowest and highest bet)."""

    game: str
    window_seconds: int
    lines: list[PayLineFacts]
    bets: list[tuple[str, int | None, int, int]]


def table_facts(progressive: Progressive) -> TableFacts | None:
    pay_table = PayTable.objects.filter(progressive=progressive).first()
    if pay_table is None:
        return None
    order = {hand: index for index, hand in enumerate(HAND_ORDER)}
    lines = sorted(pay_table.lines.all(), key=lambda line: order.get(line.hand, len(order)))
    bets = sorted(
        {
            (
                table.venue.currency,
                table.jackpot_bet_cents if table.game == Game.CARIBBEAN_STUD else None,
                table.min_jackpot_bet_cents,
                table.max_jackpot_bet_cents,
            )
            for table in progressive.tables.filter(active=True).select_related("venue")
        },
        key=lambda bet: (bet[0] != progressive.currency, bet[0], bet[1] or 0, bet[2], bet[3]),
    )
    return TableFacts(
        game=pay_table.game,
        window_seconds=pay_table.share_window_seconds,
        lines=[
            PayLineFacts(
                line.hand,
                line.percent if line.kind == PayLine.Kind.PERCENT else None,
                line.fixed_cents if line.kind == PayLine.Kind.FIXED else None,
            )
            for line in lines
        ],
        bets=bets,
    )


def bet_lines(table: TableFacts) -> list[tuple[str, str]]:
    """The jackpot bets, in the active language."""
    lines: list[tuple[str, str]] = []
    for currency, chip, low, high in table.bets:
        if chip is not None:
            text = _("Jackpot bet %(amount)s") % {"amount": cents_money(chip, currency)}
        else:
            text = _("Jackpot bet from %(low)s to %(high)s") % {
                "low": cents_money(low, currency),
                "high": cents_money(high, currency),
            }
        lines.append(("jackpot_bet", text))
    return lines


def pay_lines(table: TableFacts, currency: str) -> list[tuple[str, str]]:
    """The pay table and how wins share a prize, in the active language; fixed prizes in ``currency``."""
    lines: list[tuple[str, str]] = []
    for line in table.lines:
        hand = str(Hand(line.hand).label) if line.hand in Hand.values else line.hand
        if line.percent is not None:
            text = _("%(hand)s: %(percent)s%% of the jackpot") % {
                "hand": hand,
                "percent": percent_text(line.percent),
            }
        else:
            text = f"{hand}: {cents_money(line.fixed_cents or 0, currency)}"
        lines.append(("pay_line", text))
    seconds = table.window_seconds
    if table.game == Game.CASINO_HOLDEM:
        lines.append(
            (
                "shared",
                _(
                    "The jackpot is shared by every seat with a jackpot bet in the winning round, "
                    "in proportion to the bet"
                ),
            )
        )
        lines.append(
            (
                "simultaneous",
                _("Wins within %(seconds)s s of the first share one prize") % {"seconds": seconds},
            )
        )
    else:
        lines.append(
            (
                "simultaneous",
                _("Simultaneous wins of one hand within %(seconds)s s, at any table, share the prize equally")
                % {"seconds": seconds},
            )
        )
        lines.append(("changed_card", _("A player who changed a card does not win the jackpot")))
    if any(line.fixed_cents is not None for line in table.lines):
        lines.append(("fixed_prizes", _("Fixed prizes are paid in full to each winner")))
    return lines


def progressive_rules_extra(progressive: Progressive) -> RulesExtra | None:
    """A table progressive's rules beyond its levels', read once for every language; None for another."""
    facts = table_facts(progressive)
    if facts is None:
        return None
    return RulesExtra(head=lambda: bet_lines(facts), tail=lambda: pay_lines(facts, progressive.currency))
