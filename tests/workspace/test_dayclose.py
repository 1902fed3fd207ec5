"""Day close: meters against the day's games and hits, machine by machine; a signed-off day is locked."""

from __future__ import annotations

import hashlib
import io
from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from pypdf import PdfReader

from jackpots.models import Hit
from slots.models import MachineEvent, MeterDelta
from tests.factories import RoomFactory, SlotMachineFactory
from tests.staff_fixtures import game_event
from tests.workspace.conftest import hit_on
from workspace.dayclose.selectors import day_reconcile
from workspace.dayclose.services import DayCloseRefused, dayclose_lines, dayclose_sign
from workspace.models import DayClose

pytestmark = pytest.mark.django_db

DAY = date(2026, 11, 20)
EVENING = datetime(2026, 11, 20, 21, 0, tzinfo=ZoneInfo("Europe/Rome"))


def meters(machine, seq: int, at: datetime, review: str = "", **deltas: int) -> None:
    """A meters event and its deltas, as the ingest stores them."""
    event = MachineEvent.objects.create(
        machine=machine,
        seq=seq,
        type=MachineEvent.Type.METERS,
        at=at,
        received_at=at,
        digest=hashlib.sha1(f"{machine.pk}:{seq}".encode()).hexdigest(),
        payload={"meters": deltas},
    )
    for name, delta in deltas.items():
        MeterDelta.objects.create(
            event=event,
            machine=machine,
            name=name,
            value=delta,
            delta=delta,
            kind="increment",
            at=at,
            review=review,
        )


@pytest.fixture
def floor(db):
    room = RoomFactory()
    agrees = SlotMachineFactory(asset_number="NOG-0001", room=room)
    disagrees = SlotMachineFactory(asset_number="NOG-0002", room=room)
    for machine in (agrees, disagrees):
        MachineEvent.objects.bulk_create(
            [game_event(machine, 1, EVENING, 12_345, 0), game_event(machine, 2, EVENING, 450, 10_000)]
        )
    # 12,795 played and 10,000 won on each; the first machine's meters say so (within €1.00 of the
    # tolerance: 80 cents off), the second's coin in says €5.00 more.
    meters(agrees, 3, EVENING, coin_in=12_795 + 80, coin_out=10_000, handpay=0)
    meters(disagrees, 3, EVENING, coin_in=12_795 + 500, coin_out=10_000, handpay=0)
    # The next business day (from 06:00): not in the day's figures.
    meters(agrees, 4, EVENING.replace(day=21, hour=6), coin_in=99_999)
    # Implausible and not yet reviewed: left out.
    meters(agrees, 5, EVENING, review=MeterDelta.Review.PENDING, coin_out=77_777)
    return room.venue


def test_a_machine_whose_meters_disagree_is_flagged_and_one_that_agrees_is_not(floor, settings):
    settings.DAY_CLOSE_TOLERANCE_CENTS = 100
    lines = {line.asset: line for line in day_reconcile(floor, DAY, 100)}
    agrees, disagrees = lines["NOG-0001"], lines["NOG-0002"]
    assert (agrees.coin_in_meter, agrees.wagers, agrees.coin_out_meter, agrees.wins) == (
        12_875,
        12_795,
        10_000,
        10_000,
    )
    assert agrees.differences == {"coin_in": 80, "coin_out": 0, "handpay": 0}
    assert agrees.flagged == []
    assert disagrees.differences == {"coin_in": 500, "coin_out": 0, "handpay": 0}
    assert disagrees.flagged == ["coin_in"]


def test_a_hit_without_its_handpay_meter_is_flagged(floor):
    machine = floor.rooms.first().machines.get(asset_number="NOG-0001")
    hit = hit_on("NOG-0003", 50_000_000)
    Hit.objects.filter(pk=hit.pk).update(machine=machine, at=EVENING)
    line = next(line for line in day_reconcile(floor, DAY, 100) if line.asset == "NOG-0001")
    assert (line.handpay_meter, line.hits, line.flagged) == (0, 50_000, ["handpay"])
    Hit.objects.filter(pk=hit.pk).update(state=Hit.State.VOIDED)
    line = next(line for line in day_reconcile(floor, DAY, 100) if line.asset == "NOG-0001")
    assert (line.hits, line.flagged) == (0, [])


def test_a_signed_off_day_cannot_change(floor, manager, manager2):
    closed = dayclose_sign(
        floor, DAY, manager, now=timezone.now(), note="Checked NOG-0002 with the technician"
    )
    assert (closed.signed_by, closed.tolerance_cents) == (manager, 100)
    # Later events of the day do not change what was signed.
    machine = floor.rooms.first().machines.get(asset_number="NOG-0002")
    meters(machine, 9, EVENING, coin_in=400)
    lines, found = dayclose_lines(floor, DAY)
    assert found == closed
    assert next(line for line in lines if line.asset == "NOG-0002").coin_in_meter == 13_295
    with pytest.raises(DayCloseRefused, match="already signed off and cannot change"):
        dayclose_sign(floor, DAY, manager2, now=timezone.now())
    with pytest.raises(ValueError, match="append-only"):
        closed.note = "changed"
        closed.save()
    assert DayClose.objects.get().note == "Checked NOG-0002 with the technician"


def test_a_day_still_running_cannot_be_signed(floor, manager):
    with pytest.raises(DayCloseRefused, match="is not over yet"):
        dayclose_sign(floor, DAY, manager, now=EVENING)
    assert not DayClose.objects.exists()


def test_the_page_signs_off_once_and_exports_csv_and_pdf(client, floor, manager, manager2):
    client.force_login(manager)
    page = client.get("/dayclose/?venue=NOG&day=2026-11-20").content.decode()
    assert 'id="line-NOG-0002" class="flagged" data-flagged="coin_in"' in page
    assert 'id="line-NOG-0001" class="flagged"' not in page
    client.post("/dayclose/?venue=NOG&day=2026-11-20", {"note": ""})
    page = client.get("/dayclose/?day=2026-11-20").content.decode()
    assert "Signed off by manager" in page and 'id="sign-off"' not in page
    client.force_login(manager2)
    page = client.post("/dayclose/?day=2026-11-20", follow=True).content.decode()
    assert "already signed off and cannot change" in page
    assert DayClose.objects.get().signed_by == manager
    csv = client.get("/dayclose/NOG/2026-11-20.csv").content.decode().splitlines()
    assert csv[1:] == [
        "NOG-0001,12875,12795,80,10000,10000,0,0,0,0,",
        "NOG-0002,13295,12795,500,10000,10000,0,0,0,0,coin_in",
    ]
    text = PdfReader(io.BytesIO(client.get("/dayclose/NOG/2026-11-20.pdf").content)).pages[0].extract_text()
    assert "Signed off by manager" in text and "132.95" in text


def test_an_attendant_reads_nothing_and_an_auditor_cannot_sign(client, floor, attendant, auditor):
    client.force_login(attendant)
    assert client.get("/dayclose/?day=2026-11-20").status_code == 403
    client.force_login(auditor)
    page = client.post("/dayclose/?day=2026-11-20", follow=True).content.decode()
    assert "Only a floor manager can sign off a day." in page
    assert not DayClose.objects.exists()
