"""Makes ``main_before_apps.json``: an installation as the code before the apps moved out of the engine
left it (tables, signage and the gateway's server side still in ``jackpots``).

Run once, on that code (commit 81f7281, which changes no model since 323aa25), on a fresh embedded SQLite
(no DATABASE_URL nor REDIS_URL):

    unset DATABASE_URL REDIS_URL; export DEBUG=1 ALLOWED_HOSTS=testserver SQLITE_PATH=/tmp/before_apps.sqlite3
    rm -f $SQLITE_PATH; python manage.py migrate -v0
    python manage.py shell < tests/workspace/upgrade/make_fixture_apps.py

The mystery triggers are drawn at random, so another run plays a different number of games and other
amounts: the upgrade test's figures are those of the committed file.

It plays a floor through the real services and APIs, touching every model that moves and everything that
points at them: table rounds posted through the tables API (a Caribbean Stud royal declared and paid at
the desk by two people, a Jumbo 7 share hit paid at the tables, one of them in a CHF venue at a recorded
rate, a fixed prize paid at its table and one at the desk, a voided round), table keys, pay tables and a
pay-table change made while the level was suspended, a sign theme, screen presence, SAS awards (credited
and handpay) for mystery hits, level state changes, change proposals (approved and rejected), significant
events, a printed slip, a signed day close, and a staff group holding permissions on moved models. The
dump holds every row of the project's apps; the groups' permissions are written by natural key (their ids
differ from database to database).
"""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal
from io import StringIO
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core import serializers
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from jackpots.gateway.services import award_result_record, gateway_link_record
from jackpots.signage.models import SignTheme
from jackpots.signage.services import screen_presence_connected, screen_presence_disconnected, sign_theme_save
from jackpots.tables.models import ExchangeRate, PrizePart, Table
from jackpots.tables.selectors import lines_as_data
from jackpots.tables.services import table_key_issue
from jackpots.tables.services.parts import part_pay, part_verify
from jackpots.tables.services.paytables import pay_table_change

from common.days import business_date_of
from floor.models import Venue
from jackpots.models import Hit, HitKind
from jackpots.services import contributions_apply, core
from jackpots.services.hit_payment import hit_pay, hit_verify
from jackpots.services.levels import level_create
from jackpots.services.proposals import change_approve, change_propose, change_reject
from jackpots.services.states import level_resume, level_suspend
from jackpots.services.winners import Winner
from slots.services.keys import gateway_key_issue, machine_key_issue
from tests.factories import (
    ProgressiveFactory,
    ProgressiveMachineFactory,
    RoomFactory,
    SignageScreenFactory,
    SlotMachineFactory,
)
from tests.jackpots.tables.factories import seat, tables_ready
from workspace.dayclose.services import dayclose_sign
from workspace.models import HitSlip
from workspace.reports.services import machine_hour_stats_refresh
from workspace.slips.services import slip_print

OUT = Path("tests/workspace/upgrade/main_before_apps.json")
APPS = ["auth.user", "floor", "slots", "jackpots", "workspace"]
User = get_user_model()
first = User.objects.create_superuser("first", password="not-used")
second = User.objects.create_superuser("second", password="not-used")
now = timezone.now()


def played(seconds: float) -> str:
    return (now + timedelta(seconds=seconds)).isoformat()


def round_body(round_id: str, seats: list[dict], seconds: float, community: str = "") -> dict:
    return {"round": round_id, "at": played(seconds), "community": community.split(), "seats": seats}


def posted(response, status: int = 201) -> dict:
    assert response.status_code == status, response.content[:400]
    return response.json()


# The table games: seeded (Jumbo 7 from nought), a CHF venue joining the Jumbo 7 at a recorded rate.
tables = tables_ready()
nog = Venue.objects.get(code="NOG")
lugano = Venue.objects.create(
    code="LUG", name="Casinò Lugano", currency="CHF", handpay_threshold_cents=120_000
)
jumbo = tables.table("NOG-CHE-1").progressive
lug_table = Table.objects.create(
    venue=lugano, code="LUG-CHE-1", game="casino_holdem", progressive=jumbo, min_jackpot_bet_cents=100
)
tables.keys["LUG-CHE-1"] = table_key_issue(lug_table, created_by=first)[1]
ExchangeRate.objects.create(
    base="EUR",
    quote="CHF",
    rate=Decimal("0.93710000"),
    valid_from=now - timedelta(days=400),
    created_by=first,
)

