"""The floor map's side column (counts, alerts, banks, marks), games reaching the map, the machine panel's
names in both languages, the report defaults, the games chart at any bank count and readable changes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import override

from common.days import business_date_of
from jackpots.models import Hit, LevelChange
from slots.models import MachineAlert, MachineEvent, MeterDelta
from tests.factories import (
    BankFactory,
    LevelFactory,
    ProgressiveMachineFactory,
    RoomFactory,
    SlotMachineFactory,
    VenueFactory,
)
from tests.staff_fixtures import game_event
from workspace.live import publish
from workspace.live.floor import room_floor
from workspace.live.selectors import meter_lines
from workspace.reports.changes import change_lines
from workspace.reports.charts import Bar, bars_top, hbar_chart


@pytest.fixture
def room(db):
    return RoomFactory(venue=VenueFactory(), number=1, name="Sala Uno")


def test_room_floor_banks_counts_alerts_and_marks(room):
    now = timezone.now()
    bank = BankFactory(room=room, code="B7", name="Diamond Vault")
    door = SlotMachineFactory(room=room, bank=bank, asset_number="NOG-0001", pos_x=2, pos_y=1,
                              last_seen=now, door_open=True, status_seq=5)  # fmt: skip
    playing = SlotMachineFactory(room=room, bank=bank, asset_number="NOG-0002", pos_x=3, pos_y=2,
                                 last_seen=now, last_game_at=now)  # fmt: skip
    # The unnamed bank's code is fixed: a factory code ("B812" on a worker that has made 812 banks)
    # would sort after "B7" and swap the two frames.
    SlotMachineFactory(
        room=room, bank=BankFactory(room=room, code="B1"), asset_number="NOG-0003", pos_x=9,
        pos_y=9, last_seen=now - timedelta(minutes=5),
    )  # fmt: skip
    status = game_event(door, 5, now - timedelta(minutes=7), 1, 0)
    status.type, status.wager_cents, status.win_cents, status.payload = (
        MachineEvent.Type.STATUS,
        None,
        None,
        {},
    )
    status.save()
    ProgressiveMachineFactory(machine=playing)
    Hit.objects.create(
        level=LevelFactory(), machine=playing, at=now, amount_cents=150_000, level_seq=1, cycle=1
    )
    MachineAlert.objects.create(machine=playing, kind=MachineAlert.Kind.MEMORY_RESET, seq=3,
                                at=now - timedelta(minutes=2), detail="reset")  # fmt: skip
    MachineAlert.objects.create(machine=playing, kind=MachineAlert.Kind.SEQ_CONFLICT, seq=4, at=now,
                                detail="seen", acknowledged_at=now)  # fmt: skip
    MeterDelta.objects.create(
        event=status, machine=playing, name="coin_in", value=9, delta=9, kind="increment",
        at=now - timedelta(minutes=1), review=MeterDelta.Review.PENDING,
    )  # fmt: skip

    with override("en"):  # the labels are the people's words: in the test's language
        floor = room_floor(room, now)

    # A bank without a name is framed under its code.
    other, frame = floor.banks
    assert (other.name, other.column_start, other.row_start, other.jackpot) == (other.code, 10, 10, False)
    assert (
        frame.name,
        frame.column_start,
        frame.column_end,
        frame.row_start,
        frame.row_end,
        frame.jackpot,
    ) == ("Diamond Vault", 3, 5, 2, 4, True)
    assert [(state, count) for state, _label, count in floor.counts] == [
        ("door_open", 1), ("handpay", 0), ("tilt", 0), ("offline", 1), ("playing", 1), ("idle", 0)
    ]  # fmt: skip
    marks = {tile["asset"]: (tile["jackpot"], tile["hit"]) for tile in floor.tiles}
    assert marks == {"NOG-0001": (False, False), "NOG-0002": (True, True), "NOG-0003": (False, False)}
    assert [(a.asset, a.label, a.age) for a in floor.alerts] == [
        ("NOG-0001", "door open", timedelta(minutes=7)),
        ("NOG-0003", "offline", timedelta(minutes=5)),
        ("NOG-0002", "Memory reset", timedelta(minutes=2)),
        ("NOG-0002", "implausible meters, awaiting review", timedelta(minutes=1)),
    ]


def test_map_page_names_banks_and_lists_alerts(client, manager, room):
    bank = BankFactory(room=room, code="B7", name="Diamond Vault")
    SlotMachineFactory(
        room=room, bank=bank, asset_number="NOG-0001", door_open=True, last_seen=timezone.now()
    )
    client.force_login(manager)
    body = client.get(reverse("workspace:map", args=[room.venue.code, 1])).content.decode()
    assert '<span class="bank-name">Diamond Vault</span>' in body
    assert '<strong class="count" data-state="door_open">1</strong>' in body
    side = client.get(reverse("workspace:map-alerts", args=[room.venue.code, 1])).content.decode()
    assert "<td>NOG-0001</td><td>door open</td>" in side


def test_games_reach_the_map_once_per_interval(room, monkeypatch):
    """A machine that plays is pushed to its room at once, then not again within the interval."""
    pushed: list[list[int]] = []
    monkeypatch.setattr(publish, "machines_changed", lambda ids: pushed.append(sorted(ids)))
    monkeypatch.setattr(publish, "_played_pushed", {})
    clock = iter([100.0, 105.0, 121.0])
    monkeypatch.setattr(publish, "_clock", lambda: next(clock))
    publish.machines_played({7, 8})
    publish.machines_played({7})
    publish.machines_played({7, 8})
    assert pushed == [[7, 8], [], [7, 8]]


def test_ingest_announces_games(room, monkeypatch):
    from slots.hooks import hooks
    from slots.services.ingest import _games_announce
    from slots.services.parsing import ParsedEvent

    machine = SlotMachineFactory(room=room)
    heard: list[set[int]] = []
    monkeypatch.setattr(hooks, "machines_played", [heard.append])
    game = ParsedEvent.__new__(ParsedEvent)
    game.machine, game.type = machine, MachineEvent.Type.GAME
    status = ParsedEvent.__new__(ParsedEvent)
    status.machine, status.type = SlotMachineFactory(room=room), MachineEvent.Type.STATUS
    _games_announce([game, status])
    assert heard == [{machine.pk}]


def test_meter_names_in_both_languages():
    meters = {"progressive_attendant_paid": 1500, "games_played": 57, "coin_in": 22_000, "x_custom": 1}
    with override("en"):
        assert [(m.label, m.value, m.is_count) for m in meter_lines(meters)] == [
            ("Coin in", 22_000, False),
            ("Games played", 57, True),
            ("Progressive wins paid by an attendant", 1500, False),
            ("x_custom", 1, False),
        ]
    with override("it"):
        assert [m.label for m in meter_lines(meters)][:3] == [
            "Incasso",
            "Partite giocate",
            "Vincite progressive pagate da un addetto",
        ]


def test_change_history_reads_as_euros(client, manager, db):
    level = LevelFactory()
    change = LevelChange.objects.create(
        level=level, user=manager, at=timezone.now(), reason="Nuovo premio", state="applied",
        old={"reset_mc": 5_000_000_00, "max_bet_only": False, "min_wager_cents": 100},
        new={"reset_mc": 6_000_000_00, "max_bet_only": True, "min_wager_cents": 250},
    )  # fmt: skip
    with override("en"):
        assert [str(line) for line in change_lines(change)] == [
            "Reset: €5,000.00 → €6,000.00",
            "Max bet only: no → yes",
            "Minimum eligible wager: €1.00 → €2.50",
        ]
    client.force_login(manager)
    today = business_date_of(timezone.now(), "Europe/Rome")
    body = client.get(
        reverse("workspace:report-level-history"), {"level": level.pk, "first": today, "last": today}
    ).content.decode()
    assert "Reset: €5,000.00 → €6,000.00" in body
    assert "reset_mc" not in body and "{" not in body.split('id="history-changes"')[1]


def test_reports_open_on_today_and_the_first_room_and_level(client, manager, db):
    venue = VenueFactory()
    RoomFactory(venue=venue, number=2, name="Sala Due")
    first_room = RoomFactory(venue=venue, number=1, name="Sala Uno")
    level = LevelFactory(progressive__name="A Diamond", position=1)
    LevelFactory(progressive__name="B Gold", position=1)
    client.force_login(manager)
    today = business_date_of(timezone.now(), "Europe/Rome")
    hours = client.get(reverse("workspace:report-room-hours"))
    assert hours.status_code == 200
    assert hours.context["form"].cleaned_data == {"room": first_room, "day": today}
    history = client.get(reverse("workspace:report-level-history"))
    assert history.context["form"].cleaned_data == {"level": level, "first": today, "last": today}
    assert history.context["history"].level == level
    games = client.get(reverse("workspace:report-games"))
    assert games.context["form"].cleaned_data == {
        "venue": venue, "first": today, "last": today, "group_by": "machine"
    }  # fmt: skip
    assert games.context["report"] is not None


def test_games_chart_keeps_the_top_and_sums_the_rest():
    bars = [Bar(label=f"B{n:02d}", value=n * 100) for n in range(1, 56)]
    top = bars_top(bars, 20, "Others")
    assert [bar.label for bar in top[:3]] == ["B55", "B54", "B53"]
    assert top[-1].label == "Others (36)"
    assert top[-1].value == sum(n * 100 for n in range(1, 37))
    assert sum(bar.value for bar in top) == sum(bar.value for bar in bars)
    svg = str(hbar_chart(top, "Coin in"))
    assert svg.count("<rect") == 20
    assert ">€\xa055.00</text>" in svg and ">Others (36)</text>" in svg
