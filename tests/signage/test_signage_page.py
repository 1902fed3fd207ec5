"""The screen page: served only with the screen's current token, never cached, token kept out of Referer."""

from __future__ import annotations

import json

import pytest

from common.credentials import screen_token_revoke
from floor.models import SignageScreen
from tests.signage.helpers import SignSetup


@pytest.mark.django_db
def test_page_with_the_token_carries_the_socket_and_settings(client, sign_setup: SignSetup) -> None:
    response = client.get(f"/signage/nog-1/?token={sign_setup.token}")
    assert response.status_code == 200
    assert response["Referrer-Policy"] == "no-referrer"
    assert response["Cache-Control"] == "no-store"
    html = response.content.decode()
    start = html.index('<script id="sign-config" type="application/json">') + len(
        '<script id="sign-config" type="application/json">'
    )
    config = json.loads(html[start : html.index("</script>", start)])
    assert config == {
        "socket_path": "/ws/signage/nog-1/",
        "token": sign_setup.token,
        "heartbeat_seconds": 4.0,
        "max_updates_per_second": 4.0,
        "attract_seconds": 60,
        "rules_seconds": 6,
        "locale": "it",
        "time_zone": "Europe/Rome",  # the venue's clock, whatever the display PC's zone
        "strings": {
            "connecting": "Connessione…",
            "live": "In diretta",
            "offline": "Collegamento in ripristino…",
            "refused": "Schermo non autorizzato",
            "link_down": "Collegamento interrotto",
            "link_down_footer": "Collegamento interrotto: %(names)s",
            "must_hit_by": "Deve uscire entro %(amount)s",
            "mystery": "Mistero",
            "suspended": "Sospeso",
            "declaration": "%(hand)s dichiarata al tavolo %(table)s, posto %(seat)s: gioco sospeso",
            "hands": {"royal_flush": "Scala reale massima", "straight_flush": "Scala colore"},
            "link_pending": "Jackpot vinto: in attesa di conferma dal collegamento",
        },
    }
    assert '<html lang="it">' in html
    assert "/static/signage/signage.js" in html
    assert "/static/signage/signage.css" in html


@pytest.mark.django_db
def test_an_english_screen_gets_its_words_in_english(client, sign_setup: SignSetup) -> None:
    SignageScreen.objects.filter(pk=sign_setup.screen.pk).update(language="en")
    response = client.get(f"/signage/nog-1/?token={sign_setup.token}")
    html = response.content.decode()
    start = html.index('<script id="sign-config" type="application/json">') + len(
        '<script id="sign-config" type="application/json">'
    )
    config = json.loads(html[start : html.index("</script>", start)])
    assert config["locale"] == "en"
    assert config["strings"] == {
        "connecting": "Connecting…",
        "live": "Live",
        "offline": "Reconnecting…",
        "refused": "Screen not authorised",
        "link_down": "Link down",
        "link_down_footer": "Link down: %(names)s",
        "must_hit_by": "Must hit by %(amount)s",
        "mystery": "Mystery",
        "suspended": "Suspended",
        "declaration": "%(hand)s declared at table %(table)s, seat %(seat)s: play suspended",
        "hands": {"royal_flush": "Royal Flush", "straight_flush": "Straight Flush"},
        "link_pending": "Jackpot won: awaiting the link's confirmation",
    }
    assert '<html lang="en">' in html
    assert "Machine <span" in html


@pytest.mark.django_db
@pytest.mark.parametrize("case", ["wrong", "revoked", "missing", "unknown screen"])
def test_page_without_a_valid_token_is_refused(client, sign_setup: SignSetup, case: str) -> None:
    if case == "revoked":
        screen_token_revoke(sign_setup.screen)
    path = {
        "wrong": f"/signage/nog-1/?token={sign_setup.token[:-1]}",
        "revoked": f"/signage/nog-1/?token={sign_setup.token}",
        "missing": "/signage/nog-1/",
        "unknown screen": f"/signage/ven-9/?token={sign_setup.token}",
    }[case]
    response = client.get(path)
    assert response.status_code == 401
    assert "Screen not authorised" in response.content.decode()
    assert sign_setup.token not in response.content.decode()