# Jumbo 7: bets grow the meter, then two 7-card straight flushes share it, one at NOG and one at LUG
# (in CHF); both parts are under their venues' thresholds and paid at their tables.
posted(
    tables.post(
        "NOG-CHE-1",
        round_body(
            "J-GROW",
            [seat(1, "KC KD", 10_000), seat(2, "QC QD", 10_000), seat(3, "9S 8D", 3_333)],
            -60,
            community="2C 5S 7D TH 3S",
        ),
    )
)
COMMUNITY = "AH 2H 4H 6H 7H"
posted(tables.post("NOG-CHE-1", round_body("J-WIN", [seat(1, "3H 5H", 1_000)], -20, community=COMMUNITY)))
posted(tables.post("LUG-CHE-1", round_body("L-WIN", [seat(2, "3H 5H", 2_000)], -19, community=COMMUNITY)))

# A 6-card straight flush: a fixed €5,000 prize at or above the threshold, a hit of its own paid at the desk.
six = round_body("J-SIX", [seat(3, "7S 8S", 100)], -15, community="3S 4S 5S 6S KD")
fixed = posted(tables.post("NOG-CHE-1", six))["seats"][0]["award"]
assert (fixed["fixed"], fixed["handpay"]) == (500_000, True), fixed
fixed_hit = Hit.objects.get(table_seat__round__round_id="J-SIX")
fixed_hit = hit_verify(hit_verify(fixed_hit, first), second)
hit_pay(fixed_hit, second, Winner("Anna Bianchi", "passport", "YA1234567", "IT"))

# Caribbean Stud: the pay table changed while its level is suspended (applied at once), then resumed.
csp_level = tables.level("NOG-CSP-1")
level_suspend(csp_level, first, "pay table review")
pay_table = tables.table("NOG-CSP-1").progressive.pay_table
lines = [dict(line) for line in lines_as_data(pay_table)]
for line in lines:
    if line["hand"] == "flush":
        line["fixed_cents"] = 6_000
pay_table_change(pay_table, first, lines, "flush pays €60 from today")
level_resume(csp_level, first, "pay table reviewed")

NOTHING = "2C 5D 7H 9S JC"
posted(tables.post("NOG-CSP-1", round_body("C-1", [seat(1, NOTHING), seat(2, "4D 6D 8C TC QH")], -50)))
# Four of a kind: a fixed €500 prize under NOG's €1,200 threshold, paid at its table.
posted(
    tables.post("NOG-CSP-1", round_body("C-2", [seat(1, "9C 9D 9H 9S 2D"), seat(2, "3C 5S 8C TD KC")], -45))
)
# A flush at the other table, voided by a floor manager: bets and prize reversed.
posted(tables.post("NOG-CSP-2", round_body("C-3", [seat(4, "2H 5H 8H JH KH")], -40)))
voided = tables.void("NOG-CSP-2", "C-3", reason="dealer misdeal")
assert voided.status_code == 200, voided.json()
# A royal, declared (the tables of the progressive wait), paid at the desk by two people: that ends it.
posted(tables.post("NOG-CSP-1", round_body("C-4", [seat(3, "AS KS QS JS TS"), seat(4, NOTHING)], -5)))
royal = PrizePart.objects.get(share__declarations__isnull=False)
part_pay(
    part_verify(part_verify(royal, first), second),
    second,
    Winner("Mario Rossi", "id_card", "CA12345AB", "IT"),
)
posted(tables.post("VEN-CSP-1", round_body("V-1", [seat(1, NOTHING)], -1)))

# Signs: a theme for the Caribbean Stud progressive, two screens, one connected and one gone.
sign_theme_save(
    SignTheme(progressive=pay_table.progressive, preset="ice", title="Caribbean", accent="#1e90ff")
)
screens = [SignageScreenFactory(venue=nog, slug=f"nog-sign-{n}", name=f"Sign {n}") for n in (1, 2)]
for screen in screens:
    screen_presence_connected(screen.id)
