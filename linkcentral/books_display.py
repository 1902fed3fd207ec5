"""The reconciliation (``selectors.pool_books``) as people read it, in the active language: the same
table for the admin page and ``manage.py link_reconcile``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import formats
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from common.money import cents_money, mc_to_cents
from linkcentral.selectors import PoolBooks, SiteBooks

SITE_COLUMNS: list[Promise] = [
    _("Site"),
    _("Entries"),
    _("Contributions"),
    _("Bets (site's currency)"),
    _("Bets (pool's currency)"),
    _("Applied (pool's currency)"),
    _("Claims"),
    _("Award parts"),
    _("Parts (pool's currency)"),
    _("Parts (site's currency)"),
    _("Last entry"),
    _("Played through"),
    _("Last heard"),
    _("Site's books: through entry"),
    _("Site's books: bets"),
    _("Link's books: bets through that entry"),
    _("Books: difference"),
]


@dataclass(frozen=True, slots=True)
class BooksTable:
    title: str
    rows: list[list[str]]  # one per site, as SITE_COLUMNS
    checks: list[tuple[str, str]]  # (what, value) of the pool's total check
    balanced: bool

    @property
    def measures(self) -> list[tuple[str, list[str]]]:
        """The same, a line per measure and a column per site: the page stays as wide as its sites (a
        line per site would be 17 columns wide)."""
        return [(str(column), [row[i] for row in self.rows]) for i, column in enumerate(SITE_COLUMNS)][1:]

    @property
    def site_names(self) -> list[str]:
        return [row[0] for row in self.rows]


def _number(value: int) -> str:
    return str(formats.number_format(value, use_l10n=True, force_grouping=True))


def _when(value: datetime | None) -> str:
    return "-" if value is None else str(formats.date_format(value, "SHORT_DATETIME_FORMAT", use_l10n=True))


def _mc(value: int, currency: str) -> str:
    """Millicents for people, down to the cent (the product's rounding)."""
    return cents_money(mc_to_cents(value), currency)


def _exact_mc(value: int) -> str:
    """A difference to the millicent: rounded to the cent, half a cent off would read as nothing."""
    return f"{_number(value)} mc"


def _site_row(site: SiteBooks, pool_currency: str) -> list[str]:
    return [
        f"{site.site_code} ({site.site_name})",
        _number(site.entries),
        _number(site.contributions),
        cents_money(site.wagered_cents, site.currency),
        cents_money(site.wagered_pool_cents, pool_currency),
        cents_money(site.applied_pool_cents, pool_currency),
        _number(site.claims),
        _number(site.parts),
        _mc(site.parts_mc, pool_currency),
        cents_money(site.parts_site_cents, site.currency),
        _number(site.last_seq),
        _when(site.through),
        _when(site.heard_at),
        _number(site.books_seq),
        cents_money(site.books_wagered_cents, site.currency),
        cents_money(site.link_wagered_through_cents, site.currency),
        cents_money(site.books_difference_cents, site.currency),
    ]


def books_table(books: PoolBooks) -> BooksTable:
    cur = books.currency
    checks = [
        (str(_("Level amount")), _mc(books.level_mc, cur)),
        (str(_("Contributions' shares (ledger)")), _mc(books.shares_mc, cur)),
        (str(_("Seeds, awards and corrections (ledger)")), _mc(books.other_mc, cur)),
        (str(_("Level against its ledger: difference")), _exact_mc(books.level_difference_mc)),
        (str(_("Bets applied (link entries)")), cents_money(books.applied_pool_cents, cur)),
        (str(_("Bets contributed (ledger)")), cents_money(books.ledger_wagered_cents, cur)),
        (str(_("Bets: difference")), cents_money(books.wagered_difference_cents, cur)),
        (str(_("Link awards")), f"{_number(books.awards)} · {_mc(books.awards_mc, cur)}"),
        (str(_("Awards out (ledger)")), _mc(books.ledger_awarded_mc, cur)),
        (str(_("Awards: difference")), _exact_mc(books.awards_difference_mc)),
    ]
    return BooksTable(
        title=f"{books.code} ({cur})",
        rows=[_site_row(site, cur) for site in books.sites],
        checks=checks,
        balanced=books.balanced,
    )
