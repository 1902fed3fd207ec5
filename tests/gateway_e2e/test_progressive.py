"""The server's amounts on the machines' displays, and the progressive's hits both ways: a machine's own
hit becomes a hit in the queue and its display resets; a handpay paid through the pay service unlocks
the machine (LP 94); a mystery hit drawn for a SAS machine is credited to it by legacy bonus (LP 8A)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest

from gateway.tests.helpers import wait_for
from tests.gateway_e2e.conftest import E2E, RecordingEgm, manage

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

DENOMINATION = 50
SAS_LEVELS = {1: "sas", 2: "minor"}  # SAS level -> the floor's level


def server_cents(e2e: E2E, conn: psycopg.Connection | None = None) -> dict[int, int]:
    """Each SAS level's amount as the gateway is sent it: rounded down to the cent."""
    ids = {e2e.floor.levels[name]: sas for sas, name in SAS_LEVELS.items()}
    sql = f"SELECT id, current_mc FROM jackpots_level WHERE id IN ({', '.join(map(str, ids))})"
    rows = conn.execute(sql).fetchall() if conn is not None else e2e.query(sql)
    return {ids[level]: current // 1000 for level, current in rows}


def machine_id(e2e: E2E, code: str) -> int:
    return e2e.query(f"SELECT id FROM slots_slotmachine WHERE asset_number = '{code}'")[0][0]


@contextmanager
def playing(e2e: E2E, every: float = 0.3, bet: int = 9) -> Iterator[None]:
    """Every machine that can play plays a game every `every` seconds until the block ends."""
    stop = threading.Event()

    def play() -> None:
        while not stop.wait(every):
            for egm in e2e.egms.values():
                egm.play(bet)

    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)


# How long a display may trail the server here. The goal of under a second is a figure of bench/gateway.py
# ("display lag"), measured on a quiet machine: this suite shares two cores with another worker's browsers
# and stacks, where a display once trailed by 1.6 s. Three seconds stays inside the SAS bound this test
# also holds: a machine raises 53 after five without a broadcast.
LAG = 3.0


def test_displays_follow_the_server_and_never_raise_53(e2e: E2E) -> None:
    server: list[tuple[float, dict[int, int]]] = []
    shown: list[tuple[float, str, dict[int, int]]] = []
    raised_53 = {code: egm.raised.count(0x53) for code, egm in e2e.egms.items()}  # outages raise it
    conn = psycopg.connect(e2e.postgres.url.replace("postgres://", "postgresql://"), autocommit=True)
    with conn, playing(e2e):
        end = time.monotonic() + 8
        while time.monotonic() < end:
            amounts = server_cents(e2e, conn)  # read, then stamped: the stamp is never early
            server.append((time.monotonic(), amounts))
            for code, egm in e2e.egms.items():
                with egm.lock:
                    shown.append((time.monotonic(), code, dict(egm.displayed)))
            time.sleep(0.1)
        # The displays read last have a reading of the server after them too.
        amounts = server_cents(e2e, conn)
        server.append((time.monotonic(), amounts))
    assert len({tuple(amounts.values()) for _, amounts in server}) > 5, "the levels moved during the run"

    def held_within(at: float, level: int) -> tuple[int, int]:
        """The least and most the server held in the `LAG` before `at`, and at the first reading after
        `at`: a display can be ahead of this loop's last reading of the database, never of the next one,
        which this one thread begins after it read the displays. Between two readings the amount moves
        through values no reading saw, so the display must lie between them, not on one. The next reading
        by its order, not within a fixed time: under the suite's load one turn of this loop took 0.9 s."""
        before = [amounts[level] for t, amounts in server if t <= at - LAG]
        during = [amounts[level] for t, amounts in server if at - LAG < t <= at]
        after = [amounts[level] for t, amounts in server if t > at][:1]
        held = before[-1:] + during + after
        return min(held), max(held)

    late = [
        (round(at, 1), code, level, amount)
        for at, code, amounts in shown
        if at > server[0][0] + LAG
        for level, amount in amounts.items()
        if not held_within(at, level)[0] <= amount <= held_within(at, level)[1]
    ]
    assert late == [], [(round(t, 1), amounts) for t, amounts in server if abs(t - late[0][0]) < 1.5]
    assert {code: egm.raised.count(0x53) for code, egm in e2e.egms.items()} == raised_53


