"""Makes ``main_before_house.json``: an installation as the code before the one-way house left it.

Run once, on that code (commit a3558c5, the last one before the apps moved), on the embedded SQLite:

    DEBUG=1 python manage.py shell < tests/workspace/upgrade/make_fixture.py

It plays a small floor through the real services: keys issued, games and a jackpot posted through the
events API (engine applied), the hit verified by two people and paid, hour summaries refreshed, and the
table games seeded with rounds posted through their API (a Jumbo 7 share hit among them). The dump holds
every row of the project's apps, so the upgrade test can load it into the old schema and migrate.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from floor.reports.services import machine_hour_stats_refresh

from floor.services import gateway_key_issue, machine_key_issue
from jackpots.models import Hit
from jackpots.services.contributions import contributions_apply
from jackpots.services.hit_payment import hit_pay, hit_verify
from tests.factories import (
    ProgressiveFactory,
    ProgressiveMachineFactory,
    SlotMachineFactory,
    VenueFactory,
)
from tests.floor.staff import level_seeded
from tests.tables.factories import body, seat, tables_ready

OUT = Path("tests/workspace/upgrade/main_before_house.json")
User = get_user_model()
first = User.objects.create_superuser("first", password="not-used")
second = User.objects.create_superuser("second", password="not-used")
venue = VenueFactory(code="NOG", handpay_threshold_cents=100)  # two people verify the hit
gateway_key_issue(venue, created_by=first)
progressive = ProgressiveFactory()
level = level_seeded(progressive=progressive)  # created by the engine: seeded, its ledger row written
machines = [SlotMachineFactory(room__venue=venue) for _ in range(3)]
for machine in machines:
    ProgressiveMachineFactory(progressive=progressive, machine=machine)
keys = {machine.pk: machine_key_issue(machine, created_by=first)[1] for machine in machines}
client = Client()
start = timezone.now() - timedelta(hours=2)


def post(machine, events):
    response = client.post(
        "/api/v1/events",
        {"events": events},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {keys[machine.pk]}",
    )
    assert response.status_code == 200 and not response.json()["rejected"], response.content[:300]


for seq in range(1, 41):
    for index, machine in enumerate(machines):
        at = (start + timedelta(minutes=seq * 2, seconds=index)).isoformat()
        wager = machine.max_bet_cents
        post(
            machine,
            [
                {
                    "machine": machine.asset_number,
                    "seq": seq,
                    "at": at,
                    "type": "game",
                    "wager": wager,
                    "win": wager * (seq % 3),
                }
            ],
        )
winner = machines[0]
jackpot_at = (start + timedelta(minutes=90)).isoformat()
post(
    winner,
    [
        {
            "machine": winner.asset_number,
            "seq": 41,
            "at": jackpot_at,
            "type": "jackpot",
            "level": level.pk,
            "amount": 1,
        }
    ],
)
contributions_apply()
hit = Hit.objects.get()
hit_verify(hit, first)
hit_verify(Hit.objects.get(), second)
hit_pay(Hit.objects.get(), second)
machine_hour_stats_refresh()

tables = tables_ready()
NOTHING = "2C 5D 8H JS 3C"
rounds = [
    ("NOG-CSP-1", "R-1", [seat(1, NOTHING), seat(2, "4D 6D 8C TC QH")], ""),
    ("NOG-CSP-1", "R-2", [seat(1, "9C 9D 9H 9S 2D"), seat(2, NOTHING)], ""),
    ("NOG-CHE-1", "C-1", [seat(1, "2C 3D", bet=500)], "9S TS JH 4D 6C"),
    ("VEN-CSP-1", "V-1", [seat(3, "AS KS QS JS TS")], ""),
]
for number, (code, round_id, seats, community) in enumerate(rounds):
    at = (timezone.now() - timedelta(minutes=10 - number)).isoformat()
    response = tables.post(code, body(round_id, seats, community=community, at=at))
    assert response.status_code == 201, response.content[:300]
call_command(
    "dumpdata",
    "auth.user",
    "floor",
    "slots",
    "jackpots",
    exclude=["floor.workspace"],
    output=str(OUT),
    indent=None,
)
print(f"wrote {OUT}")
