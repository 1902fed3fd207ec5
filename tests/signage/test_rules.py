"""What the player is told (signage.rules): the lines derived from the levels' parameters, in
Italian and English, for a standalone, a max-bet-only, a mystery and the two table progressives; the
public page /rules/<id>/ (no login, 404 for an unknown one, never the mystery trigger); the workspace's
link to it; an applied change telling the signs."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from jackpots import hooks
from jackpots.models import Level, LevelChange, Progressive
from jackpots.services.parameters import staged_changes_apply
from signage.rules import progressive_rules, progressive_rules_signs
from tables.models import PayTable, PayTableChange
from tables.seed import CARIBBEAN_STUD, JUMBO_7, tables_seed
from tables.services.paytables import pay_table_staged_apply
from tests.factories import LevelFactory, ProgressiveFactory
from tests.staff_fixtures import staff_member

pytestmark = pytest.mark.django_db

# A mystery trigger no line may show, in any format: 734.567,89 / 734,567.89 / the millicents.
TRIGGER_MC = 73_456_789_123
TRIGGER_SHOWN = ("734.567,89", "734,567.89", "734567,89", "734567.89", "73456789123")


def texts(progressive: Progressive, language: str) -> list[str]:
    return [line.sign_text for line in progressive_rules(progressive, language)]


@pytest.fixture
def standalone() -> Progressive:
    progressive = ProgressiveFactory(name="Lucky Lagoon", kind=Progressive.Kind.STANDALONE)
    LevelFactory(
        progressive=progressive,
        name="Lucky Lagoon",
        reset_mc=100_000_000,  # € 1.000,00
        limit_mc=500_000_000,  # € 5.000,00
        min_wager_cents=100,
    )
    return progressive


@pytest.fixture
def max_bet() -> Progressive:
    """Diamond Vault's shape: the Grand only on a max bet, the Minor from €0.50."""
    progressive = ProgressiveFactory(name="Diamond Vault")
    LevelFactory(progressive=progressive, name="Grand", position=1, max_bet_only=True, min_wager_cents=25)
    LevelFactory(progressive=progressive, name="Minor", position=2, reset_mc=5_000_000, min_wager_cents=50)
    return progressive


@pytest.fixture
def mystery() -> Progressive:
    progressive = ProgressiveFactory(name="Venezia Mystery")
    LevelFactory(
        progressive=progressive,
        name="Must Hit By €1,000",
        reset_mc=50_000_000,
        limit_mc=100_000_000,
        mystery=True,
        trigger_mc=TRIGGER_MC,
    )
    return progressive


def test_a_standalone_progressive_in_italian_and_english(standalone: Progressive) -> None:
    assert texts(standalone, "it") == [
        "Puntata minima qualificante €\u00a01,00",
        "Valore di ripartenza €\u00a01.000,00",
        "Cresce fino a €\u00a05.000,00",
        "Vincite simultanee: pagate nell'ordine di gioco, ciascuna con l'importo del suo turno",
        "Importi in EUR",
    ]
    assert texts(standalone, "en") == [
        "Minimum qualifying bet €\u00a01.00",
        "Reset value €\u00a01,000.00",
        "Grows up to €\u00a05,000.00",
        "Simultaneous wins are paid in the order played, each the amount standing at its turn",
        "Amounts in EUR",
    ]


def test_max_bet_only_and_minimums_per_level(max_bet: Progressive) -> None:
    """Levels asking different bets are named; a max bet must still reach its level's minimum."""
    assert texts(max_bet, "it") == [
        "Grand · Puntata minima qualificante €\u00a00,25",
        "Minor · Puntata minima qualificante €\u00a00,50",
        "Grand · Solo puntata massima",
        "Grand · Valore di ripartenza €\u00a01.000,00",
        "Minor · Valore di ripartenza €\u00a050,00",
        "Vincite simultanee: pagate nell'ordine di gioco, ciascuna con l'importo del suo turno",
        "Importi in EUR",
    ]
    assert texts(max_bet, "en") == [
        "Grand · Minimum qualifying bet €\u00a00.25",
        "Minor · Minimum qualifying bet €\u00a00.50",
        "Grand · Max bet only",
        "Grand · Reset value €\u00a01,000.00",
        "Minor · Reset value €\u00a050.00",
        "Simultaneous wins are paid in the order played, each the amount standing at its turn",
        "Amounts in EUR",
    ]