def delivered_game(e2e: E2E, egm: RecordingEgm) -> None:
    """A game on the machine, applied: a reported hit counts only after an eligible game."""
    assert egm.play(1)
    e2e.all_delivered()


def above_reset(e2e: E2E, egm: RecordingEgm) -> None:
    """Games until the server's Grand shows a cent above its reset: a hit from the reset amount would
    reset to the same amount, and "the display resets" could not be told from "nothing happened"."""
    level = e2e.floor.levels["sas"]
    ((reset_mc,),) = e2e.query(f"SELECT reset_mc FROM jackpots_level WHERE id = {level}")
    end = time.monotonic() + 10
    while server_cents(e2e)[1] <= reset_mc // 1000 and time.monotonic() < end:
        assert egm.play(9)
        e2e.all_delivered()
        time.sleep(0.2)  # the engine applies the delivered games after their commit
    assert server_cents(e2e)[1] > reset_mc // 1000, "the Grand above its reset"


def test_a_machine_hit_lands_in_the_queue_with_the_displayed_amount_and_the_display_resets(e2e: E2E) -> None:
    code = e2e.floor.sas[1]  # handpay limit EUR 2000: the machine pays the Grand itself
    egm = e2e.egms[code]
    delivered_game(e2e, egm)
    above_reset(e2e, egm)
    wait_for(lambda: egm.displayed[1] == server_cents(e2e)[1], 5, "the display to show the server's Grand")
    level = e2e.floor.levels["sas"]
    ((cycle, ledger_seen),) = e2e.query(
        f"SELECT cycle, (SELECT coalesce(max(id), 0) FROM jackpots_ledgerentry WHERE level_id = {level}) "
        f"FROM jackpots_level WHERE id = {level}"
    )
    displayed = egm.displayed[1]
    assert egm.hit(1)
    assert egm.raised[-2:] == [0x56, 0x54]
    e2e.all_delivered()
    hits = e2e.query(
        "SELECT h.machine_amount_cents, (e.payload->>'paid_amount')::bigint FROM jackpots_hit h "
        "JOIN slots_machineevent e ON e.id = h.event_id "
        f"WHERE h.level_id = {level} AND h.machine_id = {machine_id(e2e, code)}"
    )
    # The machine credited it itself (test_payments.py follows its payment), whole credits of what it showed.
    ((shown, paid),) = hits
    assert shown == displayed and 0 < paid <= displayed
    # A new cycle, the pool paying out exactly what the machine paid, and the sign showing the new amount.
    # It was "the amount after < displayed", which is not the rule: the next cycle starts at the reset plus
    # what the pool held beyond the payment (the winning game's share, what the machine showed but did not
    # credit, the reserve, the overflow: jackpots.services.core), and a reserve grown past the few cents the
    # Grand stood above its reset (the earlier tests on the same stack decide how much) broke it.
    ((after, after_cycle),) = e2e.query(f"SELECT current_mc, cycle FROM jackpots_level WHERE id = {level}")
    awarded = e2e.query(
        "SELECT sum(awarded_mc)::bigint FROM jackpots_ledgerentry "
        f"WHERE level_id = {level} AND id > {ledger_seen}"
    )
    assert (after_cycle, awarded) == (cycle + 1, [(paid * 1000,)])
    wait_for(lambda: egm.displayed[1] == after // 1000, 1.5, "the display to show the Grand's reset")


def pay(e2e: E2E, hit: int) -> None:
    """The workspace's pay: verified (by a second person too above the two-person threshold), paid."""
    script = (
        "from django.contrib.auth import get_user_model\n"
        "from jackpots.models import Hit\n"
        "from jackpots.services.hit_payment import hit_pay, hit_verify\n"
        "names = ('attendant-e2e', 'manager-e2e')\n"
        "users = [get_user_model().objects.get_or_create(username=n)[0] for n in names]\n"
        f"hit = Hit.objects.get(pk={hit})\n"
        "hit = hit_verify(hit, users[0])\n"
        "hit = hit_verify(hit, users[1]) if hit.state == 'hit' else hit\n"
        "hit_pay(hit, users[0])\n"
    )
    manage(e2e.env, "manage.py", "shell", "-c", script)


def test_a_handpay_paid_through_the_pay_service_unlocks_the_machine(e2e: E2E) -> None:
    code = e2e.floor.sas[0]  # handpay limit EUR 500: a Grand locks it up
    egm = e2e.egms[code]
    delivered_game(e2e, egm)
    wait_for(lambda: egm.displayed[1] == server_cents(e2e)[1], 5, "the display to show the server's Grand")
    displayed = egm.displayed[1]
    assert egm.hit(1)
    assert egm.handpay is not None and not egm.can_play()
    e2e.all_delivered()
    wait_for(
        lambda: (
            e2e.query(f"SELECT handpay_locked FROM slots_slotmachine WHERE asset_number = '{code}'")
            == [(True,)]
        ),
        5,
        "the server to see the lockup",
    )
    ((hit, amount),) = e2e.query(
        "SELECT id, amount_cents FROM jackpots_hit "
        f"WHERE level_id = {e2e.floor.levels['sas']} AND machine_id = {machine_id(e2e, code)} "
        "ORDER BY id DESC LIMIT 1"  # test_payments.py's handpay came before on this machine
    )
    assert amount == displayed
    pay(e2e, hit)
    paid_at = time.monotonic()
    wait_for(lambda: egm.handpay is None, 10, "LP 94 to reset the machine's handpay")
    # The reset reaches the machine on its next turns (LP 1B, then LP 94): well within 2 s of the payment.
    assert time.monotonic() - paid_at < 2.0
    assert egm.raised[-1] == 0x52
    assert egm.can_play()
    wait_for(
        lambda: (
            e2e.query(f"SELECT handpay_locked FROM slots_slotmachine WHERE asset_number = '{code}'")
            == [(False,)]
        ),
        5,
        "the server to see the reset",
    )


def minor_hits(e2e: E2E) -> list[tuple]:
    codes = ", ".join(f"'{c}'" for c in e2e.floor.sas)
    return e2e.query(
        "SELECT h.id, m.asset_number FROM jackpots_hit h JOIN slots_slotmachine m ON m.id = h.machine_id "
        f"WHERE h.level_id = {e2e.floor.levels['minor']} AND m.asset_number IN ({codes}) ORDER BY h.id"
    )


def test_a_mystery_hit_drawn_for_a_sas_machine_is_credited_to_it_by_legacy_bonus(e2e: E2E) -> None:
    if not minor_hits(e2e):  # the Minor must hit within EUR 0.50 of play: a few games draw it
        with playing(e2e, every=0.2):
            wait_for(lambda: minor_hits(e2e), 20, "the mystery Minor to hit")
    hit, code = minor_hits(e2e)[0]
    wait_for(
        lambda: e2e.query(f"SELECT status FROM jackpots_sasaward WHERE hit_id = {hit}") == [("paid",)],
        10,
        "the gateway's award result",
    )
    ((asked, paid, difference),) = e2e.query(
        f"SELECT asked_cents, paid_cents, difference_cents FROM jackpots_sasaward WHERE hit_id = {hit}"
    )
    assert paid == asked - asked % DENOMINATION  # whole credits
    assert difference == paid - asked
    # Credited whole: paid by the machine. A fraction of a credit it could not credit stays on the desk for
    # the attendants (the hit open, the machine's part on it).
    state = "paid" if difference == 0 else "hit"
    recorded = e2e.query(f"SELECT state, machine_paid_cents FROM jackpots_hit WHERE id = {hit}")
    assert recorded == [(state, paid)]
    egm = e2e.egms[code]
    assert 0x7C in egm.raised
    assert paid // DENOMINATION in {bonus for bonus in egm.bonuses}
