"""One link, two sites (Venezia in euros, Lugano in francs), both playing Casino Hold'em with the Jumbo 7
bet: the link is cut while both post rounds, a straight flush of seven cards is played at Lugano during the
cut, the Venezia forwarder is SIGKILLed again and again while it sends its backlog, then everything is
delivered. Every contribution counts once, the link's pool is exact against an independent sum over both
sites' rounds, and the straight flush is decided once, in the order of play, and paid at Lugano in francs."""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import httpx
import pytest

from gateway.tests.helpers import wait_for
from tests.slots.fault_stack import manage
from tests.wide_area_e2e.conftest import Site, WideArea

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

NO_HAND = "2C 5S 7D TH 3S"  # with the hole cards below: a pair at most, no Jumbo 7 prize
HOLES = ["KC KD", "QC QD", "JC JD", "9S 8D"]
FLUSH_7 = ("AH 2H 4H 6H 7H", "3H 5H")  # A to 7 of hearts: a straight flush of seven cards
CENTS_PER_EUR = 100
# A site's claims whose award has not come back: its signs say the jackpot is pending (linksite).
PENDING = "SELECT count(*) FROM linksite_outboxentry WHERE kind = 'claim' AND awarded_at IS NULL"


def play(site: Site, round_id: str, bets: list[int], *, community: str = NO_HAND, holes: list[str] = HOLES,
         at: datetime | None = None) -> dict:  # fmt: skip
    table = site.setup["tables"][0]
    at = at or datetime.now(UTC) - timedelta(milliseconds=50)
    body = {
        "round": round_id,
        "at": at.isoformat(),
        "community": community.split(),
        "seats": [
            {"seat": n, "jackpot_bet": bet, "cards": holes[n - 1].split(), "changed_card": False}
            for n, bet in enumerate(bets, start=1)
        ],
    }
    response = httpx.post(
        f"{site.stack.url}/api/v1/tables/{table}/rounds",
        json=body,
        headers={"Authorization": f"Bearer {site.setup['keys'][table]}"},
        timeout=10,
    )
    assert response.status_code in (200, 201), response.text
    return response.json()


def rounds_of(site: Site, rng: random.Random, prefix: str, count: int) -> None:
    for n in range(count):
        play(site, f"{prefix}-{n}", [rng.randrange(100, 5_000) for _ in range(rng.randrange(1, 5))])


def outbox(site: Site) -> list[tuple]:
    return site.query(
        "SELECT seq, kind, round_ref, acked_at IS NOT NULL FROM linksite_outboxentry ORDER BY seq"
    )


def at_link(wide: WideArea, code: str) -> list[tuple]:
    return wide.link_query(
        "SELECT e.seq, e.kind, e.round_ref FROM linkcentral_linkentry e JOIN linkcentral_linkmember m "
        f"ON m.id = e.member_id JOIN linkcentral_linksite s ON s.id = m.site_id WHERE s.code = '{code}' "
        "ORDER BY e.seq"
    )


def delivered(wide: WideArea) -> bool:
    return all(
        [(seq, kind, ref) for seq, kind, ref, _ in outbox(site)] == at_link(wide, code)
        and all(acked for *_, acked in outbox(site))
        for code, site in wide.sites.items()
    )


def bets_per_round(site: Site) -> list[tuple[datetime, str, int, list[int]]]:
    """(time of play, round, the round's Jumbo 7 bets in the site's cents, each bet), from the site's own
    books: its recorded rounds and seats, not its outbox."""
    rows = site.query(
        "SELECT r.at, r.round_id, s.jackpot_bet_cents FROM jackpots_tableround r JOIN jackpots_tableseat s "
        "ON s.round_id = r.id WHERE s.jackpot_bet_cents > 0 ORDER BY r.at, r.round_id, s.seat"
    )
    rounds: dict[tuple[datetime, str], list[int]] = {}
    for at, round_id, bet in rows:
        rounds.setdefault((at, round_id), []).append(bet)
    return [(at, round_id, sum(bets), bets) for (at, round_id), bets in rounds.items()]


def pool_cents(site_cents: int, rate: str | None) -> int:
    """Down to the cent, on the rate's exact fraction (written here from the contract, not imported)."""
    if rate is None:
        return site_cents
    num, den = Decimal(rate).as_integer_ratio()
    return site_cents * den // num