def test_every_level_max_bet_only_is_said_once_and_no_minimum_without_one(max_bet: Progressive) -> None:
    max_bet.levels.update(max_bet_only=True, min_wager_cents=0)
    assert texts(max_bet, "en")[:1] == ["Max bet only"]
    assert not [text for text in texts(max_bet, "en") if "bet €" in text or "qualifies" in text]


def test_a_mystery_level_must_hit_by_its_limit_and_never_shows_its_trigger(mystery: Progressive) -> None:
    assert texts(mystery, "it") == [
        "Ogni puntata partecipa",
        "Valore di ripartenza €\u00a0500,00",
        "Deve uscire entro €\u00a01.000,00",
        "Vincite simultanee: pagate nell'ordine di gioco, ciascuna con l'importo del suo turno",
        "Importi in EUR",
    ]
    assert texts(mystery, "en") == [
        "Every bet qualifies",
        "Reset value €\u00a0500.00",
        "Must hit by €\u00a01,000.00",
        "Simultaneous wins are paid in the order played, each the amount standing at its turn",
        "Amounts in EUR",
    ]
    signs = str(progressive_rules_signs(mystery))
    assert [shown for shown in TRIGGER_SHOWN if shown in signs] == []


CARIBBEAN_IT = [
    "Puntata jackpot €\u00a01,00",
    "Valore di ripartenza €\u00a010.000,00",
    "Scala reale massima: 100% del jackpot",
    "Scala colore: 10% del jackpot",
    "Poker: €\u00a0500,00",
    "Full: €\u00a0100,00",
    "Colore: €\u00a050,00",
    "Vincite simultanee della stessa mano entro 60 s, a qualsiasi tavolo: premio diviso in parti uguali",
    "Chi ha cambiato una carta non vince il jackpot",
    "I premi fissi sono pagati per intero a ciascun vincitore",
    "Importi in EUR",
]
CARIBBEAN_EN = [
    "Jackpot bet €\u00a01.00",
    "Reset value €\u00a010,000.00",
    "Royal Flush: 100% of the jackpot",
    "Straight Flush: 10% of the jackpot",
    "Four of a Kind: €\u00a0500.00",
    "Full House: €\u00a0100.00",
    "Flush: €\u00a050.00",
    "Simultaneous wins of one hand within 60 s, at any table, share the prize equally",
    "A player who changed a card does not win the jackpot",
    "Fixed prizes are paid in full to each winner",
    "Amounts in EUR",
]
JUMBO_IT = [
    "Puntata jackpot da €\u00a01,00 a €\u00a01.000,00",
    "Riparte dal 3% di ogni puntata, accantonato",
    "Scala colore di 7 carte: 100% del jackpot",
    "Scala colore di 6 carte: €\u00a05.000,00",
    "Scala colore di 5 carte: €\u00a0250,00",
    "Poker: €\u00a050,00",
    "Full: €\u00a05,00",
    "Colore: €\u00a04,00",
    "Scala: €\u00a02,00",
    "Il jackpot è diviso tra tutti i posti con puntata jackpot nel turno vincente, "
    "in proporzione alla puntata",
    "Le vincite entro 60 s dalla prima dividono un solo premio",
    "I premi fissi sono pagati per intero a ciascun vincitore",
    "Importi in EUR",
]
JUMBO_EN = [
    "Jackpot bet from €\u00a01.00 to €\u00a01,000.00",
    "Restarts from the 3% of every bet put aside",
    "7-card Straight Flush: 100% of the jackpot",
    "6-card Straight Flush: €\u00a05,000.00",
    "5-card Straight Flush: €\u00a0250.00",
    "Four of a Kind: €\u00a050.00",
    "Full House: €\u00a05.00",
    "Flush: €\u00a04.00",
    "Straight: €\u00a02.00",
    "The jackpot is shared by every seat with a jackpot bet in the winning round, in proportion to the bet",
    "Wins within 60 s of the first share one prize",
    "Fixed prizes are paid in full to each winner",
    "Amounts in EUR",
]


