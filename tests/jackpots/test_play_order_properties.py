"""Random interleavings of games and jackpot reports from several machines, posted in requests of any
order and size and applied in batches of any size (on PostgreSQL by several workers committing in random
order), give the hits of the independent replay (tests/jackpots/model.py): in the order of play when every
event is there before the engine runs, else in the documented order (batch, then place in play)."""

from __future__ import annotations

import random
import secrets
import threading
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.db import connections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jackpots.audit import jackpots_audit
from jackpots.models import ContributionBatch, Hit
from jackpots.services import contributions_apply, core
from jackpots.services.levels import level_create
from slots.models import MachineEvent
from tests.jackpots.helpers import progressive_with_machines
from tests.jackpots.model import Event, ModelHit, replay

BASE = (datetime.now(UTC) - timedelta(hours=1)).replace(microsecond=0)
GRAND = core.Params(100_000_000, Decimal("0.01"), Decimal("0.002"), min_wager_cents=100, max_bet_only=True)
MYSTERY = core.Params(1_000_000, Decimal("0.05"), Decimal("0.01"), limit_mc=1_500_000, mystery=True)
MAX_BET = 450

# (machine, milliseconds since that machine's previous event, kind, wager)
plays = st.lists(
    st.tuples(
        st.integers(0, 2),
        st.integers(0, 40),
        st.sampled_from(["game", "game", "game", "jackpot"]),
        st.sampled_from([50, 100, 300, MAX_BET]),
    ),
    min_size=1,
    max_size=40,
)
draw_lists = st.lists(st.integers(0, 10**9), min_size=1, max_size=4)  # the mystery triggers' draws
seeds = st.integers(0, 2**32)  # requests, batch sizes and commit pauses


def _drawer(draws: list[int]):
    calls = [0]

    def randbelow(n: int) -> int:
        calls[0] += 1
        return draws[(calls[0] - 1) % len(draws)] % n

    return randbelow


def _events(stream, machines, grand) -> list[MachineEvent]:
    """One machine's events go forward in time and seq; machines interleave, with equal times too."""
    clock = [0, 0, 0]
    seq = [0, 0, 0]
    events = []
    for index, gap, kind, wager in stream:
        clock[index] += gap
        seq[index] += 1
        at = BASE + timedelta(milliseconds=clock[index])
        fields = {"wager_cents": wager, "is_max_bet": wager == MAX_BET}
        if kind == "jackpot":
            fields = {"level_id": grand.id, "amount_cents": 1}
        events.append(
            MachineEvent(
                machine=machines[index],
                seq=seq[index],
                type=MachineEvent.Type.GAME if kind == "game" else MachineEvent.Type.JACKPOT,
                at=at,
                received_at=at,
                digest="0" * 40,
                payload={},
                pending=True,
                **fields,
            )
        )
    return events


def _requests(events: list[MachineEvent], rng: random.Random) -> list[list[MachineEvent]]:
    """The events shuffled into requests of random sizes, each stored in (machine, seq) order."""
    shuffled = events[:]
    rng.shuffle(shuffled)
    requests = []
    while shuffled:
        size = rng.randint(1, 8)
        requests.append(sorted(shuffled[:size], key=lambda e: (e.machine_id, e.seq)))
        shuffled = shuffled[size:]
    return requests


def _model_events(events: list[MachineEvent]) -> list[Event]:
    return [
        Event(
            e.machine_id,
            e.seq,
            e.at,
            "game" if e.type == MachineEvent.Type.GAME else "jackpot",
            e.wager_cents or 0,
            bool(e.is_max_bet),
            e.level_id,
        )
        for e in events
    ]


def _engine_order(events: list[MachineEvent]) -> list[Event]:
    """The documented order, from what the engine recorded: each event's batch, then its place in play."""
    batch_of = dict(ContributionBatch.objects.values_list("applied_at", "id"))
    stored = MachineEvent.objects.filter(id__in=[e.id for e in events])
    order = sorted(stored, key=lambda e: (batch_of[e.applied_at], e.at, e.machine_id, e.seq))
    return _model_events(order)