def test_a_cut_link_and_a_killed_forwarder_lose_nothing_and_count_nothing_twice(wide: WideArea) -> None:
    rng = random.Random(26)
    venezia, lugano = wide.sites["VEN"], wide.sites["LUG"]

    for site in (venezia, lugano):  # the line up
        rounds_of(site, rng, f"{site.code}-up", 15)
    wait_for(lambda: delivered(wide), 30, "the rounds played with the link up to reach it")

    wide.link.server_stop()  # the line breaks: both casinos keep playing
    for site in (venezia, lugano):
        rounds_of(site, rng, f"{site.code}-cut", 25)
    flush = play(lugano, "LUG-flush", [700, 1_300, 400], community=FLUSH_7[0],
                 holes=[FLUSH_7[1], "KC KD", "4C 4D"])  # fmt: skip
    assert [seat["hand"] for seat in flush["seats"]] == ["straight_flush_7", "flush", "flush"]
    for site in (venezia, lugano):
        rounds_of(site, rng, f"{site.code}-after", 10)
    assert lugano.query("SELECT count(*) FROM linksite_siteaward") == [(0,)]
    # Lugano's signs say the jackpot is pending while its claim waits for the link.
    assert lugano.query(PENDING) == [(1,)]

    wide.link.server_start()  # the line is back; Venezia's forwarder is killed mid-send, again and again
    for _ in range(4):
        venezia.forwarder_kill()
        venezia.forwarder_start()
        time.sleep(rng.uniform(0.3, 1.2))
    wait_for(lambda: delivered(wide), 60, "every site's backlog to reach the link once")
    wait_for(
        lambda: (
            wide.link_query("SELECT count(*) FROM linkcentral_linkentry WHERE applied_at IS NULL") == [(0,)]
        ),
        60,
        "the link to apply every entry in the order of play",
    )

    # The independent sum: both sites' rounds as their own books recorded them, in the order of play.
    entries = []
    for code, site in wide.sites.items():
        for at, round_id, total, bets in bets_per_round(site):
            entries.append((at, code, round_id, pool_cents(total, site.rate), bets))
    entries.sort()
    flush_round = next(e for e in entries if e[2] == "LUG-flush")
    before = sum(e[3] for e in entries if e[:3] <= flush_round[:3])
    after = sum(e[3] for e in entries if e[:3] > flush_round[:3])
    # Reset 0, 12% to the meter and 3% to the reserve (120 and 30 mc a cent, exactly).
    prize_cents = 120 * before // 1000
    rest_mc = 120 * before - 1000 * prize_cents
    level = wide.link_setup["level"]
    assert wide.link_query(
        f"SELECT current_mc, reserve_mc, cycle FROM jackpots_level WHERE id = {level}"
    ) == [(rest_mc + 30 * before + 120 * after, 30 * after, 2)]
    awards = wide.link_query("SELECT id, amount_mc FROM linkcentral_linkaward")
    assert [amount for _, amount in awards] == [prize_cents * 1000]
    # Every bet of the winning round shares the prize by its bet in euros; each part paid in francs.
    weights = [pool_cents(bet, lugano.rate) for bet in flush_round[4]]
    whole = sum(weights)
    exact = [prize_cents * w // whole for w in weights]
    left = prize_cents - sum(exact)
    for i in sorted(range(len(weights)), key=lambda i: (-(prize_cents * weights[i] % whole), i))[:left]:
        exact[i] += 1
    num, den = Decimal(lugano.rate).as_integer_ratio()
    parts = wide.link_query(
        "SELECT p.seat, p.amount_mc, p.site_cents FROM linkcentral_linkawardpart p ORDER BY p.number"
    )
    assert parts == [(n, cents * 1000, cents * num // den) for n, cents in enumerate(exact, start=1)]
    wait_for(lambda: lugano.query("SELECT count(*) FROM linksite_siteaward") == [(1,)], 20, "Lugano's award")
    assert venezia.query("SELECT count(*) FROM linksite_siteaward") == [(0,)]
    # Lugano's desk pays its own players, each their part once, in francs; Venezia's pays nothing.
    assert lugano.query(
        "SELECT s.seat, p.amount_cents, p.currency, p.state FROM jackpots_prizepart p "
        "JOIN jackpots_tableseat s ON s.id = p.seat_id ORDER BY s.seat"
    ) == [(n, cents * num // den, "CHF", "open") for n, cents in enumerate(exact, start=1)]
    assert venezia.query("SELECT count(*) FROM jackpots_prizepart") == [(0,)]
    assert lugano.query(PENDING) == [(0,)]  # decided: the signs no longer say pending

    # The books close on both sides: each site's own running total of its bets is what the link holds
    # of the same entries, and the link's reconciliation balances.
    for code, site in wide.sites.items():
        ((last, total),) = site.query("SELECT next_seq - 1, wagered_total_cents FROM linksite_linkmembership")
        assert total == sum(bets[2] for bets in bets_per_round(site))
        assert wide.link_query(
            "SELECT m.books_seq, m.books_wagered_cents, (SELECT sum(e.wagered_cents)"
            " FROM linkcentral_linkentry e WHERE e.member_id = m.id AND e.seq <= m.books_seq)"
            " FROM linkcentral_linkmember m"
            f" JOIN linkcentral_linksite s ON s.id = m.site_id WHERE s.code = '{code}'"
        ) == [(last, total, total)]
    books = manage(wide.link_env, "manage.py", "link_reconcile", "--pool", "JUMBO7")
    assert books.rstrip().endswith("OK"), books