def test_table_progressives_list_their_pay_tables_and_how_they_share() -> None:
    tables_seed()
    caribbean = Progressive.objects.get(name=CARIBBEAN_STUD)
    jumbo = Progressive.objects.get(name=JUMBO_7)
    assert texts(caribbean, "it") == CARIBBEAN_IT
    assert texts(caribbean, "en") == CARIBBEAN_EN
    assert texts(jumbo, "it") == JUMBO_IT
    assert texts(jumbo, "en") == JUMBO_EN


def test_a_percentage_with_decimals_and_another_window_are_said_as_they_are() -> None:
    tables_seed()
    pay_table = PayTable.objects.get(progressive__name=CARIBBEAN_STUD)
    pay_table.lines.filter(hand="straight_flush").update(percent=Decimal("12.5"))
    PayTable.objects.filter(pk=pay_table.pk).update(share_window_seconds=90)
    caribbean = Progressive.objects.get(name=CARIBBEAN_STUD)
    assert texts(caribbean, "it")[3] == "Scala colore: 12,5% del jackpot"
    assert texts(caribbean, "en")[3] == "Straight Flush: 12.5% of the jackpot"
    assert (
        texts(caribbean, "en")[7]
        == "Simultaneous wins of one hand within 90 s, at any table, share the prize equally"
    )


def test_the_signs_carry_every_language(standalone: Progressive) -> None:
    assert progressive_rules_signs(standalone) == {
        "it": texts(standalone, "it"),
        "en": texts(standalone, "en"),
    }


# --- the public page ----------------------------------------------------------------------------------


def page_lines(html: str) -> list[str]:
    return [
        re.sub(r"<[^>]+>", "", item).replace("&#x27;", "'")
        for item in re.findall(r"<li data-rule=\"[a-z_]+\">(.*?)</li>", html)
    ]


def test_the_public_page_needs_no_login_and_speaks_italian_first(mystery: Progressive) -> None:
    response = Client().get(f"/rules/{mystery.id}/")
    assert response.status_code == 200
    assert response["Content-Language"] == "it"
    html = response.content.decode()
    assert '<html lang="it">' in html
    assert "<title>Venezia Mystery · Regolamento</title>" in html
    assert page_lines(html) == texts(mystery, "it")
    assert [shown for shown in TRIGGER_SHOWN if shown in html] == []
    # No internal id but the one in the address: no level id, no data-*-id.
    level = Level.objects.get(progressive=mystery)
    assert "-id=" not in html
    assert f"/{level.id}/" not in html and f'"{level.id}"' not in html


@pytest.mark.parametrize(
    ("query", "headers", "language"),
    [
        ("?lang=en", {}, "en"),
        ("?lang=it", {"HTTP_ACCEPT_LANGUAGE": "en"}, "it"),
        ("", {"HTTP_ACCEPT_LANGUAGE": "en"}, "en"),
        ("?lang=xx", {}, "it"),
    ],
    ids=["lang-en", "lang-wins", "browser-en", "unknown-lang"],
)
def test_the_public_page_in_the_asked_language(standalone: Progressive, query, headers, language) -> None:
    response = Client().get(f"/rules/{standalone.id}/{query}", **headers)
    assert (response.status_code, response["Content-Language"]) == (200, language)
    assert page_lines(response.content.decode()) == texts(standalone, language)