def _hits(levels) -> list[ModelHit]:
    hits = Hit.objects.filter(level__in=levels).order_by("level_id", "number")
    return [ModelHit(h.level_id, h.machine_id, h.amount_cents, h.late) for h in hits]


def _by_level(hits: list[ModelHit]) -> list[ModelHit]:
    return sorted(hits, key=lambda h: h.level_id)  # stable: each level's hits keep their order


def _posted(stream, draws, monkeypatch, rng: random.Random, *, engine_between: bool = False):
    """A progressive of 3 machines with a max-bet Grand and a mystery level, and ``stream``'s events
    stored request by request; with ``engine_between`` the engine runs after about half the requests, so
    the events of later requests may be late."""
    monkeypatch.setattr(secrets, "randbelow", _drawer(draws))
    progressive, machines = progressive_with_machines(3)
    grand = level_create(progressive, name="Grand", position=1, params=GRAND)
    mystery = level_create(progressive, name="Mystery", position=2, params=MYSTERY)
    events = _events(stream, machines, grand)
    for request in _requests(events, rng):
        MachineEvent.objects.bulk_create(request)
        if engine_between and rng.random() < 0.5:
            contributions_apply(batch_size=rng.randint(1, 10))
    return events, grand, mystery


def _expected(order: list[Event], grand, mystery, draws) -> list[ModelHit]:
    model_draw = _drawer(draws)
    levels = {grand.id: GRAND, mystery.id: MYSTERY}
    return _by_level(replay(order, levels, model_draw))


@pytest.mark.django_db
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stream=plays, draws=draw_lists, seed=seeds, engine_between=st.booleans())
def test_any_requests_and_batches_give_the_replay_in_the_documented_order(
    stream, draws, seed, engine_between, monkeypatch
):
    rng = random.Random(seed)
    events, grand, mystery = _posted(stream, draws, monkeypatch, rng, engine_between=engine_between)
    contributions_apply(batch_size=rng.randint(1, 10))
    assert _hits([grand, mystery]) == _expected(_engine_order(events), grand, mystery, draws)
    if not engine_between:  # everything was there first: exactly the replay in the order of play
        in_play = sorted(_model_events(events), key=lambda e: e.place)
        assert _hits([grand, mystery]) == _expected(in_play, grand, mystery, draws)
        assert not Hit.objects.filter(level__in=[grand, mystery], late=True).exists()
    assert jackpots_audit()[1] == []


def _workers_apply(count: int, rng: random.Random) -> None:
    """``count`` threads (each its own connection) drain the queue in small batches; each batch sleeps a
    random moment before its commit, so batches commit in a random order."""
    barrier = threading.Barrier(count)
    errors: list[BaseException] = []
    sizes = [rng.randint(1, 6) for _ in range(count)]
    pauses = [rng.random() / 200 for _ in range(64)]

    def pause() -> None:
        time.sleep(pauses[threading.get_ident() % len(pauses)])

    def work(size: int) -> None:
        try:
            barrier.wait()
            contributions_apply(batch_size=size, before_commit=pause)
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(size,)) for size in sizes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stream=plays, draws=draw_lists, seed=seeds, workers=st.integers(2, 4))
def test_several_workers_committing_in_any_order_give_the_replay_in_the_order_of_play(
    stream, draws, seed, workers, monkeypatch
):
    rng = random.Random(seed)
    events, grand, mystery = _posted(stream, draws, monkeypatch, rng)
    _workers_apply(workers, rng)
    assert contributions_apply() == 0
    in_play = sorted(_model_events(events), key=lambda e: e.place)
    assert _hits([grand, mystery]) == _expected(in_play, grand, mystery, draws)
    assert jackpots_audit()[1] == []