screen_presence_disconnected(screens[1].id, now)

# Slots: SAS machines on a mystery level; the gateway credits one hit and hands the other to attendants.
room = RoomFactory(venue=nog, number=9, name="Sala SAS")
progressive = ProgressiveFactory(name="Diamond Vault", sas_group=1)
mystery = level_create(
    progressive,
    name="Must Hit By",
    position=1,
    params=core.Params(10_000_000, Decimal("0.05"), Decimal("0.01"), limit_mc=10_300_000, mystery=True),
)
machines = [
    SlotMachineFactory(
        room=room, asset_number=f"NOG-09{n}", sas_line="line-1", sas_address=n, sas_group=1, max_bet_cents=500
    )
    for n in (1, 2)
]
for machine in machines:
    ProgressiveMachineFactory(progressive=progressive, machine=machine)
keys = {machine.pk: machine_key_issue(machine, created_by=first)[1] for machine in machines}
gateway_key_issue(nog, created_by=first)
gateway_link_record(nog.id, up=True)
client = Client()
seq = 0
while Hit.objects.filter(kind=HitKind.MYSTERY).count() < 2 and seq < 200:
    seq += 1
    for index, machine in enumerate(machines):
        event = {
            "machine": machine.asset_number,
            "seq": seq,
            "at": played(-3600 + seq * 10 + index),
            "type": "game",
            "wager": 500,
            "win": 500 * (seq % 2),
        }
        answer = posted(
            client.post(
                "/api/v1/events",
                {"events": [event]},
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Bearer {keys[machine.pk]}",
            ),
            200,
        )
        assert not answer["rejected"], answer
    contributions_apply()
credited, handpay = Hit.objects.filter(kind=HitKind.MYSTERY).order_by("id")[:2]
for hit, status in ((credited, "paid"), (handpay, "handpay")):
    award_result_record(
        nog.id,
        {
            "type": "award_result",
            "award": hit.id,
            "machine": hit.machine.asset_number,
            "amount": hit.amount_cents,
            "status": status,
            "paid": hit.amount_cents if status == "paid" else 0,
        },
    )
hit_pay(hit_verify(Hit.objects.get(pk=handpay.pk), first), second)
gateway_link_record(nog.id, up=False, close_code=1006)

# The engine's changes: a top-up approved by another person, a correction proposal rejected.
topup = change_propose(kind="topup", user=first, reason="house top-up", level=mystery, amount_mc=100_000)
change_approve(topup, second)
rejected = change_propose(
    kind="topup", user=second, reason="not this week", level=csp_level, amount_mc=500_000
)
change_reject(rejected, first, "budget")

# Staff who may see and change the tables and themes, and see the awards: a group on moved models.
group = Group.objects.create(name="Table supervisors")
group.permissions.set(
    Permission.objects.filter(
        content_type__app_label="jackpots",
        codename__in=["view_table", "change_table", "view_prizepart", "change_signtheme", "view_sasaward"],
    )
)
supervisor = User.objects.create_user("supervisor", password="not-used", is_staff=True)
supervisor.groups.add(group)

# The royal's slip printed twice (the stored original, then a numbered copy), as the desk does.
for printer in (second, first):
    slip_print(PrizePart.objects.get(pk=royal.pk), HitSlip.Variant.values[0], printer)
# The mystery level stopped at the end of the night: a suspended level upgrades as one.
level_suspend(mystery, second, "end of night")
machine_hour_stats_refresh()
# The day is signed off as the register shows it (signed "tomorrow": the business day must be over).
dayclose_sign(nog, business_date_of(now, nog.time_zone), second, now=now + timedelta(days=1), note="fixture")
call_command("jackpots_audit")

dump = StringIO()
call_command("dumpdata", *APPS, exclude=["floor.workspace"], stdout=dump)
rows = json.loads(serializers.serialize("json", Group.objects.all(), use_natural_foreign_keys=True))
rows += json.loads(dump.getvalue())
OUT.write_text(json.dumps(rows, separators=(",", ":")))
print(f"wrote {OUT}: {len(rows)} rows, {OUT.stat().st_size} bytes")