def test_the_public_page_of_a_table_progressive_lists_the_pay_table() -> None:
    tables_seed()
    jumbo = Progressive.objects.get(name=JUMBO_7)
    html = Client().get(f"/rules/{jumbo.id}/?lang=en").content.decode()
    assert "<h2>Pay table</h2>" in html
    assert page_lines(html) == [JUMBO_EN[0], JUMBO_EN[1], *JUMBO_EN[9:], *JUMBO_EN[2:9]]


def test_the_public_page_groups_lines_per_level(max_bet: Progressive) -> None:
    html = Client().get(f"/rules/{max_bet.id}/?lang=en").content.decode()
    assert page_lines(html) == [
        "Simultaneous wins are paid in the order played, each the amount standing at its turn",
        "Amounts in EUR",
        "Minimum qualifying bet €\u00a00.25",
        "Max bet only",
        "Reset value €\u00a01,000.00",
        "Minimum qualifying bet €\u00a00.50",
        "Reset value €\u00a050.00",
    ]
    assert html.index("<h2>Grand</h2>") < html.index("<h2>Minor</h2>")


@pytest.mark.parametrize("path", ["/rules/999999/", "/rules/99999999999999999999999/", "/rules/abc/"])
def test_an_unknown_progressive_is_404(path: str) -> None:
    assert Client().get(path).status_code == 404


def test_the_public_page_answers_only_get(standalone: Progressive) -> None:
    assert Client().post(f"/rules/{standalone.id}/").status_code == 405


def test_the_workspace_progressives_page_links_to_the_rules(client: Client, manager, standalone) -> None:
    client.force_login(manager)
    html = client.get("/progressives/").content.decode()
    assert f'href="/rules/{standalone.id}/"' in html


# --- an applied change tells the signs ----------------------------------------------------------------


@pytest.fixture
def rules_published(monkeypatch) -> list[int]:
    published: list[int] = []
    monkeypatch.setattr(hooks.hooks, "rules_changed", [published.append])
    return published


def test_staged_parameter_changes_applied_at_a_reset_tell_the_signs(
    standalone: Progressive, rules_published: list[int], django_capture_on_commit_callbacks
) -> None:
    level = Level.objects.get(progressive=standalone)
    with django_capture_on_commit_callbacks(execute=True):
        staged_changes_apply(level, timezone.now(), 2)  # nothing staged: nothing to tell
    assert rules_published == []
    LevelChange.objects.create(
        level=level,
        user=staff_member("marta", None),
        at=timezone.now(),
        old={"min_wager_cents": 100},
        new={"min_wager_cents": 200},
        reason="Promotion",
        state=LevelChange.State.STAGED,
    )
    with django_capture_on_commit_callbacks(execute=True):
        staged_changes_apply(level, timezone.now(), 2)
        level.save()
    assert rules_published == [standalone.id]
    assert texts(standalone, "en")[0] == "Minimum qualifying bet €\u00a02.00"


def test_a_staged_pay_table_change_applied_tells_the_signs(
    rules_published: list[int], django_capture_on_commit_callbacks
) -> None:
    tables_seed()
    pay_table = PayTable.objects.get(progressive__name=CARIBBEAN_STUD)
    level = pay_table.level
    with django_capture_on_commit_callbacks(execute=True):
        pay_table_staged_apply(pay_table, level)  # nothing due: nothing to tell
    assert rules_published == []
    PayTableChange.objects.create(
        pay_table=pay_table,
        user=staff_member("marta", None),
        at=timezone.now(),
        old=[],
        new=[{"hand": "royal_flush", "kind": "percent", "percent": "100", "fixed_cents": None}],
        reason="Only the royal",
        state=PayTableChange.State.STAGED,
        requested_cycle=level.cycle - 1,
    )
    with django_capture_on_commit_callbacks(execute=True):
        pay_table_staged_apply(pay_table, level)
    assert rules_published == [pay_table.progressive_id]
    assert [line for line in texts(pay_table.progressive, "en") if ":" in line] == [
        "Royal Flush: 100% of the jackpot"
    ]
