"""Report totals against independent sums of the raw events, business days and the summary refresh."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from itertools import pairwise
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jackpots.models import Hit, MachineContribution
from slots.models import MachineEvent, MeterDelta
from tests.factories import BankFactory, LevelFactory, RoomFactory, SlotMachineFactory, VenueFactory
from tests.staff_fixtures import game_event
from workspace.models import MachineHourStat, ReportRefreshState
from workspace.reports.selectors import game_report, hold_percent, room_coin_in_by_hour
from workspace.reports.services import machine_hour_stats_refresh

ROME = ZoneInfo("Europe/Rome")


def rome(*args: int) -> datetime:
    return datetime(*args, tzinfo=ROME)


def expected_day(at: datetime) -> date:
    """Independent of the product: the wall clock in Rome, six hours back, is the business day."""
    wall = at.astimezone(ROME)
    if wall.hour < 6:
        return wall.date() - timedelta(days=1)
    return wall.date()


@pytest.fixture
def floor_two_rooms(db):
    venue = VenueFactory()
    room1, room2 = RoomFactory(venue=venue, number=1), RoomFactory(venue=venue, number=2)
    bank1 = BankFactory(room=room1, code="DV")
    machines = [
        SlotMachineFactory(room=room1, bank=bank1, asset_number="NOG-0101"),
        SlotMachineFactory(room=room1, bank=bank1, asset_number="NOG-0102"),
        SlotMachineFactory(room=room2, bank=BankFactory(room=room2, code="GR"), asset_number="NOG-0201"),
    ]
    return venue, machines


def test_business_day_boundaries_and_dst(floor_two_rooms):
    venue, (m1, m2, m3) = floor_two_rooms
    events = [
        # 05:59 belongs to the day before, 06:00 opens the new day.
        (m1, rome(2026, 11, 20, 5, 59, 59), 100, 0),
        (m1, rome(2026, 11, 20, 6, 0, 0), 200, 50),
        (m2, rome(2026, 11, 20, 23, 30), 450, 1000),
        (m3, rome(2026, 11, 21, 5, 0), 300, 0),
        # The spring-forward night (29 March 2026, 02:00 → 03:00): 06:30 local is the new day.
        (m1, rome(2026, 3, 29, 6, 30), 70, 7),
        (m1, rome(2026, 3, 29, 5, 30), 80, 0),
        # The fall-back night (25 October 2026): the 02:00 hour happens twice, both in the day before.
        (m2, datetime(2026, 10, 25, 0, 30, tzinfo=UTC), 11, 0),
        (m2, datetime(2026, 10, 25, 1, 30, tzinfo=UTC), 13, 0),
    ]
    MachineEvent.objects.bulk_create(
        game_event(machine, seq, at, wager, win) for seq, (machine, at, wager, win) in enumerate(events, 1)
    )
    machine_hour_stats_refresh()

    report = game_report(venue, date(2026, 3, 1), date(2026, 11, 30), "day")
    got = {row.key: (row.games, row.coin_in_cents, row.coin_out_cents) for row in report.rows}
    assert got == {
        date(2026, 3, 28): (1, 80, 0),
        date(2026, 3, 29): (1, 70, 7),
        date(2026, 10, 24): (2, 24, 0),
        date(2026, 11, 19): (1, 100, 0),
        date(2026, 11, 20): (3, 950, 1050),
    }
    assert [expected_day(at) for _, at, _, _ in events] == [
        date(2026, 11, 19),
        date(2026, 11, 20),
        date(2026, 11, 20),
        date(2026, 11, 20),
        date(2026, 3, 29),
        date(2026, 3, 28),
        date(2026, 10, 24),
        date(2026, 10, 24),
    ]


def test_groupings_hold_and_wins(floor_two_rooms):
    venue, (m1, m2, m3) = floor_two_rooms
    day = rome(2026, 11, 20, 12)
    MachineEvent.objects.bulk_create(
        [
            game_event(m1, 1, day, 450, 0),
            game_event(m1, 2, day + timedelta(minutes=1), 450, 900),
            game_event(m2, 1, day, 300, 0),
            game_event(m3, 1, day, 1000, 250),
        ]
    )
    level = LevelFactory()
    common = {"level": level, "level_seq": 1, "cycle": 1}
    Hit.objects.create(machine=m1, at=day, amount_cents=150_000, state=Hit.State.PAID, **common)
    Hit.objects.create(machine=m1, at=day, amount_cents=20_000, state=Hit.State.HIT, **common)
    Hit.objects.create(machine=m3, at=day, amount_cents=99_999, state=Hit.State.VOIDED, **common)
    # The handpay meter: a baseline (no delta) then an attendant-paid €1,250 on m1; one on m3 the day after.
    meters = [game_event(m, seq, day, 1, 0) for m, seq in ((m1, 10), (m1, 11), (m3, 10))]
    for event in meters:
        event.type, event.wager_cents, event.win_cents = MachineEvent.Type.METERS, None, None
    MachineEvent.objects.bulk_create(meters)
    for event, delta, kind, at in (
        (meters[0], 0, MeterDelta.Kind.BASELINE, day),
        (meters[1], 125_000, MeterDelta.Kind.INCREMENT, day),
        (meters[2], 40_000, MeterDelta.Kind.INCREMENT, day + timedelta(days=1)),
    ):
        MeterDelta.objects.create(
            event=event, machine=event.machine, name="handpay", value=delta, delta=delta, kind=kind, at=at
        )
    machine_hour_stats_refresh()

    by_machine = game_report(venue, date(2026, 11, 20), date(2026, 11, 20), "machine")
    rows = {row.labels[0]: row for row in by_machine.rows}
    assert (rows["NOG-0101"].games, rows["NOG-0101"].coin_in_cents, rows["NOG-0101"].coin_out_cents) == (
        2,
        900,
        900,
    )
    assert rows["NOG-0101"].hold_cents == 0
    assert rows["NOG-0101"].progressive_wins_cents == 170_000
    assert rows["NOG-0101"].handpay_wins_cents == 125_000
    assert rows["NOG-0201"].progressive_wins_cents == 0
    # A machine with a win and no game in the range is listed under its own name.
    idle = SlotMachineFactory(asset_number="NOG-0199", game_title="Wyland", room=m1.room)
    Hit.objects.create(machine=idle, at=day, amount_cents=5_000, state=Hit.State.HIT, **common)
    with_idle = {row.labels: row for row in game_report(venue, date(2026, 11, 20), date(2026, 11, 20)).rows}
    assert (
        with_idle[("NOG-0199", "Wyland")].games,
        with_idle[("NOG-0199", "Wyland")].progressive_wins_cents,
    ) == (
        0,
        5_000,
    )
    idle.hits.all().delete()
    assert str(rows["NOG-0201"].hold_percent) == "75.00"
    total = by_machine.total
    assert (total.games, total.coin_in_cents, total.coin_out_cents, total.hold_cents) == (4, 2200, 1150, 1050)
    assert str(total.hold_percent) == "47.73"

    by_bank = game_report(venue, date(2026, 11, 20), date(2026, 11, 20), "bank")
    assert [(row.labels[0], row.coin_in_cents) for row in by_bank.rows] == [("DV", 1200), ("GR", 1000)]
    by_room = game_report(venue, date(2026, 11, 20), date(2026, 11, 20), "room")
    assert [(row.coin_in_cents, row.progressive_wins_cents) for row in by_room.rows] == [
        (1200, 170_000),
        (1000, 0),
    ]
    by_venue = game_report(venue, date(2026, 11, 20), date(2026, 11, 20), "venue")
    assert [(row.labels, row.coin_in_cents, row.handpay_wins_cents) for row in by_venue.rows] == [
        (("NOG",), 2200, 125_000)
    ]
    by_day = game_report(venue, date(2026, 11, 20), date(2026, 11, 21), "day")
    assert [(row.key, row.handpay_wins_cents, row.progressive_wins_cents) for row in by_day.rows] == [
        (date(2026, 11, 20), 125_000, 170_000),
        (date(2026, 11, 21), 40_000, 0),
    ]


def test_hold_percent_exact():
    assert hold_percent(0, 0) is None
    assert str(hold_percent(3, 1)) == "33.33"
    assert str(hold_percent(1000, -250)) == "-25.00"


def test_refresh_is_idempotent_and_picks_up_late_events(floor_two_rooms):
    _venue, (m1, _, _) = floor_two_rooms
    at = rome(2026, 11, 20, 10, 15)
    MachineEvent.objects.bulk_create([game_event(m1, 1, at, 100, 0)])
    start = datetime(2026, 11, 21, 12, tzinfo=UTC)
    assert machine_hour_stats_refresh(now=start) == 1
    assert machine_hour_stats_refresh(now=start + timedelta(seconds=10)) == 1  # rescanned, same result
    # An event of the same hour arriving later recomputes the whole hour.
    MachineEvent.objects.bulk_create([game_event(m1, 2, at + timedelta(minutes=20), 50, 20)])
    machine_hour_stats_refresh(now=start + timedelta(seconds=400))
    stat = MachineHourStat.objects.get()
    assert (stat.games, stat.coin_in_cents, stat.coin_out_cents) == (2, 150, 20)
    assert stat.business_date == date(2026, 11, 20)
    # Once a checkpoint is settled, old ids are not scanned again.
    assert machine_hour_stats_refresh(now=start + timedelta(seconds=900)) == 1
    assert machine_hour_stats_refresh(now=start + timedelta(seconds=1200)) == 0
    assert len(ReportRefreshState.objects.get().checkpoints) <= 3


def test_summaries_from_before_contributions_take_every_contribution_row_once(floor_two_rooms):
    """Checkpoints written before the summaries carried contributions have no contribution id: the first
    refresh after the upgrade scans every contribution row, later ones only the new rows."""
    _venue, (m1, m2, _) = floor_two_rooms
    at = rome(2026, 11, 20, 10, 15)
    MachineEvent.objects.bulk_create([game_event(m1, 1, at, 100, 0)])
    start = datetime(2026, 11, 21, 12, tzinfo=UTC)
    assert machine_hour_stats_refresh(now=start) == 1
    event_top = MachineEvent.objects.get().id
    MachineContribution.objects.bulk_create(
        MachineContribution(entry_id=entry, level_id=1, machine=machine, at=at + later, contributed_mc=mc)
        for entry, machine, later, mc in [
            (1, m1, timedelta(seconds=2), 7),
            (1, m2, timedelta(seconds=2), 5),
            (2, m1, timedelta(hours=1), 3),
        ]
    )
    old_style = [[(start - timedelta(minutes=10)).isoformat(), event_top], [start.isoformat(), event_top]]
    ReportRefreshState.objects.filter(pk=1).update(checkpoints=old_style)
    assert machine_hour_stats_refresh(now=start + timedelta(minutes=1)) == 3
    summary = {(s.machine_id, s.hour): (s.games, s.contributed_mc) for s in MachineHourStat.objects.all()}
    assert summary == {
        (m1.id, rome(2026, 11, 20, 10)): (1, 7),
        (m2.id, rome(2026, 11, 20, 10)): (0, 5),
        (m1.id, rome(2026, 11, 20, 11)): (0, 3),
    }
    assert machine_hour_stats_refresh(now=start + timedelta(minutes=4)) == 3  # rescanned, not yet settled
    assert machine_hour_stats_refresh(now=start + timedelta(minutes=7)) == 0
    assert MachineHourStat.objects.get(machine=m1, hour=rome(2026, 11, 20, 10)).contributed_mc == 7


def test_room_coin_in_by_hour_has_every_hour(floor_two_rooms):
    _venue, (m1, m2, m3) = floor_two_rooms
    MachineEvent.objects.bulk_create(
        [
            game_event(m1, 1, rome(2026, 11, 20, 6, 5), 100, 0),
            game_event(m2, 1, rome(2026, 11, 20, 6, 55), 200, 0),
            game_event(m1, 2, rome(2026, 11, 21, 5, 59), 300, 0),
            game_event(m3, 1, rome(2026, 11, 20, 6, 5), 999, 0),  # other room
        ]
    )
    machine_hour_stats_refresh()
    bars = room_coin_in_by_hour(m1.room, date(2026, 11, 20))
    assert len(bars) == 24
    assert bars[0].hour == rome(2026, 11, 20, 6)
    assert (bars[0].coin_in_cents, bars[0].games) == (300, 2)
    assert (bars[23].coin_in_cents, bars[23].games) == (300, 1)
    assert sum(bar.coin_in_cents for bar in bars) == 600


def independent_hold_percent(coin_in: int, hold: int) -> Decimal | None:
    """Hold % to two places, half to even, in integer arithmetic (Fraction rounds half to even)."""
    if coin_in == 0:
        return None
    return Decimal(round(Fraction(hold * 10_000, coin_in))).scaleb(-2)


HIT_STATES = [Hit.State.HIT, Hit.State.VERIFIED, Hit.State.PAID, Hit.State.VOIDED]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    games=st.lists(
        st.tuples(
            st.integers(0, 2),
            st.integers(0, 60 * 24 * 9),  # minutes after the start
            st.integers(1, 50_000),
            st.integers(0, 200_000),
        ),
        max_size=40,
    ),
    hits=st.lists(
        st.tuples(
            st.integers(0, 2),
            st.integers(0, 60 * 24 * 9),
            st.integers(1, 5_000_000),
            st.sampled_from(HIT_STATES),
        ),
        max_size=12,
    ),
    handpays=st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 60 * 24 * 9), st.integers(0, 300_000)), max_size=12
    ),
)
def test_report_matches_independent_sums(floor_two_rooms, games, hits, handpays):
    """Games, coin in, coin out, hold, hold %, progressive wins and handpay wins per machine, against sums
    of the raw game events, the hits and the machines' handpay meter readings."""
    venue, machines = floor_two_rooms
    MachineEvent.objects.all().delete()
    MachineHourStat.objects.all().delete()
    ReportRefreshState.objects.all().delete()
    Hit.objects.all().delete()
    origin = rome(2026, 10, 20, 0, 0)
    events = [
        game_event(machines[m], seq, origin + timedelta(minutes=minute), wager, win)
        for seq, (m, minute, wager, win) in enumerate(games, 1)
    ]
    MachineEvent.objects.bulk_create(events)
    level = LevelFactory()
    hit_rows = Hit.objects.bulk_create(
        Hit(
            level=level, machine=machines[m], at=origin + timedelta(minutes=minute), amount_cents=amount,
            state=state, level_seq=1, cycle=1,
        )
        for m, minute, amount, state in hits
    )  # fmt: skip
    # The handpay meter of each machine as it reads over time: a baseline, then what attendants paid.
    readings: dict[int, list[tuple[datetime, int]]] = defaultdict(list)
    for m, minute, paid in sorted(handpays, key=lambda h: (h[0], h[1])):
        previous = readings[m][-1][1] if readings[m] else 1_000_000
        readings[m].append((origin + timedelta(minutes=minute), previous + paid))
    meter_events = []
    for m, machine_readings in readings.items():
        for n, (at, _value) in enumerate(machine_readings):
            event = game_event(machines[m], 10_000 + n, at, 1, 0)
            event.type, event.wager_cents, event.win_cents = MachineEvent.Type.METERS, None, None
            meter_events.append(event)
    MachineEvent.objects.bulk_create(meter_events)
    by_event = iter(meter_events)
    for m, machine_readings in readings.items():
        previous = None
        for at, value in machine_readings:
            event = next(by_event)
            MeterDelta.objects.create(
                event=event, machine=machines[m], name="handpay", value=value,
                delta=0 if previous is None else value - previous,
                kind=MeterDelta.Kind.BASELINE if previous is None else MeterDelta.Kind.INCREMENT, at=at,
            )  # fmt: skip
            previous = value
    machine_hour_stats_refresh()

    first, last = date(2026, 10, 20), date(2026, 10, 26)

    def in_range(at: datetime) -> bool:
        return first <= expected_day(at) <= last

    # games, coin in, coin out, progressive wins, handpay wins
    want: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    for event in events:
        if in_range(event.at):
            sums = want[event.machine.asset_number]
            sums[0] += 1
            sums[1] += event.wager_cents
            sums[2] += event.win_cents
    for hit in hit_rows:
        if in_range(hit.at) and hit.state != Hit.State.VOIDED:
            want[hit.machine.asset_number][3] += hit.amount_cents
    for m, machine_readings in readings.items():
        for (_at, before), (at, after) in pairwise(machine_readings):
            if in_range(at) and after > before:
                want[machines[m].asset_number][4] += after - before

    report = game_report(venue, first, last, "machine")
    got = {
        row.labels[0]: (
            row.games, row.coin_in_cents, row.coin_out_cents, row.hold_cents, row.hold_percent,
            row.progressive_wins_cents, row.handpay_wins_cents,
        )
        for row in report.rows
    }  # fmt: skip
    expected = {
        asset: (
            games_, coin_in, coin_out, coin_in - coin_out,
            independent_hold_percent(coin_in, coin_in - coin_out), won, handpay,
        )
        for asset, (games_, coin_in, coin_out, won, handpay) in want.items()
        if games_ or won or handpay
    }  # fmt: skip
    assert got == expected
    assert report.total.hold_cents == sum(row[3] for row in expected.values())
    assert report.total.progressive_wins_cents == sum(row[5] for row in expected.values())
    assert report.total.handpay_wins_cents == sum(row[6] for row in expected.values())


def test_independent_hold_percent_rounds_half_to_even():
    assert independent_hold_percent(8, 1) == Decimal("12.50")
    assert independent_hold_percent(800, 1) == Decimal("0.12")  # 0.125 -> 0.12
    assert independent_hold_percent(800, 3) == Decimal("0.38")  # 0.375 -> 0.38
    assert independent_hold_percent(3, 2) == Decimal("66.67")
    assert independent_hold_percent(3, -1) == Decimal("-33.33")
    assert independent_hold_percent(0, 0) is None


def test_refresh_task_runs_the_service(floor_two_rooms):
    from workspace.tasks import machine_hour_stats_refresh_task

    _venue, (m1, _, _) = floor_two_rooms
    MachineEvent.objects.bulk_create([game_event(m1, 1, rome(2026, 11, 20, 10), 100, 0)])
    assert machine_hour_stats_refresh_task() == 1
    assert MachineHourStat.objects.get().coin_in_cents == 100
