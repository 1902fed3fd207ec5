"""What the player is told: a progressive's rules, derived from its levels' parameters (and, for a table
progressive, its pay table and tables) every time they are read, so they are never out of date.

One reader (``rules_facts``: what the database says) and one writer of words (``rules_lines``: the
facts in a language). The signs show the lines one after another under each card, the public page
``/rules/<id>/`` lists them; both come from here. A mystery level's secret trigger is never read here:
only its limit, the amount it must hit by, is public (rule 9).

What a simultaneous win does is said as the engine and the tables really do it:
- machines: near-simultaneous hits on a level are numbered in the order played and each takes the amount
  standing when its turn comes (``jackpots.services.hit_recording``): the first the amount shown, the next
  what the level holds after its reset;
- Caribbean Stud: winners of the same percentage hand within the pay table's window, at any linked table,
  divide one prize in equal parts (``tables.services.rounds``, ``split_by_weight``);
- Jumbo 7: the prize is divided among every seat of the round with a jackpot bet, in proportion to its
  bet, and rounds won within the window join the same prize;
- fixed prizes are paid by the house to each winner in full.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from common.money import cents_money, mc_to_cents, percent_text
from jackpots.hooks import RulesExtra, first_answer, providers
from jackpots.models import Level, Progressive


@dataclass(frozen=True)
class RuleLine:
    """One rule in one language. ``key`` says what it is about (stable, for tests and styling);
    ``level`` names the level it is about ("" for the whole progressive)."""

    key: str
    text: str
    level: str = ""

    @property
    def sign_text(self) -> str:
        """As a sign shows it, alone on its line: the level named first."""
        return f"{self.level} · {self.text}" if self.level else self.text


@dataclass(frozen=True)
class LevelFacts:
    name: str
    reset_cents: int
    reserve_rate: Decimal
    limit_cents: int | None
    min_wager_cents: int
    max_bet_only: bool
    mystery: bool


@dataclass(frozen=True)
class RulesFacts:
    name: str
    currency: str
    levels: list[LevelFacts]
    # What an app above adds (a table progressive: its pay table, bets and sharing; ``providers``).
    extra: RulesExtra | None = None


def _level_facts(level: Level) -> LevelFacts:
    return LevelFacts(
        name=level.name,
        reset_cents=mc_to_cents(level.reset_mc),
        reserve_rate=level.reserve_rate,
        limit_cents=None if level.limit_mc is None else mc_to_cents(level.limit_mc),
        min_wager_cents=level.min_wager_cents,
        max_bet_only=level.max_bet_only,
        mystery=level.mystery and level.limit_mc is not None,
    )


def rules_facts(progressive: Progressive) -> RulesFacts:
    """What the rules are made of, read once for every language. Never the mystery trigger."""
    return RulesFacts(
        name=progressive.name,
        currency=progressive.currency,
        levels=[_level_facts(level) for level in progressive.levels.all()],
        extra=first_answer(providers.progressive_rules_extra, progressive),
    )


def _money(cents: int, currency: str) -> str:
    return cents_money(cents, currency)


def _machine_level_lines(facts: RulesFacts) -> list[RuleLine]:
    """Bets first (said once when every level asks the same), then each level's reset and ceiling."""
    levels, named = facts.levels, len(facts.levels) > 1
    lines: list[RuleLine] = []
    minimums = {level.min_wager_cents for level in levels}
    all_max = bool(levels) and all(level.max_bet_only for level in levels)
    if len(minimums) == 1:
        lines += _min_bet_line(minimums.pop(), facts.currency, "", max_bet_only=all_max)
    else:
        for level in levels:
            lines += _min_bet_line(level.min_wager_cents, facts.currency, level.name, level.max_bet_only)
    if all_max:
        lines.append(RuleLine("max_bet_only", _("Max bet only")))
    else:
        lines += [
            RuleLine("max_bet_only", _("Max bet only"), level.name if named else "")
            for level in levels
            if level.max_bet_only
        ]
    for level in levels:
        lines += _amount_lines(level, facts.currency, level.name if named else "")
    return lines


def _min_bet_line(cents: int, currency: str, level: str, max_bet_only: bool = False) -> list[RuleLine]:
    """The smallest bet that plays for the jackpot; none said when only the max bet does."""
    if cents <= 0:
        return [] if max_bet_only else [RuleLine("min_bet", _("Every bet qualifies"), level)]
    text = _("Minimum qualifying bet %(amount)s") % {"amount": _money(cents, currency)}
    return [RuleLine("min_bet", text, level)]


def _amount_lines(level: LevelFacts, currency: str, name: str) -> list[RuleLine]:
    """Where the level restarts and how high it goes: a mystery level's limit is the amount it must hit
    by (public), never the trigger drawn below it (secret)."""
    if level.reset_cents > 0 or level.reserve_rate == 0:
        reset = _("Reset value %(amount)s") % {"amount": _money(level.reset_cents, currency)}
    else:
        reset = _("Restarts from the %(percent)s%% of every bet put aside") % {
            "percent": percent_text(level.reserve_rate * 100)
        }
    lines = [RuleLine("reset", reset, name)]
    if level.limit_cents is not None:
        amount = _money(level.limit_cents, currency)
        if level.mystery:
            lines.append(RuleLine("must_hit_by", _("Must hit by %(amount)s") % {"amount": amount}, name))
        else:
            lines.append(RuleLine("ceiling", _("Grows up to %(amount)s") % {"amount": amount}, name))
    return lines


def _extra_lines(facts: RulesFacts, extra: RulesExtra) -> list[RuleLine]:
    """An app's head lines (a table's jackpot bets), the levels' amounts, then its tail (the pay table)."""
    named = len(facts.levels) > 1
    lines = [RuleLine(key, text) for key, text in extra.head()]
    for level in facts.levels:
        lines += _amount_lines(level, facts.currency, level.name if named else "")
    return lines + [RuleLine(key, text) for key, text in extra.tail()]


def rules_lines(facts: RulesFacts, language: str) -> list[RuleLine]:
    """The rules in ``language`` ("it", "en"), money in that language's format, in the progressive's
    currency."""
    with translation.override(language):
        if facts.extra is not None:
            lines = _extra_lines(facts, facts.extra)
        else:
            lines = _machine_level_lines(facts)
            lines.append(
                RuleLine(
                    "simultaneous",
                    _("Simultaneous wins are paid in the order played, each the amount standing at its turn"),
                )
            )
        lines.append(RuleLine("currency", _("Amounts in %(currency)s") % {"currency": facts.currency}))
    return lines


def progressive_rules(progressive: Progressive, language: str) -> list[RuleLine]:
    """The progressive's rules in ``language``, from its parameters as they stand now."""
    return rules_lines(rules_facts(progressive), language)


def progressive_rules_signs(progressive: Progressive) -> dict[str, list[str]]:
    """What a sign carries: the lines in every language (signs of one content share a snapshot, whatever
    their language; each shows its own)."""
    facts = rules_facts(progressive)
    return {code: [line.sign_text for line in rules_lines(facts, code)] for code, _name in settings.LANGUAGES}
