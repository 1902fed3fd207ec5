"""A machine-reported hit needs an eligible triggering game; hits are numbered in the order of play.

Events go through POST /api/v1/events with the venue's gateway key, as a site controller posts them, and
the engine runs on commit (Celery eager)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import orjson
import pytest
from django.db import connection
from django.test import Client

from common.credentials import credential_issue
from demo.seed_progressives import DIAMOND_VAULT, GREASE
from jackpots.audit import jackpots_audit
from jackpots.models import Hit, HitRefusal
from jackpots.services.levels import level_create
from slots.models import GatewayKey, MachineAlert, PendingEvent
from tests.factories import SlotMachineFactory
from tests.jackpots.helpers import progressive_with_machines

pytestmark = pytest.mark.django_db

BASE = (datetime.now(UTC) - timedelta(hours=1)).replace(microsecond=0)


def _at(milliseconds: int) -> str:
    return (BASE + timedelta(milliseconds=milliseconds)).isoformat().replace("+00:00", "Z")


def _game(machine, seq: int, ms: int, wager: int) -> dict:
    return {
        "machine": machine.asset_number,
        "seq": seq,
        "at": _at(ms),
        "type": "game",
        "wager": wager,
        "win": 0,
    }


def _jackpot(machine, seq: int, ms: int, level, amount: int = 1) -> dict:
    return {
        "machine": machine.asset_number,
        "seq": seq,
        "at": _at(ms),
        "type": "jackpot",
        "level": level.id,
        "amount": amount,
    }


@pytest.fixture
def post(settings, django_capture_on_commit_callbacks):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    client = Client()
    keys: dict[int, str] = {}

    def post(machine, events: list[dict]) -> dict:
        venue = machine.room.venue
        if venue.id not in keys:
            keys[venue.id] = credential_issue(GatewayKey, kind="gw", venue=venue)[1]
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(
                "/api/v1/events",
                data=orjson.dumps({"events": events}),
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Bearer {keys[venue.id]}",
            )
        assert response.status_code == 200
        return response.json()

    return post


def _seeded(levels, count: int, **machine_fields):
    progressive, _ = progressive_with_machines(0)
    machines = [SlotMachineFactory(**machine_fields) for _ in range(count)]
    for machine in machines:
        progressive.members.create(machine=machine)
    return machines, [
        level_create(progressive, name=n, position=i, params=p) for i, (n, p) in enumerate(levels, 1)
    ]


# --- Finding 1: a machine can only win a level the game it won on was eligible for -----------------------


def test_diamond_vault_grand_after_a_game_below_max_bet_is_refused_and_alerted(post):
    (machine,), (grand, _major, _minor) = _seeded(DIAMOND_VAULT, 1, max_bet_cents=450)
    # One max-bet game feeds the level (450 x 0.5% = 2.25 cents: €1,000.02), then €0.50 and the report.
    answer = post(
        machine, [_game(machine, 1, 0, 450), _game(machine, 2, 100, 50), _jackpot(machine, 3, 200, grand)]
    )
    assert answer == {"accepted": 3, "duplicates": 0, "rejected": []}  # stored: the raw report is kept
    assert Hit.objects.filter(level=grand).count() == 0
    refusal = HitRefusal.objects.get(level=grand)
    assert (refusal.machine_id, refusal.code) == (machine.id, "not_max_bet")
    assert refusal.game_event_id is not None
    alert = MachineAlert.objects.get(machine=machine)
    assert (alert.kind, alert.seq) == (MachineAlert.Kind.JACKPOT_REFUSED, 3)
    grand.refresh_from_db()
    assert (grand.current_mc, grand.hits, grand.cycle) == (100_002_250, 0, 1)
    # The same report after a max-bet game is a hit.
    post(machine, [_game(machine, 4, 300, 450), _jackpot(machine, 5, 400, grand)])
    hit = Hit.objects.get(level=grand)
    assert (hit.amount_cents, hit.machine_id) == (100_004, machine.id)
    assert jackpots_audit()[1] == []


def test_grease_grand_after_a_60_cent_game_is_refused_but_major_is_won(post):
    (machine,), (grand, major, *_rest) = _seeded(
        GREASE, 1, denomination_cents=1, min_bet_cents=60, max_bet_cents=300
    )
    post(
        machine,
        [_game(machine, 1, 0, 60), _jackpot(machine, 2, 100, grand), _jackpot(machine, 3, 200, major)],
    )
    assert Hit.objects.filter(level=grand).count() == 0
    assert HitRefusal.objects.get(level=grand).code == "not_max_bet"
    # Major needs €0.60, not max bet: 60 x 0.3% = 0.18 cents over the €1,000 reset.
    assert [h.amount_cents for h in Hit.objects.filter(level=major)] == [100_000]
    assert list(MachineAlert.objects.values_list("kind", "seq")) == [("jackpot_refused", 2)]
    assert jackpots_audit()[1] == []


def test_a_game_that_arrives_after_its_report_was_judged_does_not_change_the_audit(post):
    """The report is judged on the games the engine had when it applied it. An earlier-seq game that
    reaches the server afterwards (a machine posting out of order) is late: the audit judges the hit on
    what the engine had, as the documented order says, instead of reporting a paid hit as ineligible."""
    (machine,), (grand, _major, _minor) = _seeded(DIAMOND_VAULT, 1, max_bet_cents=450)
    post(machine, [_game(machine, 1, 0, 450), _jackpot(machine, 3, 200, grand)])
    assert Hit.objects.filter(level=grand).count() == 1
    post(machine, [_game(machine, 2, 100, 50)])  # seq 2 came before the report, but arrives after it
    assert jackpots_audit()[1] == []


def test_a_report_without_a_game_or_below_the_minimum_is_refused(post):
    (machine,), (_grand, major, *_rest) = _seeded(
        GREASE, 1, denomination_cents=1, min_bet_cents=30, max_bet_cents=300
    )
    post(
        machine,
        [_jackpot(machine, 1, 0, major), _game(machine, 2, 100, 30), _jackpot(machine, 3, 200, major)],
    )
    assert list(HitRefusal.objects.order_by("event_id").values_list("code", flat=True)) == [
        "no_triggering_game",
        "wager_below_minimum",
    ]
    assert Hit.objects.count() == 0
    assert MachineAlert.objects.filter(kind=MachineAlert.Kind.JACKPOT_REFUSED).count() == 2


# --- Finding 2: the order of play (at, then machine, then seq) ------------------------------------------


def test_the_earlier_jackpot_of_a_batch_is_numbered_first_and_takes_the_larger_amount(post):
    machines, (grand,) = _seeded([DIAMOND_VAULT[0]], 2, max_bet_cents=450)
    first, second = machines  # NOG ids in that order: machine order would number ``first`` first
    # A gateway batch: NOG-0002's jackpot listed first with the earlier `at`, then NOG-0001's.
    post(
        first,
        [
            _game(first, 1, 0, 450),
            _game(second, 1, 10, 450),
            _jackpot(second, 2, 500, grand),
            _jackpot(first, 2, 520, grand),
        ],
    )
    hits = list(Hit.objects.filter(level=grand).order_by("number"))
    # 900 cents x 0.5% = 4.5 cents over €1,000; the reserve (0.1%, 0.9 cents) starts the next cycle.
    assert [(h.number, h.machine_id, h.amount_cents) for h in hits] == [
        (1, second.id, 100_004),
        (2, first.id, 100_001),  # reset + 0.9 cents of reserve + the 0.5 cent rest
    ]
    assert [h.at for h in hits] == [BASE + timedelta(milliseconds=500), BASE + timedelta(milliseconds=520)]
    assert [h.play_seq for h in hits] == [2, 2]
    assert [h.late for h in hits] == [False, False]
    assert jackpots_audit()[1] == []


def test_a_game_listed_between_two_jackpots_is_applied_between_them(post):
    machines, (grand,) = _seeded([DIAMOND_VAULT[0]], 3, max_bet_cents=450)
    one, two, three = machines
    post(
        one,
        [
            _game(three, 1, 0, 450),
            _game(one, 1, 10, 450),
            _jackpot(three, 2, 100, grand),
            _game(two, 1, 200, 450),  # between the two jackpots: it feeds the second
            _jackpot(one, 2, 300, grand),
        ],
    )
    hits = list(Hit.objects.filter(level=grand).order_by("number"))
    assert [(h.machine_id, h.amount_mc) for h in hits] == [
        (three.id, 100_000_000 + 4_500),  # 900 cents x 0.5%
        # The next cycle: reset + the reserve (900 x 0.1%) + the 500 mc left of the award, + 450 x 0.5%.
        (one.id, 100_000_000 + 900 + 500 + 2_250),
    ]
    assert jackpots_audit()[1] == []


def test_a_jackpot_reaching_the_engine_after_a_later_played_hit_is_numbered_after_it_and_late(post):
    machines, (grand,) = _seeded([DIAMOND_VAULT[0]], 2, max_bet_cents=450)
    first, second = machines
    post(first, [_game(first, 1, 100, 450), _jackpot(first, 2, 500, grand)])
    # Played before, posted after the engine applied the hit above: late, numbered second.
    post(second, [_game(second, 1, 0, 450), _jackpot(second, 2, 400, grand)])
    hits = list(Hit.objects.filter(level=grand).order_by("number"))
    assert [(h.machine_id, h.late) for h in hits] == [(first.id, False), (second.id, True)]
    # The late game counts in the cycle standing when it is applied: reset + reserve + rest + 2.25 cents.
    assert hits[1].amount_mc == 100_000_000 + 450 + 250 + 2_250
    assert jackpots_audit()[1] == []


def test_the_engine_leaves_events_inside_the_settle_window_pending(settings):
    from django.utils import timezone

    from jackpots.services import contributions_apply
    from slots.models import MachineEvent
    from tests.jackpots.factories import GameEventFactory

    settings.ENGINE_SETTLE_MILLISECONDS = 250
    machines, (grand,) = _seeded([DIAMOND_VAULT[0]], 1, max_bet_cents=450)
    now = timezone.now()
    GameEventFactory(machine=machines[0], at=now - timedelta(seconds=1), wager_cents=450, is_max_bet=True)
    fresh = GameEventFactory(
        machine=machines[0], at=now + timedelta(seconds=5), wager_cents=450, is_max_bet=True
    )
    assert contributions_apply() == 1
    fresh.refresh_from_db()
    assert fresh.pending
    MachineEvent.objects.filter(pk=fresh.pk).update(at=now - timedelta(seconds=1))
    if connection.vendor == "postgresql":
        PendingEvent.objects.filter(event_id=fresh.pk).update(at=now - timedelta(seconds=1))
    assert contributions_apply() == 1
    grand.refresh_from_db()
    assert grand.wagered_cents == 900


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_task_waits_for_events_inside_the_window_then_applies_them(settings):
    from django.utils import timezone

    from jackpots.services.contributions import contributions_apply_settling
    from tests.jackpots.factories import GameEventFactory

    settings.ENGINE_SETTLE_MILLISECONDS = 250
    settings.CELERY_TASK_ALWAYS_EAGER = False
    machines, (grand,) = _seeded([DIAMOND_VAULT[0]], 1, max_bet_cents=450)
    played = timezone.now() + timedelta(milliseconds=300)
    GameEventFactory(machine=machines[0], at=played, wager_cents=450, is_max_bet=True)
    assert contributions_apply_settling(max_seconds=3) == 1
    # Applied once its `at` was 250 ms old, not before.
    assert timezone.now() >= played + timedelta(milliseconds=250)
    grand.refresh_from_db()
    assert grand.wagered_cents == 450
